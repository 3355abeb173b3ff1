package ingest

import "time"

// Time parsing on bytes: these run once per line, so they avoid time.Parse
// and its allocations.

// daysFromCivil returns days since 1970-01-01 of a proleptic Gregorian date
// (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func digits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

var monthIndex = map[string]int64{
	"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
	"Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12,
}

func month3(b []byte) int64 {
	return monthIndex[string(b)]
}

// civilNanos converts a UTC calendar time to Unix nanoseconds, validating
// ranges.
func civilNanos(y, mo, d, h, mi, s int64) (int64, bool) {
	if y < 1 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 {
		return 0, false
	}
	days := daysFromCivil(y, mo, d)
	// Unix nanoseconds in an int64 reach from 1677-09-22 to 2262-04-11;
	// beyond (a year 9999 in a damaged line) they would wrap around. A day
	// of margin leaves room for the zone offset.
	if days < -106750 || days > 106749 {
		return 0, false
	}
	return ((days*24+h)*60+mi)*60*1e9 + s*1e9, true
}

// parseTimeLocal parses nginx $time_local, "30/Nov/2026:02:47:30 +0000",
// into Unix nanoseconds UTC.
func parseTimeLocal(b []byte) (int64, bool) {
	if len(b) != 26 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' || b[20] != ' ' {
		return 0, false
	}
	d, ok1 := digits(b[0:2])
	mo := month3(b[3:6])
	y, ok2 := digits(b[7:11])
	h, ok3 := digits(b[12:14])
	mi, ok4 := digits(b[15:17])
	s, ok5 := digits(b[18:20])
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || mo == 0 {
		return 0, false
	}
	ns, ok := civilNanos(y, mo, d, h, mi, s)
	if !ok {
		return 0, false
	}
	off, ok := parseOffset(b[21:])
	if !ok {
		return 0, false
	}
	return ns - off, true
}

// parseOffset parses "+hhmm", "+hh:mm" or "+hh" into nanoseconds east of UTC.
func parseOffset(b []byte) (int64, bool) {
	if len(b) < 3 || (b[0] != '+' && b[0] != '-') {
		return 0, false
	}
	h, ok := digits(b[1:3])
	if !ok {
		return 0, false
	}
	var m int64
	switch rest := b[3:]; len(rest) {
	case 0:
	case 2:
		if m, ok = digits(rest); !ok {
			return 0, false
		}
	case 3:
		if rest[0] != ':' {
			return 0, false
		}
		if m, ok = digits(rest[1:]); !ok {
			return 0, false
		}
	default:
		return 0, false
	}
	if h > 23 || m > 59 {
		return 0, false
	}
	off := (h*60 + m) * 60 * 1e9
	if b[0] == '-' {
		off = -off
	}
	return off, true
}

// parseISOTime parses RFC 3339 / ISO 8601 date-times: any fraction, 'T' or
// ' ' between date and time, zone Z, ±hh:mm, ±hhmm or none (taken as UTC).
func parseISOTime(b []byte) (int64, bool) {
	if len(b) < 19 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != ' ' && b[10] != 't') || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	y, ok1 := digits(b[0:4])
	mo, ok2 := digits(b[5:7])
	d, ok3 := digits(b[8:10])
	h, ok4 := digits(b[11:13])
	mi, ok5 := digits(b[14:16])
	s, ok6 := digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, false
	}
	ns, ok := civilNanos(y, mo, d, h, mi, s)
	if !ok {
		return 0, false
	}
	rest := b[19:]
	if len(rest) > 0 && (rest[0] == '.' || rest[0] == ',') {
		i := 1
		scale := int64(1e8)
		for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
			ns += int64(rest[i]-'0') * scale
			scale /= 10
		}
		if i == 1 {
			return 0, false
		}
		rest = rest[i:]
	}
	switch {
	case len(rest) == 0:
		return ns, true
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
		return ns, true
	}
	off, ok := parseOffset(rest)
	if !ok {
		return 0, false
	}
	return ns - off, true
}

// parseDecimal parses an unsigned decimal "123", "123.456" into its integer
// part and its fraction scaled to nanoseconds of a unit (fraction * 1e9).
// intDigits is the number of digits before the point.
func parseDecimal(b []byte) (whole int64, frac int64, intDigits int, ok bool) {
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if whole > (1<<63-1-9)/10 {
			return 0, 0, 0, false
		}
		whole = whole*10 + int64(b[i]-'0')
	}
	intDigits = i
	if i < len(b) {
		if b[i] != '.' {
			return 0, 0, 0, false
		}
		i++
		scale := int64(1e8)
		start := i
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			frac += int64(b[i]-'0') * scale
			scale /= 10
		}
		if i != len(b) || (i == start && intDigits == 0) {
			return 0, 0, 0, false
		}
	}
	if intDigits == 0 && len(b) == 0 {
		return 0, 0, 0, false
	}
	return whole, frac, intDigits, true
}

// parseSeconds parses decimal seconds ("0.123", "1796006850.123") into
// nanoseconds.
func parseSeconds(b []byte) (int64, bool) {
	w, f, _, ok := parseDecimal(b)
	if !ok || w > 9e9 {
		return 0, false
	}
	return w*1e9 + f, true
}

// parseEpoch parses an epoch number whose unit is inferred from its
// magnitude: seconds until the year 5138, then milliseconds, microseconds,
// nanoseconds.
func parseEpoch(b []byte) (int64, bool) {
	w, f, _, ok := parseDecimal(b)
	if !ok {
		return 0, false
	}
	// Past 2262 Unix nanoseconds overflow int64: such times are not real.
	const maxSeconds = int64((1<<63 - 1) / 1_000_000_000)
	switch {
	case w < 1e11:
		return w*1e9 + f, w < maxSeconds
	case w < 1e14:
		return w*1e6 + f/1e3, w < maxSeconds*1e3
	case w < 1e17:
		return w*1e3 + f/1e6, w < maxSeconds*1e6
	default:
		return w, true
	}
}

const httpDateLayout = "Mon, 02 Jan 2006 15:04:05 GMT"

// parseHTTPDate parses an IMF-fixdate (Retry-After: <date>). Rare, so
// time.Parse is fine here.
func parseHTTPDate(b []byte) (int64, bool) {
	t, err := time.Parse(httpDateLayout, string(b))
	if err != nil || t.Year() < 1678 || t.Year() > 2261 {
		return 0, false
	}
	return t.UnixNano(), true
}
