package report

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/internal/safefile"
)

// WriteFile renders r in format f to path. A Markdown report also gets its
// charts, as PNG files beside it named STEM-CHART.png and linked by
// relative name, so the directory can be pasted into a document or a
// repository as it is. Every file is written to a temporary and renamed, so
// an interrupted or failed run leaves nothing half-written and no chart of
// a report it did not write.
func WriteFile(path string, r *analyze.Result, f Format, opts Options) error {
	if r == nil {
		return fmt.Errorf("render %s: no result", f)
	}
	if f != FormatMarkdown {
		var buf bytes.Buffer
		if err := RenderWith(&buf, r, f, opts); err != nil {
			return err
		}
		return writeAtomic(path, buf.Bytes())
	}
	charts, err := Charts(r, opts.Series)
	if err != nil {
		return err
	}
	d := layout(r)
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	// The report and its charts are staged together and put in place only
	// once all are written: a failure leaves none of them behind.
	var staged []*safefile.Staged
	defer func() {
		for _, s := range staged {
			s.Abort()
		}
	}()
	for _, c := range charts {
		var img bytes.Buffer
		if err := c.Write(&img, ImagePNG); err != nil {
			return err
		}
		name := stem + "-" + c.Name + ".png"
		s, err := stageBytes(filepath.Join(filepath.Dir(path), name), img.Bytes())
		if err != nil {
			return err
		}
		staged = append(staged, s)
		// Escaped so a report named "incident (2).md" still links.
		d.charts = append(d.charts, chartLink{file: url.PathEscape(name), title: c.Title})
	}
	var buf bytes.Buffer
	if err := renderMarkdown(&buf, d); err != nil {
		return fmt.Errorf("render markdown: %w", err)
	}
	s, err := stageBytes(path, buf.Bytes())
	if err != nil {
		return err
	}
	// The report goes in last, so it never links a chart not yet there.
	staged = append(staged, s)
	for len(staged) > 0 {
		if err := staged[0].Commit(); err != nil {
			return err
		}
		staged = staged[1:]
	}
	return nil
}

func stageBytes(path string, data []byte) (*safefile.Staged, error) {
	return safefile.Stage(path, 0o666, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomic writes a report or chart file whole or not at all, through to
// a device or FIFO given as the output (internal/safefile).
func writeAtomic(path string, data []byte) error {
	return safefile.Write(path, 0o666, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
