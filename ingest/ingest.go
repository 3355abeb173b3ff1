package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/stampede/stampede/timeline"
)

// Options say how to read a file. The zero value detects everything.
type Options struct {
	// Format is "", "auto", "nginx" or "jsonl".
	Format string
	// LogFormat is, for nginx, a named format ("combined", "main", "retry",
	// "stampede") or a verbatim log_format definition; "" picks among the
	// named formats by trying them on the first lines.
	LogFormat string
	// Fields maps timeline field names to JSON keys for JSONL input, e.g.
	// {"start": "start_time"}; see ParseFieldMapping.
	Fields map[string]string
}

const (
	// maxLineBytes bounds one line; longer lines are skipped and counted.
	maxLineBytes = 4 << 20
	// readBufferBytes is large so that lines are normally sliced straight
	// out of the buffer, and so that the detection sample fits in it.
	readBufferBytes = 1 << 20
	// sampleLines is how many non-blank lines format detection looks at.
	sampleLines = 50
)

// ReadFile reads one file, decompressing it when it starts with the gzip
// magic bytes, into a Timeline with exactly one Source.
func ReadFile(path string, opt Options) (*timeline.Timeline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sizeHint := int64(0)
	if st, err := f.Stat(); err == nil {
		sizeHint = st.Size()
	}
	return read(f, path, opt, sizeHint)
}

// Read is ReadFile over any reader; name is used as Source.Path and in
// messages.
func Read(r io.Reader, name string, opt Options) (*timeline.Timeline, error) {
	var sizeHint int64
	if l, ok := r.(interface{ Len() int }); ok {
		sizeHint = int64(l.Len())
	}
	return read(r, name, opt, sizeHint)
}

// lineParser is one input format's per-line decoder. parse fills e and
// returns "" or the reason the line was skipped; line is only valid during
// the call.
type lineParser interface {
	parse(line []byte, e *timeline.Event) string
	format() string
}

func read(r io.Reader, name string, opt Options, sizeHint int64) (*timeline.Timeline, error) {
	raw := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = raw
	gzipped := false
	if magic, _ := raw.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		defer zr.Close()
		src, gzipped = zr, true
		// The compression ratio of logs varies too much to size from.
		sizeHint = 0
	}
	br := bufio.NewReaderSize(src, readBufferBytes)
	prefix, err := br.Peek(readBufferBytes)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull && !gzipped {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	whole := err != nil && err != bufio.ErrBufferFull
	sample := sampleOf(prefix, whole)

	strs := newInterner()
	p, err := chooseParser(sample, whole, opt, strs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}

	t := &timeline.Timeline{Sources: []timeline.Source{{Path: name}}}
	if p != nil {
		t.Sources[0].Format = p.format()
	}
	if sizeHint > 0 {
		// ~150 bytes a line in typical access logs; a guess, not a limit.
		t.Events = make([]timeline.Event, 0, min(sizeHint/150+16, 1<<22))
	}
	s := &t.Sources[0]
	lr := lineReader{r: br}
	for {
		line, tooLong, err := lr.next()
		if err != nil {
			if err == io.EOF {
				break
			}
			if gzipped {
				// A gzip file cut short (copied while being written) or
				// damaged: keep what was read and account for the loss as
				// one line.
				s.Lines++
				s.AddSkip(s.Lines, "compressed data ends early or is damaged: "+err.Error())
				break
			}
			return nil, fmt.Errorf("%s: after line %d: %w", name, s.Lines, err)
		}
		s.Lines++
		if tooLong {
			s.AddSkip(s.Lines, "line longer than 4 MiB")
			continue
		}
		if s.Lines == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if isBlank(line) {
			s.AddSkip(s.Lines, "blank line")
			continue
		}
		if p == nil {
			// Unreachable: a nil parser means the whole input was sampled
			// and was blank. Counting keeps the books right regardless.
			s.AddSkip(s.Lines, "format unknown")
			continue
		}
		t.Events = append(t.Events, timeline.Event{Line: s.Lines})
		e := &t.Events[len(t.Events)-1]
		if reason := p.parse(line, e); reason != "" {
			t.Events = t.Events[:len(t.Events)-1]
			s.AddSkip(s.Lines, reason)
			continue
		}
		s.Parsed++
	}
	s.Events = int64(len(t.Events))
	return t, nil
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// sampledLine is one non-blank line of the detection sample.
type sampledLine struct {
	n    int64
	text []byte
}

// sampleOf returns the first non-blank complete lines of prefix. A final
// line without '\n' counts only when prefix is the whole input.
func sampleOf(prefix []byte, whole bool) []sampledLine {
	var out []sampledLine
	var n int64
	for len(prefix) > 0 && len(out) < sampleLines {
		k := bytes.IndexByte(prefix, '\n')
		var line []byte
		if k < 0 {
			if !whole {
				break
			}
			line, prefix = prefix, nil
		} else {
			line, prefix = prefix[:k], prefix[k+1:]
		}
		n++
		if n == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if !isBlank(line) {
			out = append(out, sampledLine{n: n, text: line})
		}
	}
	return out
}

// chooseParser applies Options, or else the chain of sniffers, to the
// sample. It returns a nil parser only for input with no non-blank line.
func chooseParser(sample []sampledLine, whole bool, opt Options, strs *interner) (lineParser, error) {
	format := strings.ToLower(strings.TrimSpace(opt.Format))
	if (format == "" || format == "auto") && opt.LogFormat != "" {
		format = "nginx"
	}
	switch format {
	case "nginx":
		if opt.LogFormat == "" {
			if len(sample) == 0 {
				return nil, noSample(whole)
			}
			return pickNginxFormat(sample, strs)
		}
		f, err := compileNamedOrCustom(opt.LogFormat)
		if err != nil {
			return nil, err
		}
		return newNginxParser(f, strs), nil
	case "jsonl", "json", "ndjson":
		return newJSONLParser(opt.Fields, strs)
	case "", "auto":
	default:
		return nil, fmt.Errorf("unknown format %q: want auto, nginx or jsonl", opt.Format)
	}
	if len(sample) == 0 {
		return nil, noSample(whole)
	}
	var tried []string
	for _, sn := range sniffers {
		p, why := sn(sample, opt, strs)
		if p != nil {
			return p, nil
		}
		tried = append(tried, why)
	}
	return nil, fmt.Errorf("cannot detect the format; tried %s", strings.Join(tried, "; "))
}

// noSample is the outcome of detection without a line to look at: fine for
// input that is empty or blank, an error when the first line alone
// overflows the read buffer.
func noSample(whole bool) error {
	if whole {
		return nil
	}
	return fmt.Errorf("cannot detect the format: no complete line in the first %d MiB", readBufferBytes>>20)
}

// A sniffer claims the sample (returns a parser) or says why it is not
// its format. Sniffers run in order; the first claim wins.
type sniffer func(sample []sampledLine, opt Options, strs *interner) (lineParser, string)

var sniffers = []sniffer{sniffJSONL, sniffNginx}

func sniffJSONL(sample []sampledLine, opt Options, strs *interner) (lineParser, string) {
	// Half, not all: a log cut mid-line by rotation starts with a fragment.
	objects := 0
	for _, l := range sample {
		if t := bytes.TrimLeft(l.text, " \t"); t[0] == '{' {
			objects++
		}
	}
	if objects*2 < len(sample) {
		return nil, fmt.Sprintf("jsonl (%d of %d lines start with '{')", objects, len(sample))
	}
	p, err := newJSONLParser(opt.Fields, strs)
	if err != nil {
		return nil, "jsonl (" + err.Error() + ")"
	}
	return p, ""
}

func sniffNginx(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	p, err := pickNginxFormat(sample, strs)
	if err != nil {
		return nil, err.Error()
	}
	return p, ""
}

// nginxCandidates are the named formats in detection order: most variables
// first, so that a format that is a prefix of another never wins by default.
var nginxCandidates = []string{"stampede", "retry", "main", "combined"}

// pickNginxFormat returns the named format with the most variables that
// parses at least 90% of the sample.
func pickNginxFormat(sample []sampledLine, strs *interner) (lineParser, error) {
	var tried []string
	for _, name := range nginxCandidates {
		f, err := compileLogFormat(name, namedFormats[name])
		if err != nil {
			panic("named nginx format " + name + ": " + err.Error())
		}
		p := newNginxParser(f, strs)
		ok, firstBad := 0, ""
		var e timeline.Event
		for _, l := range sample {
			e = timeline.Event{}
			if reason := p.parse(l.text, &e); reason == "" {
				ok++
			} else if firstBad == "" {
				firstBad = fmt.Sprintf("line %d: %s", l.n, reason)
			}
		}
		if ok*10 >= len(sample)*9 {
			return newNginxParser(f, strs), nil
		}
		tried = append(tried, fmt.Sprintf("nginx:%s (%d of %d lines parse; %s)", name, ok, len(sample), firstBad))
	}
	return nil, errors.New(strings.Join(tried, "; "))
}

// lineReader yields lines without their '\n', bounded to maxLineBytes.
type lineReader struct {
	r    *bufio.Reader
	long []byte
	err  error
}

// next returns the next line, which is valid until the following call.
// tooLong reports a line over the bound, whose bytes were discarded. A last
// line without '\n' is returned as a line; err is io.EOF after it.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	if lr.err != nil {
		return nil, false, lr.err
	}
	b, err := lr.r.ReadSlice('\n')
	switch {
	case err == nil:
		return b[:len(b)-1], false, nil
	case err != bufio.ErrBufferFull:
		lr.err = err
		if len(b) > 0 {
			return b, false, nil
		}
		return nil, false, err
	}
	// The line is longer than the buffer: gather it, up to the bound.
	lr.long = append(lr.long[:0], b...)
	for {
		b, err = lr.r.ReadSlice('\n')
		if !tooLong {
			if len(lr.long)+len(b) > maxLineBytes+1 {
				tooLong = true
				lr.long = lr.long[:0]
			} else {
				lr.long = append(lr.long, b...)
			}
		}
		if err != bufio.ErrBufferFull {
			break
		}
	}
	if err != nil {
		lr.err = err
		if err != io.EOF && !tooLong && len(lr.long) == 0 {
			return nil, false, err
		}
	}
	if tooLong {
		return nil, true, nil
	}
	return bytes.TrimSuffix(lr.long, []byte{'\n'}), false, nil
}

// interner shares the backing string of values that repeat across lines
// (routes, user agents, task and call ids). Looking up m[string(b)] does not
// allocate, so a repeated value costs no allocation at all.
type interner struct {
	m map[string]string
}

// maxInterned bounds the table: past it, new values are simply copied.
const maxInterned = 1 << 20

func newInterner() *interner { return &interner{m: make(map[string]string, 1024)} }

func (in *interner) bytes(b []byte) string {
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}

// outcomeCache memoises timeline.Classify for lines that carry an error
// code: Classify lower-cases the code, which allocates, and incidents
// repeat the same few codes on every line.
type outcomeCache map[outcomeKey]timeline.Outcome

type outcomeKey struct {
	status int32
	code   string
}

func (c outcomeCache) classify(status int32, code string) timeline.Outcome {
	if code == "" {
		return timeline.Classify(status, code)
	}
	k := outcomeKey{status, code}
	if o, ok := c[k]; ok {
		return o
	}
	o := timeline.Classify(status, code)
	if len(c) < 4096 {
		c[k] = o
	}
	return o
}
