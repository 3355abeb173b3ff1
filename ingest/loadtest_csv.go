package ingest

import (
	"bytes"
	"strconv"
)

// csvSplitter splits one CSV record (RFC 4180: fields in double quotes may
// hold commas and "" for a quote) into fields. Unquoted fields alias the
// line; quoted ones with "" are unescaped into a scratch buffer. A quoted
// field spanning lines is not supported: results files from load testers
// write one record per line.
type csvSplitter struct {
	fields  [][]byte
	scratch []byte
}

// split returns the fields of line, valid until the next call, or the
// reason it is not a CSV record.
func (s *csvSplitter) split(line []byte) ([][]byte, string) {
	s.fields = s.fields[:0]
	s.scratch = s.scratch[:0]
	i := 0
	for {
		if i < len(line) && line[i] == '"' {
			start := i
			i++
			mark := len(s.scratch)
			escaped := false
			for {
				k := bytes.IndexByte(line[i:], '"')
				if k < 0 {
					return nil, "unterminated quoted field at byte " + strconv.Itoa(start+1)
				}
				if i+k+1 < len(line) && line[i+k+1] == '"' {
					s.scratch = append(s.scratch, line[i:i+k+1]...)
					i += k + 2
					escaped = true
					continue
				}
				if escaped {
					s.scratch = append(s.scratch, line[i:i+k]...)
					s.fields = append(s.fields, s.scratch[mark:len(s.scratch):len(s.scratch)])
				} else {
					s.fields = append(s.fields, line[start+1:i+k])
				}
				i += k + 1
				break
			}
			if i < len(line) && line[i] != ',' {
				return nil, "text after a closing quote at byte " + strconv.Itoa(i+1)
			}
		} else {
			k := bytes.IndexByte(line[i:], ',')
			if k < 0 {
				k = len(line) - i
			}
			s.fields = append(s.fields, line[i:i+k])
			i += k
		}
		if i >= len(line) {
			return s.fields, ""
		}
		i++ // the comma
	}
}
