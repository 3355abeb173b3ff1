package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/mattn/go-isatty"

	"github.com/stampede/stampede"
)

const (
	// progressRefresh caps redraws at ten a second: smooth to the eye,
	// invisible in the profile.
	progressRefresh = 100 * time.Millisecond
	// progressDelay keeps quick runs free of a bar that would only flash.
	progressDelay    = 500 * time.Millisecond
	progressBarWidth = 20
)

// progressBar draws one line on a terminal while logs are read, so a
// multi-GB ingest does not look hung. A nil *progressBar is valid and does
// nothing: that is what a pipe or a file gets.
type progressBar struct {
	w     io.Writer
	start time.Time

	mu     sync.Mutex
	last   stampede.Progress
	drawn  int // width of the line on screen, to blank it out
	closed bool
	// idle: the reading is over and no later phase has begun, so there is
	// nothing to draw (the caller may be writing to the terminal).
	idle bool
	// phase and phaseStart are the phase after reading and when it began.
	phase      string
	events     int
	phaseStart time.Time
	now        func() time.Time

	stop chan struct{}
	done chan struct{}
}

// isTerminal reports whether w is a terminal. Unlike colour, the bar does
// not care about NO_COLOR: it is plain text, and only pipes and files must
// never see it.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// attachProgress points cfg.Progress at a bar on w when w is a terminal and
// returns the function that takes the bar down; call it before printing
// anything else to w.
func attachProgress(cfg *stampede.Config, w io.Writer) (finish func()) {
	if !isTerminal(w) {
		return func() {}
	}
	bar := startProgressBar(w, time.Now())
	cfg.Progress = bar.update
	return bar.finish
}

// startProgressBar starts the redraw loop; tests build a progressBar
// without it and call draw themselves.
func startProgressBar(w io.Writer, now time.Time) *progressBar {
	p := &progressBar{w: w, start: now, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(progressRefresh)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case t := <-tick.C:
				if t.Sub(p.start) >= progressDelay {
					p.draw(t)
				}
			}
		}
	}()
	return p
}

// update records a snapshot; the ticker draws it. The bar goes away by
// itself once every file is read, before the analyses start printing.
func (p *progressBar) update(pr stampede.Progress) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	switch pr.Phase {
	case stampede.PhaseReading:
	case stampede.PhaseDone:
		// The result is about to be written: the line goes now.
		p.blankLocked()
		p.idle = true
		return
	default:
		p.phase, p.events, p.phaseStart, p.idle = pr.Phase, pr.Events, p.clock(), false
		return
	}
	// Parallel files report out of order; progress only moves forward.
	if pr.Bytes >= p.last.Bytes {
		p.last.Bytes = pr.Bytes
	}
	p.last.Lines = max(p.last.Lines, pr.Lines)
	p.last.FilesDone = max(p.last.FilesDone, pr.FilesDone)
	p.last.TotalBytes, p.last.Files = pr.TotalBytes, pr.Files
	if p.last.Files > 0 && p.last.FilesDone >= p.last.Files {
		// A command that only reads writes next; one that analyses says
		// so, and the bar comes back for it.
		p.blankLocked()
		p.idle = true
	}
}

func (p *progressBar) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// draw writes the current line over the previous one.
func (p *progressBar) draw(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.idle {
		return
	}
	line := formatProgress(p.last, now.Sub(p.start))
	if p.phase != "" {
		line = formatPhase(p.phase, p.events, now.Sub(p.phaseStart))
	}
	pad := ""
	if n := len(line); n < p.drawn {
		pad = strings.Repeat(" ", p.drawn-n)
	}
	fmt.Fprint(p.w, "\r"+line+pad)
	p.drawn = len(line)
}

// finish clears the bar and stops redrawing; safe to call more than once.
func (p *progressBar) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.clearLocked()
	p.mu.Unlock()
	if p.stop != nil {
		<-p.done
	}
}

func (p *progressBar) clearLocked() {
	if p.closed {
		return
	}
	p.closed = true
	if p.stop != nil {
		close(p.stop)
	}
	p.blankLocked()
}

// blankLocked takes the line off the screen. Spaces rather than an
// erase-line escape: every terminal, dumb ones included, understands a
// carriage return and blanks.
func (p *progressBar) blankLocked() {
	if p.drawn > 0 {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.drawn)+"\r")
		p.drawn = 0
	}
}

// formatPhase renders the line after reading, e.g.
//
//	analysing 24,944 events…  3.2s
func formatPhase(phase string, events int, elapsed time.Duration) string {
	what := phase
	if phase == stampede.PhaseReplaying {
		what = "replaying the what-if on"
	}
	return fmt.Sprintf("%s %s events…  %.1fs", what, humanize.Comma(int64(events)), elapsed.Seconds())
}

// formatProgress renders one status line, e.g.
//
//	[#######.............]  35%  1.2 GB / 3.4 GB  120 MB/s  850k lines/s  ETA 18s
//
// Without a known total (standard input) it shows what was read and the
// rates only.
func formatProgress(pr stampede.Progress, elapsed time.Duration) string {
	var b strings.Builder
	secs := elapsed.Seconds()
	if pr.TotalBytes > 0 {
		frac := min(float64(pr.Bytes)/float64(pr.TotalBytes), 1)
		filled := int(frac * progressBarWidth)
		fmt.Fprintf(&b, "[%s%s] %3.0f%%  %s / %s",
			strings.Repeat("#", filled), strings.Repeat(".", progressBarWidth-filled),
			100*frac, formatBytes(pr.Bytes), formatBytes(pr.TotalBytes))
	} else {
		fmt.Fprintf(&b, "read %s", formatBytes(pr.Bytes))
	}
	if secs > 0 {
		fmt.Fprintf(&b, "  %s/s  %s lines/s", formatBytes(int64(float64(pr.Bytes)/secs)), formatCount(float64(pr.Lines)/secs))
	}
	if pr.TotalBytes > 0 && pr.Bytes > 0 && pr.Bytes < pr.TotalBytes && secs > 0 {
		rate := float64(pr.Bytes) / secs
		eta := time.Duration(float64(pr.TotalBytes-pr.Bytes) / rate * float64(time.Second))
		fmt.Fprintf(&b, "  ETA %s", formatETA(eta))
	}
	if pr.Files > 1 {
		fmt.Fprintf(&b, "  files %d/%d", pr.FilesDone, pr.Files)
	}
	return b.String()
}

// formatBytes uses decimal units, as MB/s conventionally are.
func formatBytes(n int64) string { return humanize.Bytes(uint64(max(n, 0))) }

// formatCount shortens a rate to three significant figures: 850k, 1.20M.
func formatCount(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// formatETA rounds to what a person waiting can use: seconds under a
// minute, then m:ss, then h:mm:ss.
func formatETA(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%d:%02d", s/60, s%60)
	default:
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
}
