package report

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"
)

// Options adjust how a report is rendered.
type Options struct {
	// Colour adds ANSI emphasis to the table format; see UseColour.
	Colour bool
	// Width is the terminal's width in columns for the table format:
	// prose wraps at word boundaries within it, and tables narrow or stack
	// to fit. Zero means DefaultWidth; see TerminalWidth.
	Width int
	// Verbose adds the evidence to the table format: the reasoning behind
	// each layer's cap verdict, distributions, the autocorrelation test,
	// how records were joined, the skipped lines. Without it the terminal
	// shows findings and compact tables. Markdown and HTML always hold
	// everything.
	Verbose bool
}

// DefaultWidth is the table format's width when the output is not a
// terminal (a file, a pipe, a CI log).
const DefaultWidth = 100

// MinWidth is the narrowest layout the table format attempts.
const MinWidth = 40

// TerminalWidth is the width to render for on w: the terminal's columns
// when w is one, else DefaultWidth.
func TerminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return DefaultWidth
}

// UseColour reports whether output to w should be coloured: only when w is
// a terminal, TERM is not "dumb", and NO_COLOR (no-color.org) is unset or
// empty. Pipes, files and CI logs get plain text.
func UseColour(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// ANSI emphasis, applied only to text stampede wrote itself (headings,
// verdicts), never around log-derived text, which plain has already
// stripped of escapes.
const (
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
)

// Emphasis wraps s in bold when colour is on.
func emphasis(s string, colour bool) string {
	if !colour {
		return s
	}
	return ansiBold + s + ansiReset
}

// Verdict colours a gate verdict word: FAIL red, pass green.
func Verdict(s string, failed, colour bool) string {
	switch {
	case !colour:
		return s
	case failed:
		return ansiRed + s + ansiReset
	}
	return ansiGreen + s + ansiReset
}

// Warning colours a gate's warn verdict yellow: neither a pass nor a
// failure.
func Warning(s string, colour bool) string {
	if !colour {
		return s
	}
	return ansiYellow + s + ansiReset
}
