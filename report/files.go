package report

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/stampede/stampede/analyze"
)

// WriteFile renders r in format f to path. A Markdown report also gets its
// charts, as PNG files beside it named STEM-CHART.png and linked by
// relative name, so the directory can be pasted into a document or a
// repository as it is. Every file is written to a temporary and renamed, so
// an interrupted run leaves nothing half-written.
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
	for _, c := range charts {
		var img bytes.Buffer
		if err := c.Write(&img, ImagePNG); err != nil {
			return err
		}
		name := stem + "-" + c.Name + ".png"
		if err := writeAtomic(filepath.Join(filepath.Dir(path), name), img.Bytes()); err != nil {
			return err
		}
		// Escaped so a report named "incident (2).md" still links.
		d.charts = append(d.charts, chartLink{file: url.PathEscape(name), title: c.Title})
	}
	var buf bytes.Buffer
	if err := renderMarkdown(&buf, d); err != nil {
		return fmt.Errorf("render markdown: %w", err)
	}
	return writeAtomic(path, buf.Bytes())
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// CreateTemp makes the file private; a report is meant to be shared.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
