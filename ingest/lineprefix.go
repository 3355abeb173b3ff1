package ingest

import (
	"bytes"
	"slices"

	"github.com/stampede/stampede/timeline"
)

// A log often reaches its reader behind a prefix its collector added:
// `docker compose logs` names the service ("nginx-1  | "), `kubectl logs
// --timestamps` writes the time it received the line, and syslog its
// stamp, host and tag ("Nov 30 02:47:25 web1 nginx: "). Detection looks for
// one of these on the sample's lines, tries the access-log sniffers on the
// lines without it, and the chosen parser then reads each line past it.

// linePrefix is one kind of collector prefix.
type linePrefix struct {
	name string
	// cut returns the length of the prefix at the start of line, or -1.
	cut func(line []byte) int
}

var linePrefixes = []linePrefix{
	{"docker compose", composePrefix},
	{"kubectl --timestamps", kubectlPrefix},
	{"syslog", syslogPrefix},
}

// composePrefix matches "service-1  | ": a name, spaces, '|', a space.
func composePrefix(line []byte) int {
	i := 0
	for i < len(line) && (isVarChar(line[i]) || line[i] == '-' || line[i] == '.') {
		i++
	}
	if i == 0 || i >= len(line) || line[i] != ' ' {
		return -1
	}
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i+1 < len(line) && line[i] == '|' && line[i+1] == ' ' {
		return i + 2
	}
	return -1
}

// kubectlPrefix matches an RFC 3339 time and a space.
func kubectlPrefix(line []byte) int {
	k := bytes.IndexByte(line, ' ')
	if k < 20 || line[4] != '-' || line[10] != 'T' {
		return -1
	}
	if _, ok := parseISOTime(line[:k]); !ok {
		return -1
	}
	return k + 1
}

// syslogPrefix matches an optional <PRI>, an RFC 3164 stamp ("Nov 30
// 02:47:25") or an RFC 3339 one, the host, and a tag ending in ':' ("nginx:",
// "nginx[123]:"), each followed by a space.
func syslogPrefix(line []byte) int {
	i := 0
	if len(line) > 0 && line[0] == '<' {
		k := bytes.IndexByte(line, '>')
		if k < 2 || k > 4 {
			return -1
		}
		if _, ok := digits(line[1:k]); !ok {
			return -1
		}
		i = k + 1
	}
	rest := line[i:]
	switch {
	case len(rest) >= 16 && rest[0] >= 'A' && rest[0] <= 'Z' && rest[3] == ' ' && rest[6] == ' ' && rest[9] == ':' && rest[12] == ':':
		i += 15
		if i < len(line) && line[i] == '.' { // a fraction, as rsyslog may add
			i++
			for i < len(line) && line[i] >= '0' && line[i] <= '9' {
				i++
			}
		}
	default:
		k := kubectlPrefix(rest)
		if k < 0 {
			return -1
		}
		i += k - 1
	}
	if i >= len(line) || line[i] != ' ' {
		return -1
	}
	i++
	// host
	h := bytes.IndexByte(line[i:], ' ')
	if h <= 0 {
		return -1
	}
	i += h + 1
	// tag, up to ": "
	t := bytes.IndexByte(line[i:], ' ')
	if t < 2 || line[i+t-1] != ':' {
		return -1
	}
	return i + t + 1
}

// findPrefix returns the prefix that opens at least 90% of the sample's
// lines, all but one of a short one, or nil.
func findPrefix(sample []sampledLine) *linePrefix {
	for i := range linePrefixes {
		lp := &linePrefixes[i]
		n := 0
		for _, l := range sample {
			if lp.cut(l.text) >= 0 {
				n++
			}
		}
		if n > 0 && (n*10 >= len(sample)*9 || n+1 >= len(sample) && n*2 >= len(sample)) {
			return lp
		}
	}
	return nil
}

// strip returns line without the prefix, or line when it has none.
func (lp *linePrefix) strip(line []byte) []byte {
	if k := lp.cut(line); k >= 0 {
		return line[k:]
	}
	return line
}

func (lp *linePrefix) stripSample(sample []sampledLine) []sampledLine {
	out := make([]sampledLine, len(sample))
	for i, l := range sample {
		out[i] = sampledLine{n: l.n, text: lp.strip(l.text)}
		if isBlank(out[i].text) {
			out[i].text = l.text
		}
	}
	return out
}

// prefixedSniffers are the sniffers tried on lines without their prefix:
// those of access logs and load tests. The SDK log parsers read the
// logging framework's prefix themselves and see the lines whole.
var prefixedSniffers = slices.Concat([]sniffer{sniffEnvoyJSON}, accessFormatSniffers, []sniffer{sniffJSONL, sniffHAProxy, sniffCloudFront, sniffAccessText, sniffALB})

// prefixParser reads each line past its prefix.
type prefixParser struct {
	inner lineParser
	multi multiParser
	pre   *linePrefix
}

// newPrefixParser wraps p; the result can be cloned for parallel reading
// when p can.
func newPrefixParser(p lineParser, pre *linePrefix) lineParser {
	mp, _ := p.(multiParser)
	pp := &prefixParser{inner: p, multi: mp, pre: pre}
	if _, ok := p.(splitter); ok {
		return &prefixSplitter{pp}
	}
	return pp
}

// prefixSplitter is a prefixParser whose lines are independent.
type prefixSplitter struct{ *prefixParser }

func (p *prefixSplitter) clone(strs *interner) lineParser {
	return newPrefixParser(p.inner.(splitter).clone(strs), p.pre)
}

func (p *prefixParser) format() string { return p.inner.format() }

func (p *prefixParser) parse(line []byte, e *timeline.Event) string {
	return p.inner.parse(p.pre.strip(line), e)
}

func (p *prefixParser) parseMulti(line []byte, emit func() *timeline.Event) string {
	if p.multi != nil {
		return p.multi.parseMulti(p.pre.strip(line), emit)
	}
	return p.parse(line, emit())
}

func (p *prefixParser) detectionNotes() []string { return notesOf(p.inner) }

// sniffPrefixed runs the access-log sniffers on the sample without its
// collector prefix, when it has one.
func sniffPrefixed(sample []sampledLine, opt Options, strs *interner) lineParser {
	pre := findPrefix(sample)
	if pre == nil {
		return nil
	}
	stripped := pre.stripSample(sample)
	for _, sn := range prefixedSniffers {
		if p, _ := sn(stripped, opt, strs); p != nil {
			return newPrefixParser(p, pre)
		}
	}
	return nil
}

// openPrefixed opens a format the user named. When the sample's lines carry
// a collector prefix and the format reads as many of them without it, the
// parser reads each line past the prefix. Only formats whose lines are
// independent are tried both ways, since trying parses the sample.
func openPrefixed(fe formatEntry, sample []sampledLine, whole bool, opt Options, strs *interner) (lineParser, error) {
	p, err := fe.open(sample, whole, opt, strs)
	pre := findPrefix(sample)
	if pre == nil || !linesIndependent(fe.info.Name) {
		return p, err
	}
	stripped := pre.stripSample(sample)
	q, qerr := fe.open(stripped, whole, opt, strs)
	if qerr != nil {
		return p, err
	}
	if err != nil || sampleParses(q, stripped) >= sampleParses(p, sample) {
		return newPrefixParser(q, pre), nil
	}
	return p, err
}

// linesIndependent reports whether a format's parser keeps no state from
// line to line (the SDK log parsers join lines into calls).
func linesIndependent(name string) bool {
	switch name {
	case "nginx", "apache", "envoy", "envoy-json", "alb", "jsonl", "haproxy":
		return true
	}
	return newAccessFormatParser(name, newInterner()) != nil
}

// sampleParses counts the sample lines p reads.
func sampleParses(p lineParser, sample []sampledLine) int {
	n := 0
	for _, l := range sample {
		var e timeline.Event
		if p.parse(l.text, &e) == "" {
			n++
		}
	}
	return n
}
