package report

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/stampede/stampede/analyze"
	"github.com/stampede/stampede/internal/safefile"
)

// WriteFile renders r in format f to path. A Markdown report also gets its
// charts, as PNG files beside it named STEM-CHART-HASH.png and linked by
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
	return writeMarkdown(ctx, path, r, opts)
}

// hashLen is the hex digits of a chart's content hash in its name: enough
// that the charts of two different reports never share a name.
const hashLen = 8

// writeMarkdown writes the report and its charts as one unit. Each chart's
// name carries a hash of its content, so a report links only the charts it
// was drawn with, even while another run writes the same -o: the other
// run's charts have other names.
func writeMarkdown(ctx context.Context, path string, r *analyze.Result, opts Options) error {
	d := layout(r)
	dir := filepath.Dir(path)
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	files, err := drawCharts(ctx, r, stem, d)
	if err != nil {
		return err
	}
	var md bytes.Buffer
	if err := renderMarkdown(&md, d); err != nil {
		return fmt.Errorf("render markdown: %w", err)
	}
	// Staged together and put in place only once all are written: a
	// failure leaves none of them behind.
	var staged []*safefile.Staged
	defer func() {
		for _, s := range staged {
			s.Abort()
		}
	}()
	ours := map[string]bool{}
	for _, f := range files {
		s, err := stageBytes(ctx, filepath.Join(dir, f.name), f.data)
		if err != nil {
			return err
		}
		staged = append(staged, s)
		ours[f.name] = true
	}
	s, err := stageBytes(ctx, path, md.Bytes())
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
	return replaceReport(ctx, path, stem, &staged, ours)
}

// pngFile is a chart drawn for a Markdown report.
type pngFile struct {
	name string
	data []byte
}

// drawCharts draws r's charts as PNG files named STEM-CHART-HASH.png and
// links them from d.
func drawCharts(ctx context.Context, r *analyze.Result, stem string, d *document) ([]pngFile, error) {
	charts, err := Charts(r)
	if err != nil {
		return nil, err
	}
	var files []pngFile
	for _, c := range charts {
		// Drawing a chart takes long beside writing it: look between two.
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		var img bytes.Buffer
		if err := c.Write(&img, ImagePNG); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(img.Bytes())
		name := stem + "-" + c.Name + "-" + hex.EncodeToString(sum[:])[:hashLen] + ".png"
		files = append(files, pngFile{name, img.Bytes()})
		// Escaped so a report named "incident (2).md" still links.
		d.charts = append(d.charts, chartLink{file: url.PathEscape(name), title: c.Title})
	}
	return files, nil
}

// replaceReport puts the staged report and charts in place, in order, and
// removes the charts of the report they replace, all under a lock on the
// directory: concurrent runs replace the report one at a time, so none
// removes a chart that the report in place links. Each one it commits is
// taken off staged. ours are the new charts' names.
func replaceReport(ctx context.Context, path, stem string, staged *[]*safefile.Staged, ours map[string]bool) error {
	unlock, err := safefile.LockDir(ctx, filepath.Dir(path))
	if err != nil {
		return err
	}
	defer unlock()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	old := chartsLinked(path, stem)
	for len(*staged) > 0 {
		if err := (*staged)[0].Commit(); err != nil {
			return err
		}
		*staged = (*staged)[1:]
	}
	// A chart this report shares with the replaced one (the same
	// picture) stays. The new report is in place by now, so a chart that
	// cannot be removed is only litter, not a failure.
	for _, name := range old {
		if !ours[name] {
			_ = os.Remove(filepath.Join(filepath.Dir(path), name))
		}
	}
	return nil
}

// maxReportScan bounds how much of a replaced report is read for its
// charts' names.
const maxReportScan = 16 << 20

// imageLink matches an image link in a Markdown report.
// imageLink is a chart link: an <img> as reports write them now, or the
// Markdown image of reports from before charts were drawn at 2x.
var imageLink = regexp.MustCompile(`<img src="([^"\s]+)"|!\[[^\]]*\]\(([^)\s]+)\)`)

// oldChart is a chart name of STEM's reports from before charts were
// named by their content; chartName one named by it.
var (
	oldChart  = regexp.MustCompile(`^-(rate|rate-batch|rate-interactive|rate-unknown|throttle-load|acf|waves)\.png$`)
	chartName = regexp.MustCompile(`^-[a-z]+(-[a-z]+)*-[0-9a-f]{` + fmt.Sprint(hashLen) + `}\.png$`)
)

// chartsLinked returns the files beside the report at path that it links
// as its charts: only names stampede gives them, so a picture someone
// added to the report by hand is never taken for one.
func chartsLinked(path, stem string) []string {
	// A FIFO or device given as the report holds no report to read.
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	// The charts come after the findings, near the top of a report.
	b, err := io.ReadAll(io.LimitReader(f, maxReportScan))
	if err != nil {
		return nil
	}
	var names []string
	for _, m := range imageLink.FindAllSubmatch(b, -1) {
		name, err := url.PathUnescape(string(m[1]) + string(m[2]))
		if err != nil || name != filepath.Base(name) {
			continue
		}
		rest, ok := strings.CutPrefix(name, stem)
		if ok && (chartName.MatchString(rest) || oldChart.MatchString(rest)) {
			names = append(names, name)
		}
	}
	return names
}

func stageBytes(ctx context.Context, path string, data []byte) (*safefile.Staged, error) {
	return safefile.Stage(ctx, path, 0o666, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
