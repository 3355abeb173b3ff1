package ingest

import (
	"bytes"
	"time"
)

// SDK debug output reaches a file through the application's own logging
// setup, so the same SDK message arrives behind many different prefixes.
// The text SDK parsers find their message by a marker inside the line and
// only need the prefix for its time, which logPrefix reads.

// logPrefix reads the timestamp a logging framework put at the start of a
// line. It recognises, optionally inside a leading '[':
//
//	2026-11-30T02:47:25.582Z          ISO 8601, 'T' or ' ', '.' or ',' fraction,
//	2026-08-21 10:15:02,123           zone Z, ±hh:mm, ±hhmm or none (taken as UTC);
//	                                  Python's asctime is this form
//	Nov 30 02:47:25                   syslog (RFC 3164), optional fraction
//	1796006845.582                    epoch seconds, milliseconds, ... (by magnitude)
//
// A syslog stamp carries no year: the year is the one that places the stamp
// closest before the reference moment (a stamp at most a day ahead of it
// still counts as that year, for clocks that disagree), as syslog readers
// conventionally do. The reference is the file's modification time when
// there is a file (Options.YearReference), else now.
type logPrefix struct {
	// now is the reading time in Unix nanoseconds; it only resolves the
	// year of syslog stamps.
	now int64
}

func newLogPrefix() logPrefix { return logPrefix{now: time.Now().UnixNano()} }

// yearAnchored is a parser that reads syslog stamps, whose year is placed
// relative to a reference moment (Options.YearReference).
type yearAnchored interface {
	anchorYear(unixNanos int64)
}

func (p *botocoreParser) anchorYear(t int64)     { p.pre.now = t }
func (p *openaiNodeParser) anchorYear(t int64)   { p.pre.now = t }
func (p *openaiPythonParser) anchorYear(t int64) { p.pre.now = t }
func (p *awsJSParser) anchorYear(t int64)        { p.pre.now = t }

// split returns the line's leading time in Unix nanoseconds UTC and the rest
// of the line after it; ok is false, and rest the whole line, when the line
// does not start with a recognised time.
func (lp logPrefix) split(line []byte) (ts int64, rest []byte, ok bool) {
	b := line
	if len(b) > 0 && b[0] == '[' {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, line, false
	}
	var n int
	switch c := b[0]; {
	case c >= '0' && c <= '9':
		if ts, n, ok = isoPrefix(b); !ok {
			ts, n, ok = epochPrefix(b)
		}
	case c >= 'A' && c <= 'Z':
		ts, n, ok = lp.syslogPrefix(b)
	}
	if !ok {
		return 0, line, false
	}
	return ts, b[n:], true
}

// endsToken reports whether b[n] (if any) ends a timestamp token.
func endsToken(b []byte, n int) bool {
	if n >= len(b) {
		return true
	}
	switch b[n] {
	case ' ', '\t', ']', '|', ':', ';', ',':
		return true
	}
	return false
}

// isoPrefix measures and parses an ISO 8601 date-time at the start of b.
func isoPrefix(b []byte) (int64, int, bool) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || b[13] != ':' || b[16] != ':' {
		return 0, 0, false
	}
	n := 19
	if n < len(b) && (b[n] == '.' || b[n] == ',') {
		n++
		for n < len(b) && b[n] >= '0' && b[n] <= '9' {
			n++
		}
	}
	if n < len(b) {
		switch b[n] {
		case 'Z', 'z':
			n++
		case '+', '-':
			// An offset is glued to the time; " - " after it is a separator.
			m := n + 1
			for m < len(b) && (b[m] >= '0' && b[m] <= '9' || b[m] == ':') && m-n <= 5 {
				m++
			}
			if m-n >= 3 {
				n = m
			}
		}
	}
	if !endsToken(b, n) {
		return 0, 0, false
	}
	ts, ok := parseISOTime(b[:n])
	return ts, n, ok
}

// epochPrefix parses a leading epoch number of at least ten integer digits
// (2001 onwards in seconds), so that a leading count or status is never
// taken for a time.
func epochPrefix(b []byte) (int64, int, bool) {
	n := 0
	for n < len(b) && (b[n] >= '0' && b[n] <= '9' || b[n] == '.') {
		n++
	}
	if !endsToken(b, n) {
		return 0, 0, false
	}
	_, _, intDigits, ok := parseDecimal(b[:n])
	if !ok || intDigits < 10 {
		return 0, 0, false
	}
	ts, ok := parseEpoch(b[:n])
	return ts, n, ok
}

// syslogPrefix parses "Nov 30 02:47:25" or "Nov  3 02:47:25[.123]".
func (lp logPrefix) syslogPrefix(b []byte) (int64, int, bool) {
	if len(b) < 15 || b[3] != ' ' || b[6] != ' ' || b[9] != ':' || b[12] != ':' {
		return 0, 0, false
	}
	mo := month3(b[0:3])
	day := b[4:6]
	if day[0] == ' ' {
		day = day[1:]
	}
	d, ok1 := digits(day)
	h, ok2 := digits(b[7:9])
	mi, ok3 := digits(b[10:12])
	s, ok4 := digits(b[13:15])
	if mo == 0 || !(ok1 && ok2 && ok3 && ok4) {
		return 0, 0, false
	}
	n := 15
	var frac int64
	if n < len(b) && b[n] == '.' {
		n++
		scale := int64(1e8)
		for ; n < len(b) && b[n] >= '0' && b[n] <= '9'; n++ {
			frac += int64(b[n]-'0') * scale
			scale /= 10
		}
	}
	if !endsToken(b, n) {
		return 0, 0, false
	}
	year := int64(time.Unix(0, lp.now).UTC().Year())
	ts, ok := civilNanos(year, mo, d, h, mi, s)
	if !ok {
		return 0, 0, false
	}
	if ts > lp.now+int64(24*time.Hour) {
		// December's log read in January.
		if ts, ok = civilNanos(year-1, mo, d, h, mi, s); !ok {
			return 0, 0, false
		}
	}
	return ts + frac, n, true
}

// bracketBefore returns the contents of the last "[...]" group that ends
// before b[end], looking back over spaces only, or nil. Logging setups put
// the thread or request context there ("DEBUG botocore.endpoint [ui-0001]
// Sending ...").
func bracketBefore(b []byte, end int) []byte {
	i := end - 1
	for i >= 0 && b[i] == ' ' {
		i--
	}
	if i < 0 || b[i] != ']' {
		return nil
	}
	j := bytes.LastIndexByte(b[:i], '[')
	if j < 0 {
		return nil
	}
	return b[j+1 : i]
}

// cutAfter returns what follows the first occurrence of marker in b.
func cutAfter(b []byte, marker string) ([]byte, bool) {
	k := bytes.Index(b, []byte(marker))
	if k < 0 {
		return nil, false
	}
	return b[k+len(marker):], true
}

// leadingDecimal returns the unsigned decimal number ("0.383596", "155")
// at the start of b and the rest of b.
func leadingDecimal(b []byte) (num, rest []byte) {
	n := 0
	for n < len(b) && (b[n] >= '0' && b[n] <= '9' || b[n] == '.') {
		n++
	}
	return b[:n], b[n:]
}
