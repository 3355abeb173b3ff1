package report

import (
	"bytes"
	"context"
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
// a report it did not write. Once ctx is done, WriteFile stops with its
// cause and leaves path and its charts as they were.
func WriteFile(ctx context.Context, path string, r *analyze.Result, f Format, opts Options) error {
	if r == nil {
		return fmt.Errorf("render %s: no result", f)
	}
	if f != FormatMarkdown {
		return safefile.Write(ctx, path, 0o666, func(w io.Writer) error {
			return RenderWith(w, r, f, opts)
		})
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
		// Drawing a chart takes long beside writing it: look between two.
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		var img bytes.Buffer
		if err := c.Write(&img, ImagePNG); err != nil {
			return err
		}
		name := stem + "-" + c.Name + ".png"
		s, err := stageBytes(ctx, filepath.Join(filepath.Dir(path), name), img.Bytes())
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
	s, err := stageBytes(ctx, path, buf.Bytes())
	if err != nil {
		return err
	}
	if s.WritesThrough() {
		// A FIFO's reader may keep the report waiting: no chart goes in
		// before it is through.
		staged = append([]*safefile.Staged{s}, staged...)
	} else {
		// The report goes in last, so it never links a chart not yet there.
		staged = append(staged, s)
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	for len(staged) > 0 {
		if err := staged[0].Commit(); err != nil {
			return err
		}
		staged = staged[1:]
	}
	return nil
}

func stageBytes(ctx context.Context, path string, data []byte) (*safefile.Staged, error) {
	return safefile.Stage(ctx, path, 0o666, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
