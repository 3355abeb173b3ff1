package ingest

import (
	"bytes"
	"strconv"
)

// clfToken is one field of a Common Log Format style line: a bare word, a
// [bracketed] time or a "quoted" string, with the delimiters removed.
type clfToken struct {
	b     []byte
	delim byte // 0, '[' or '"'
}

// clfSplitter splits CLF-style lines (Traefik's common format, API
// Gateway's CLF template) into tokens. Inside quotes a backslash escapes the
// next byte, as Traefik quotes with Go's %q; the escape is kept, since the
// quoted values stampede reads (request line, user agent) rarely hold one.
type clfSplitter struct {
	toks []clfToken
}

func (s *clfSplitter) split(line []byte) ([]clfToken, string) {
	s.toks = s.toks[:0]
	i := 0
	for {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if i >= len(line) {
			return s.toks, ""
		}
		switch c := line[i]; c {
		case '"':
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(line) {
				return nil, "unterminated quoted field at byte " + strconv.Itoa(i+1)
			}
			s.toks = append(s.toks, clfToken{b: line[i+1 : j], delim: '"'})
			i = j + 1
		case '[':
			k := bytes.IndexByte(line[i:], ']')
			if k < 0 {
				return nil, "unterminated [ at byte " + strconv.Itoa(i+1)
			}
			s.toks = append(s.toks, clfToken{b: line[i+1 : i+k], delim: '['})
			i += k + 1
		default:
			k := bytes.IndexByte(line[i:], ' ')
			if k < 0 {
				k = len(line) - i
			}
			s.toks = append(s.toks, clfToken{b: line[i : i+k]})
			i += k
		}
		if i < len(line) && line[i] != ' ' {
			return nil, "no space after a field at byte " + strconv.Itoa(i+1)
		}
	}
}

// clfShape checks tokens against a pattern: ' ' for a bare word, '[' and
// '"' for delimited ones. It returns "" or what differs.
func clfShape(toks []clfToken, pattern string) string {
	if len(toks) != len(pattern) {
		return strconv.Itoa(len(toks)) + " fields: want " + strconv.Itoa(len(pattern))
	}
	for i, t := range toks {
		want := pattern[i]
		if want == ' ' {
			want = 0
		}
		if t.delim != want {
			return "field " + strconv.Itoa(i+1) + " " + describeDelim(t.delim) + ": want " + describeDelim(want)
		}
	}
	return ""
}

func describeDelim(d byte) string {
	switch d {
	case '"':
		return "quoted"
	case '[':
		return "in brackets"
	}
	return "bare"
}

// clfDash is nil for the "-" that CLF writes for a missing value.
func clfDash(b []byte) []byte {
	if len(b) == 0 || (len(b) == 1 && b[0] == '-') {
		return nil
	}
	return b
}
