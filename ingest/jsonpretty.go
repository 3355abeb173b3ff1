package ingest

import (
	"bytes"
	"fmt"

	"github.com/stampede/stampede/timeline"
)

// JSON access log records copied out of a log viewer (the CloudWatch
// console, Kibana's JSON tab) are pretty-printed, one key per line, often
// each under the time the viewer shows for it:
//
//	2023-10-27T14:40:57.744+01:00
//
//	{
//	    "requestId": "a4188e34-...",
//	    "status": "429",
//	    ...
//	}
//
// prettyJSONParser reads such a file as a document: every top-level
// object is one record for the line format it wraps, starting on the line
// of its '{'. The lines of a record are parsed or skipped with it; a
// viewer's time on a line of its own is read as part of the record below
// it (which holds its own time); blank lines are skipped as blank, and
// any other text outside a record is skipped with its reason.
type prettyJSONParser struct {
	inner lineParser
}

func newPrettyJSONParser(inner lineParser) *prettyJSONParser {
	return &prettyJSONParser{inner: inner}
}

func (p *prettyJSONParser) format() string { return p.inner.format() + ":pretty" }

// parse reads one record given whole; parseDocument is the way in.
func (p *prettyJSONParser) parse(line []byte, e *timeline.Event) string {
	return p.inner.parse(line, e)
}

func (p *prettyJSONParser) parseDocument(doc []byte, s *timeline.Source, emit func(line int64) *timeline.Event) error {
	doc = bytes.TrimPrefix(doc, utf8BOM)
	line := int64(1)
	for len(doc) > 0 {
		nl := bytes.IndexByte(doc, '\n')
		text := doc
		if nl >= 0 {
			text = doc[:nl]
		}
		trimmed := bytes.TrimSpace(text)
		switch {
		case len(trimmed) == 0:
			s.Lines++
			s.AddSkip(line, "blank line")
		case trimmed[0] == '{':
			start := len(text) - len(bytes.TrimLeft(text, " \t"))
			end, lines := objectEnd(doc, start)
			if end < 0 {
				// Cut short: the rest of the input is one unfinished record.
				n := int64(bytes.Count(doc, []byte{'\n'}))
				if doc[len(doc)-1] != '\n' {
					n++
				}
				for i := int64(0); i < n; i++ {
					s.Lines++
					s.AddSkip(line+i, "JSON record not closed before the end of the input")
				}
				return nil
			}
			// The record's last line is consumed with it; text after its
			// '}' on that line makes it unreadable.
			rest := doc[end:]
			tail := rest
			if k := bytes.IndexByte(rest, '\n'); k >= 0 {
				tail = rest[:k]
			}
			var ev timeline.Event
			reason := ""
			if len(bytes.TrimSpace(tail)) > 0 {
				reason = fmt.Sprintf("unexpected text after the JSON record that starts on line %d", line)
			} else if reason = p.inner.parse(doc[start:end], &ev); reason == "" {
				ev.Line = line
				*emit(line) = ev
			}
			for i := int64(0); i < lines; i++ {
				s.Lines++
				if reason == "" {
					s.Parsed++
				} else {
					s.AddSkip(line+i, reason)
				}
			}
			line += lines
			if k := bytes.IndexByte(rest, '\n'); k >= 0 {
				doc = rest[k+1:]
			} else {
				doc = nil
			}
			continue
		case isViewerTime(trimmed):
			s.Lines++
			s.Parsed++
		default:
			s.Lines++
			s.AddSkip(line, "text outside a JSON record")
		}
		line++
		if nl < 0 {
			break
		}
		doc = doc[nl+1:]
	}
	return nil
}

// objectEnd returns the offset just past the object that opens at b[i] ==
// '{' and how many lines it spans, or -1 when it is not closed. Strings
// are skipped with their escapes, so braces inside them do not count.
func objectEnd(b []byte, i int) (end int, lines int64) {
	depth, lines := 0, int64(1)
	for ; i < len(b); i++ {
		switch b[i] {
		case '\n':
			lines++
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				switch b[i] {
				case '\\':
					// An escape takes the next byte, but a newline there
					// (invalid JSON) still ends a line of the input.
					if i++; i < len(b) && b[i] == '\n' {
						lines++
					}
				case '\n':
					lines++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, lines
			}
		}
	}
	return -1, lines
}

// isViewerTime reports whether a line outside a record holds only a time,
// as log viewers print above each record.
func isViewerTime(b []byte) bool {
	_, ok := parseISOTime(b)
	return ok
}

// prettyInnerSniffers are the JSON access-log formats whose records are
// looked for pretty-printed.
var prettyInnerSniffers = []sniffer{sniffEnvoyJSON, sniffCaddy, sniffTraefikJSON, sniffAPIGatewayJSON}

// sniffPrettyJSON claims a sample whose first record is a pretty-printed
// JSON object (a line holding only '{', its keys on the lines below) that
// one of the JSON access-log formats reads.
func sniffPrettyJSON(sample []sampledLine, opt Options, strs *interner) (lineParser, string) {
	const name = "pretty-printed JSON records"
	open := -1
	for i, l := range sample {
		if t := bytes.TrimSpace(l.text); len(t) == 1 && t[0] == '{' {
			open = i
			break
		}
		if !isViewerTime(bytes.TrimSpace(l.text)) {
			return nil, name + " (no line holding only '{' before line " + fmt.Sprint(l.n) + ")"
		}
	}
	if open < 0 {
		return nil, name + " (no line holding only '{')"
	}
	var rec []byte
	for _, l := range sample[open:] {
		rec = append(append(rec, l.text...), '\n')
	}
	end, _ := objectEnd(rec, bytes.IndexByte(rec, '{'))
	if end < 0 {
		return nil, name + fmt.Sprintf(" (the record from line %d does not close within the first %d lines)", sample[open].n, sampleLines)
	}
	one := []sampledLine{{n: sample[open].n, text: rec[:end]}}
	for _, sn := range prettyInnerSniffers {
		if p, _ := sn(one, opt, newInterner()); p != nil {
			return newPrettyJSONParser(reopen(p, strs)), ""
		}
	}
	return nil, name + fmt.Sprintf(" (the record from line %d is no JSON access-log format's)", sample[open].n)
}

// reopen returns a fresh parser of p's format interning into strs.
func reopen(p lineParser, strs *interner) lineParser {
	if q := newAccessFormatParser(p.format(), strs); q != nil {
		return q
	}
	return newEnvoyJSONParser(strs)
}
