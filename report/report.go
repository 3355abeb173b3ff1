// Package report renders an analyze.Result for people and for programs: a
// terminal table, Markdown for an incident document, or versioned JSON. It
// is the only stage that formats numbers or talks to a terminal; every
// string that came from a log is made inert before it is printed.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/stampede/stampede/analyze"
)

// Format names an output format.
type Format string

const (
	FormatTable    Format = "table"
	FormatMarkdown Format = "markdown"
	FormatJSON     Format = "json"
	FormatHTML     Format = "html"
)

// Formats lists the supported formats, for flag help.
var Formats = []Format{FormatTable, FormatMarkdown, FormatJSON, FormatHTML}

// ParseFormat accepts a format name, case-insensitively; "md" is Markdown.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case FormatTable, FormatMarkdown, FormatJSON, FormatHTML:
		return f, nil
	case "md":
		return FormatMarkdown, nil
	}
	return "", fmt.Errorf("unknown report format %q (want table, markdown, json or html)", s)
}

// Render writes r to w in format f, without colour. It does not modify r.
func Render(w io.Writer, r *analyze.Result, f Format) error {
	return RenderWith(w, r, f, Options{})
}

// RenderWith is Render with options.
func RenderWith(w io.Writer, r *analyze.Result, f Format, opts Options) error {
	if r == nil {
		return fmt.Errorf("render %s: no result", f)
	}
	var err error
	switch f {
	case FormatTable:
		err = renderTable(w, layout(r), opts)
	case FormatMarkdown:
		err = renderMarkdown(w, layout(r))
	case FormatJSON:
		err = renderJSON(w, r)
	case FormatHTML:
		err = renderHTML(w, r, layout(r))
	default:
		return fmt.Errorf("unknown report format %q (want table, markdown, json or html)", string(f))
	}
	if err != nil {
		return fmt.Errorf("render %s: %w", f, err)
	}
	return nil
}
