package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/stampede/stampede/spill"
	"github.com/stampede/stampede/timeline"
)

// Options say how to read a file. The zero value detects everything.
type Options struct {
	// Format is "" or "auto" (detect), or a name from Formats, optionally
	// with a variant as Source.Format writes it: "nginx:combined",
	// "apache:common", "envoy:default".
	Format string
	// LogFormat is, for nginx, apache and envoy, a named format or a
	// verbatim definition in that server's language: an nginx log_format
	// ("combined", "main", "retry", "stampede", or '$remote_addr ...'), an
	// Apache LogFormat ("common", "combined", or '%h %l %u %t ...'), an
	// Envoy format string ("default", or '[%START_TIME%] ...'), a HAProxy
	// log-format ("httplog", "clf", or '%ci:%cp [%tr] ...'), or a list of
	// CloudFront log fields ("realtime", or 'timestamp c-ip sc-status ...').
	// Without Format, the language is recognised from the text ($ nginx,
	// %OPERATOR% Envoy, %ci %tr %ST HAProxy, x-edge- CloudFront, %x
	// Apache); "" picks among the named formats by trying them on the
	// first lines.
	LogFormat string
	// Fields maps timeline field names to JSON keys for JSONL input, e.g.
	// {"start": "start_time"}; see ParseFieldMapping.
	Fields map[string]string
	// Layer is, for JSONL input, the layer of records that do not name
	// theirs: "attempt" or "call". "" reads them as calls, unless the
	// file looks like an access log in JSON (a status, the request and a
	// time, no call fields), whose records are attempts.
	Layer string
	// HAProxyCaptures names, for HAProxy logs, the captured headers in
	// {…|…} in the order of the config's capture lines, e.g.
	// {"x-task-id", "x-stainless-retry-count"}; "res:NAME" names a
	// captured response header. Unnamed captures are not read.
	HAProxyCaptures []string
	// Progress, when set, is told how many more bytes of the input (as
	// stored: compressed bytes for compressed files) and lines have been
	// read since its last call. It is called about once per
	// progressStepBytes and once more when the read ends, so the deltas add
	// up to the whole input; keep it quick. A large file read in pieces at
	// once (ReadFileParts) calls it from each piece's goroutine, so it must
	// then be safe for concurrent use.
	Progress func(bytes, lines int64)
	// YearReference places year-less (syslog) stamps: each gets the year
	// that puts it closest before this moment. ReadFileParts sets it to the
	// file's modification time, when the log was last written, so that a
	// file reads the same whenever it is analysed; zero means now.
	YearReference time.Time
	// Labels, when set, bounds the distinct routes, User-Agents and error
	// codes kept as logged, across every file of one ingest; the caller
	// settles the events with it once all are read (timeline.Labels).
	Labels *timeline.Labels
}

const (
	// maxLineBytes bounds one line; longer lines are skipped and counted.
	maxLineBytes = 4 << 20
	// readBufferBytes is large so that lines are normally sliced straight
	// out of the buffer, and so that the detection sample fits in it.
	readBufferBytes = 1 << 20
	// sampleLines is how many non-blank lines format detection looks at.
	sampleLines = 50
	// progressStepBytes is how much input passes between Progress calls:
	// rare enough to cost nothing against parsing a MiB, often enough for
	// a bar refreshed ten times a second at hundreds of MB/s.
	progressStepBytes = 1 << 20
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
		if opt.YearReference.IsZero() {
			opt.YearReference = st.ModTime()
		}
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

// multiParser is a lineParser some of whose lines hold several events, as
// when a proxy retried a request upstream and logged the attempts on one
// line. read prefers parseMulti when a parser has it; parse stays the
// one-event view that detection and single-line tests use.
//
// parseMulti calls emit once per event and fills the event it returns
// (Line is already set) before calling emit again: a later emit may move
// earlier events. On a non-empty reason every event of the line is
// dropped and the line is counted as skipped.
type multiParser interface {
	lineParser
	parseMulti(line []byte, emit func() *timeline.Event) string
}

// Compressed input is recognised by its magic bytes, whatever the file is
// called: rotated logs are often compressed under their old names.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

func read(r io.Reader, name string, opt Options, sizeHint int64) (*timeline.Timeline, error) {
	src, parts, err := readParts(r, name, opt, sizeHint, 1)
	if err != nil {
		return nil, err
	}
	return &timeline.Timeline{Sources: []timeline.Source{src}, Events: parts[0].Events}, nil
}

// readParts is read that, given workers > 1, parses a compressed or
// streamed input in blocks at once while it is still being decompressed;
// see ReadFileParts for what it returns.
func readParts(r io.Reader, name string, opt Options, sizeHint int64, workers int) (timeline.Source, []timeline.Part, error) {
	one := func(t *timeline.Timeline, err error) (timeline.Source, []timeline.Part, error) {
		if err != nil {
			return timeline.Source{}, nil, err
		}
		return t.Sources[0], []timeline.Part{{Events: t.Events}}, nil
	}
	file := r
	var lines *int64
	if opt.Progress != nil {
		// Counting at the file, below the buffers and decompressors, keeps
		// the per-line loop untouched and measures what the total (file
		// sizes) measures.
		pr := &progressReader{r: r, report: opt.Progress, lines: &lines}
		defer pr.flush()
		r = pr
	}
	raw := bufio.NewReaderSize(r, bufferFor(sizeHint, 64<<10))
	var src io.Reader = raw
	var streamSize int64
	compressed := false
	magic, _ := raw.Peek(4)
	switch {
	case bytes.HasPrefix(magic, gzipMagic):
		zr, err := gzip.NewReader(raw)
		if err != nil {
			return one(nil, fmt.Errorf("%s: gzip: %w", name, err))
		}
		defer zr.Close()
		src, compressed = zr, true
		// The compression ratio of logs varies too much to size from,
		// but a gzip file's trailer gives its uncompressed size.
		streamSize = gzipSize(file, sizeHint)
		sizeHint = 0
	case bytes.HasPrefix(magic, zstdMagic):
		// Bounded window: a hostile frame cannot make the decoder reserve
		// more than 64 MiB.
		zr, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20))
		if err != nil {
			return one(nil, fmt.Errorf("%s: zstd: %w", name, err))
		}
		defer zr.Close()
		src, compressed = zr, true
		sizeHint = 0
	}
	window := readBufferBytes
	if !compressed {
		window = bufferFor(sizeHint, readBufferBytes)
	}
	br := bufio.NewReaderSize(src, window)
	prefix, err := br.Peek(br.Size())
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull && !compressed {
		return one(nil, fmt.Errorf("%s: %w", name, err))
	}
	whole := err != nil && err != bufio.ErrBufferFull
	sample := sampleOf(prefix, whole)
	lr := &lineReader{r: br}
	if len(sample) == 0 && !whole {
		// The first line does not fit the detection window (a dump, a
		// hostile line): read past a few such lines, keeping them for the
		// parser, and detect on what follows.
		sample, whole = lr.readAhead()
	}

	strs := newLabelInterner(opt.Labels)
	p, err := chooseParser(sample, whole, opt, strs)
	if err != nil {
		return one(nil, fmt.Errorf("%s: %w", name, err))
	}
	if a, ok := p.(yearAnchored); ok && !opt.YearReference.IsZero() {
		a.anchorYear(opt.YearReference.UnixNano())
	}
	if _, ok := p.(documentParser); ok && len(lr.pending) > 0 {
		return one(nil, fmt.Errorf("%s: %w", name, noSample(false)))
	}
	if sp, ok := p.(splitter); ok && workers > 1 && !whole && opt.Progress == nil && len(lr.pending) == 0 {
		return parseBlocks(br, name, sp, prefix, compressed, workers, streamSize, opt.Labels)
	}

	t := &timeline.Timeline{Sources: []timeline.Source{{Path: name}}}
	if p != nil {
		t.Sources[0].Format = p.format()
		t.Sources[0].Observer = observerOf(p.format())
		t.Sources[0].Warnings = notesOf(p)
	}
	if sizeHint > 0 {
		n := eventsFor(sizeHint, prefix)
		if whole {
			// All of it is in the buffer: its lines are counted rather
			// than guessed with a margin, which for a directory of
			// thousands of one-line files was most of their memory until
			// the merge (a line holding several attempts grows the slice).
			n = int64(bytes.Count(prefix, []byte{'\n'})) + 1
		}
		t.Events = spill.Make[timeline.Event](0, int(n))
		adviseHugePages(t.Events[:cap(t.Events)])
	}
	s := &t.Sources[0]
	lines = &s.Lines
	if dp, ok := p.(documentParser); ok {
		return one(readDocument(br, name, dp, t))
	}
	if err := parseLines(lr, t, p, compressed, name); err != nil {
		return one(nil, err)
	}
	return one(t, nil)
}

// bufferFor sizes a read buffer of at most limit bytes for an input of
// size bytes (0: unknown). One byte more than the file lets a peek see its
// end, so detection knows it sampled the whole file; and a directory of
// thousands of small rotated logs then does not allocate and clear a MiB
// for each.
func bufferFor(size int64, limit int) int {
	if size <= 0 || size >= int64(limit) {
		return limit
	}
	return max(int(size)+1, 4<<10)
}

// gzipSize reads the uncompressed size from the trailer of a gzip file of
// size bytes, or returns 0. The trailer holds it modulo 4 GiB and only for
// the last member, so a value that cannot be right (smaller than the file,
// or past any compression ratio deflate reaches on logs) is not used.
func gzipSize(r io.Reader, size int64) int64 {
	ra, ok := r.(io.ReaderAt)
	if !ok || size < 18 {
		return 0
	}
	var b [4]byte
	if _, err := ra.ReadAt(b[:], size-4); err != nil {
		return 0
	}
	n := int64(b[0]) | int64(b[1])<<8 | int64(b[2])<<16 | int64(b[3])<<24
	if n < size || n > size*256 {
		return 0
	}
	return n
}

// eventsFor guesses how many events size bytes of input hold from the
// line length in its first bytes, a little high, so that the events slice
// is allocated once rather than grown by copying; a guess, not a limit.
func eventsFor(size int64, prefix []byte) int64 {
	perLine := int64(150)
	if n := int64(bytes.Count(prefix, []byte{'\n'})); n > 0 {
		perLine = max(int64(len(prefix))/n, 16)
	}
	return min(size/perLine+size/perLine/16+16, 1<<26)
}

// parseLines feeds every line of lr to p, appending events to t and
// accounting each line in t.Sources[0]: parsed, or skipped with a reason.
// compressed turns a read error into one counted, skipped line, since a
// compressed log cut short still holds what came before the cut.
func parseLines(lr *lineReader, t *timeline.Timeline, p lineParser, compressed bool, name string) error {
	s := &t.Sources[0]
	bindAmender(p, t)
	mp, _ := p.(multiParser)
	// emit hands a multiParser the next event slot, stamped with the line.
	emit := func() *timeline.Event { return appendEvent(t, s.Lines) }
	for {
		line, tooLong, err := lr.next()
		if err != nil {
			if err == io.EOF {
				break
			}
			if compressed {
				// A gzip file cut short (copied while being written) or
				// damaged: keep what was read and account for the loss as
				// one line.
				s.Lines++
				s.AddSkip(s.Lines, "compressed data ends early or is damaged: "+err.Error())
				break
			}
			return fmt.Errorf("%s: after line %d: %w", name, s.Lines, err)
		}
		s.Lines++
		if tooLong {
			s.AddSkip(s.Lines, "line longer than 4 MiB")
			continue
		}
		if s.Lines == 1 && !lr.midFile {
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
		if mp != nil {
			before := len(t.Events)
			reason := mp.parseMulti(line, emit)
			if reason == "" && len(t.Events) == before {
				reason = "line holds no event"
			}
			if reason != "" {
				t.Events = t.Events[:before]
				s.AddSkip(s.Lines, reason)
				continue
			}
			s.Parsed++
			continue
		}
		e := appendEvent(t, s.Lines)
		if reason := p.parse(line, e); reason != "" {
			t.Events = t.Events[:len(t.Events)-1]
			s.AddSkip(s.Lines, reason)
			continue
		}
		s.Parsed++
	}
	s.Events = int64(len(t.Events))
	return nil
}

// appendEvent appends an event stamped with line to t.Events and returns
// it. The slice grows by doubling into spill.Make rather than by append,
// whose new arrays are always on the heap: the events of an input whose
// size was not known beforehand (standard input, a stream without a size,
// a file that grew) then reach the spill file as a sized input's do.
func appendEvent(t *timeline.Timeline, line int64) *timeline.Event {
	n := len(t.Events)
	if n == cap(t.Events) {
		t.Events = growEvents(t.Events)
	}
	t.Events = t.Events[:n+1]
	e := &t.Events[n]
	*e = timeline.Event{Line: line}
	return e
}

func growEvents(old []timeline.Event) []timeline.Event {
	grown := spill.Make[timeline.Event](len(old), max(2*cap(old), 256))
	copy(grown, old)
	// Only a slice spill.Make made for this one is handed back; a window
	// of a larger slice stays where it is.
	spill.Free(old)
	return grown
}

// readDocument reads a format that is one document, whole, up to
// maxDocumentBytes.
func readDocument(r io.Reader, name string, dp documentParser, t *timeline.Timeline) (*timeline.Timeline, error) {
	doc, err := io.ReadAll(io.LimitReader(r, maxDocumentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc) > maxDocumentBytes {
		return nil, fmt.Errorf("%s: a %s file is read whole, and this one is over %d MiB", name, dp.format(), maxDocumentBytes>>20)
	}
	s := &t.Sources[0]
	emit := func(line int64) *timeline.Event { return appendEvent(t, line) }
	if err := dp.parseDocument(doc, s, emit); err != nil {
		return nil, fmt.Errorf("%s:%w", name, err)
	}
	s.Events = int64(len(t.Events))
	return t, nil
}

// progressReader counts the bytes read from an input and reports them, with
// the lines the parser has counted so far, to Options.Progress. It runs on
// the reading goroutine (the buffers and decompressors above it read
// synchronously), so it may read the line count without locking.
type progressReader struct {
	r      io.Reader
	report func(bytes, lines int64)
	// lines points at the pointer read sets once the Source exists.
	lines     **int64
	pending   int64
	linesSeen int64
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.pending += int64(n)
	if p.pending >= progressStepBytes {
		p.flush()
	}
	return n, err
}

func (p *progressReader) flush() {
	var delta int64
	if l := *p.lines; l != nil {
		delta = *l - p.linesSeen
		p.linesSeen = *l
	}
	if p.pending == 0 && delta == 0 {
		return
	}
	p.report(p.pending, delta)
	p.pending = 0
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
	// "apache:common" names a format and its variant, as Source.Format
	// writes them, so a detected format can be pinned by pasting it back.
	// An explicit LogFormat wins over the variant.
	if name, _, ok := strings.Cut(format, ":"); ok {
		if opt.LogFormat == "" {
			opt.LogFormat = strings.TrimSpace(opt.Format[strings.IndexByte(opt.Format, ':')+1:])
		}
		format = name
	}
	if (format == "" || format == "auto") && opt.LogFormat != "" && jsonLines(sample) &&
		!strings.HasPrefix(strings.TrimSpace(opt.LogFormat), "{") {
		// A text log_format cannot describe a JSON-lines file given beside
		// the access log it was meant for (a call log): that file is
		// detected as if no definition had been given.
		opt.LogFormat = ""
	}
	if (format == "" || format == "auto") && opt.LogFormat != "" {
		format = logFormatFamily(opt.LogFormat)
	}
	if format == "" || format == "auto" {
		if len(sample) == 0 {
			return nil, noSample(whole)
		}
		if p := sniffPrefixed(sample, opt, strs); p != nil {
			return p, nil
		}
		var tried []string
		for _, sn := range sniffers {
			p, why := sn(sample, opt, strs)
			if p != nil {
				return p, nil
			}
			tried = append(tried, why)
		}
		// Most logs no format here reads are written by a log_format of
		// their own: say how to give it.
		return nil, fmt.Errorf("cannot detect the format; tried %s. A log written by a format of your own is read with --log-format and its definition (an nginx log_format, Apache LogFormat, Envoy format string or HAProxy log-format; see 'stampede formats')", strings.Join(tried, "; "))
	}
	for _, fe := range formats {
		if fe.info.Name == format || slices.Contains(fe.info.Aliases, format) {
			return openPrefixed(fe, sample, whole, opt, strs)
		}
	}
	names := []string{"auto"}
	for _, fe := range formats {
		names = append(names, fe.info.Name)
	}
	return nil, fmt.Errorf("unknown format %q: want %s", opt.Format, strings.Join(names, ", "))
}

// jsonLines reports whether most sampled lines are JSON objects.
func jsonLines(sample []sampledLine) bool {
	n := 0
	for _, l := range sample {
		if t := bytes.TrimSpace(l.text); len(t) > 0 && t[0] == '{' {
			n++
		}
	}
	return len(sample) > 0 && 2*n > len(sample)
}

// logFormatFamily guesses which server's format language a LogFormat
// option is written in: nginx uses $variables, Envoy %OPERATORS%, Apache
// %directives. A bare name is looked up among the named formats, nginx's
// first, so "combined" keeps meaning nginx's.
func logFormatFamily(def string) string {
	name := strings.TrimSpace(def)
	switch {
	case namedFormats[name] != "":
		return "nginx"
	case apacheNamedFormats[name] != "":
		return "apache"
	case envoyNamedFormats[name] != "":
		return "envoy"
	case isHAProxyLogFormat(def):
		return "haproxy"
	case isCloudFrontFields(def):
		return "cloudfront"
	case strings.Contains(def, "$"):
		return "nginx"
	case strings.Contains(def, "%START_TIME") || strings.Contains(def, "%RESPONSE_CODE%") || strings.Contains(def, "%REQ("):
		return "envoy"
	case strings.Contains(def, "%"):
		return "apache"
	}
	return "nginx"
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

// observerOf says where a format's writer sits on the request path, so
// that an attempt logged by both the proxy and the SDK counts once.
func observerOf(format string) timeline.Observer {
	name, _, _ := strings.Cut(format, ":")
	switch name {
	case "jsonl", "openai-node", "botocore", "openai-python", "aws-js-v3":
		return timeline.ObserverSDK
	case "k6", "vegeta", "vegeta-json", "vegeta-csv", "jmeter", "har", "otlp", "otlp-json":
		return timeline.ObserverClient
	}
	return timeline.ObserverProxy
}

// A sniffer claims the sample (returns a parser) or says why it is not
// its format. Sniffers run in order; the first claim wins.
type sniffer func(sample []sampledLine, opt Options, strs *interner) (lineParser, string)

// sniffers is the detection chain. JSON formats with keys of their own come
// before sniffJSONL, which takes any file of JSON objects; text formats
// with a fixed shape may go anywhere after it.
var sniffers = slices.Concat([]sniffer{sniffHAR, sniffOTLP, sniffAWSJS, sniffEnvoyJSON}, accessFormatSniffers, []sniffer{
	sniffPrettyJSON,
	sniffJSONL,
	sniffOpenAINode,
	sniffBotocore,
	sniffOpenAIPython,
	sniffHAProxy,
	sniffCloudFront,
	sniffAccessText,
	sniffALB,
})

// FormatInfo describes an input format, for users choosing Options.Format.
type FormatInfo struct {
	// Name is the Options.Format value; Aliases are accepted too.
	Name    string
	Aliases []string
	// Detect says how detection recognises the format.
	Detect string
	// Fields are the timeline fields the format can fill, named as in
	// ParseFieldMapping, plus max_attempts.
	Fields []string
}

// opener builds a format's parser when Options.Format names it. sample is
// the detection sample, which openers of self-describing formats ignore.
type opener func(sample []sampledLine, whole bool, opt Options, strs *interner) (lineParser, error)

type formatEntry struct {
	info FormatInfo
	open opener
}

// bySniffing opens a format by running its sniffer: the sniffer's "not
// mine" becomes the error. It suits formats whose sniffer is the only way
// to build their parser; always is better when a constructor exists,
// since a forced format should read a file however many lines are bad.
func bySniffing(name string, sn sniffer) opener {
	return func(sample []sampledLine, whole bool, opt Options, strs *interner) (lineParser, error) {
		if len(sample) == 0 {
			return nil, noSample(whole)
		}
		p, why := sn(sample, opt, strs)
		if p == nil {
			return nil, fmt.Errorf("not %s: %s", name, why)
		}
		return p, nil
	}
}

// always opens a format whose parser needs nothing from the sample or
// Options: every line is read, and a bad one is skipped with its reason.
func always[P lineParser](newParser func(strs *interner) P) opener {
	return func(_ []sampledLine, _ bool, _ Options, strs *interner) (lineParser, error) {
		return newParser(strs), nil
	}
}

// accessLogFields are what an access log line can fill when its format
// has the times and headers for it.
var accessLogFields = []string{"start", "end", "status", "outcome", "code", "retry_after", "route", "client", "task", "call", "request", "attempt", "max_attempts"}

// formats is the registry of every format Options.Format can name, in the
// order Formats lists them.
var formats = []formatEntry{
	{FormatInfo{Name: "nginx",
		Detect: "of the text access-log formats, a named log_format explains the first 50 lines best (stampede, retry, upstreaminfo: ingress-nginx's default, main_timing: main with rt= uct= uht= urt=, main, combined; [$time_iso8601] may stand for [$time_local]) and reads at least half of them; a named format also reads lines of the named formats it extends (main reads combined lines)",
		Fields: accessLogFields}, openNginx},
	{FormatInfo{Name: "jsonl", Aliases: []string{"json", "ndjson"},
		Detect: "half of the first 50 lines start with '{'; records with a status, the request and a time but no call fields (an access log in JSON) are read as attempts, others as calls, unless --layer says",
		Fields: jsonFieldNames[:]}, openJSONL},
	{FormatInfo{Name: "apache",
		Detect: "a named LogFormat explains the first 50 lines best and reads at least half of them: vhost_combined (%v, with or without :%p, before combined), combined, common, ssl_request_log (nginx wins a tie: a combined line reads the same in both, and without a duration the events are the same)",
		Fields: accessLogFields}, openApache},
	{FormatInfo{Name: "envoy",
		Detect: "a named format explains the first 50 lines best and reads at least half of them: istio (Istio's default since 1.8), istio_mixer (Istio up to 1.7), default (Envoy's)",
		Fields: accessLogFields}, openEnvoy},
	{FormatInfo{Name: "envoy-json",
		Detect: "half of the first 50 lines are JSON objects with Envoy keys (response_code or response_flags with start_time)",
		Fields: []string{"start", "end", "status", "outcome", "code", "retry_after", "route", "client", "task", "call", "request", "attempt"}},
		always(newEnvoyJSONParser)},
	{FormatInfo{Name: "haproxy",
		Detect: "half of the first 50 lines read in a named HAProxy format: httplog (option httplog, raw or behind a syslog prefix) or clf (option httplog clf); a custom log-format is given with --log-format (its %ci, %tr, %ST, %Ta ... name it HAProxy's); captured headers are named with --haproxy-captures",
		Fields: []string{"start", "end", "status", "outcome", "code", "retry_after", "route", "client", "task", "call", "request", "attempt", "max_attempts"}},
		openHAProxy},
	{FormatInfo{Name: "cloudfront", Aliases: []string{"aws-cloudfront"},
		Detect: "a #Fields header naming x-edge-request-id (CloudFront standard logs, W3C, tab-separated), or 90% of the first 50 lines are real-time log lines with every documented field; a real-time log with fewer fields is read with --log-format and its field list (e.g. 'timestamp c-ip time-to-first-byte sc-status ...'); a 4xx whose x-edge-detailed-result-type is CloudFront's own (LimitExceeded, ...) is coded cloudfront:<type>",
		Fields: []string{"start", "end", "status", "outcome", "code", "route", "client", "request", "task", "call", "attempt", "max_attempts"}},
		openCloudFront},
	{FormatInfo{Name: "alb", Aliases: []string{"aws-alb"},
		Detect: "90% of the first 50 lines are AWS ALB access log entries (http, https, h2, grpcs, ws or wss, then an ISO time)",
		Fields: []string{"start", "end", "status", "outcome", "code", "route", "client", "request"}},
		always(newALBParser)},
	{FormatInfo{Name: "openai-node", Aliases: []string{"anthropic-typescript"},
		Detect: "lines carry the SDK's request log id ([log_xxxxxx…]) and 'succeeded/failed with status N in Nms'; at logLevel debug the 'response error'/'response start' line after each gives the retry-after of its headers; lines with no time (the default console logger) are claimed and skipped with that reason",
		Fields: []string{"start", "end", "status", "outcome", "retry_after", "call", "request", "attempt", "max_attempts", "route", "class"}},
		always(newOpenAINodeParser)},
	{FormatInfo{Name: "botocore",
		Detect: "DEBUG lines of botocore's endpoint and retry loggers (Sending http request, Retry needed, Not retrying request); statuses from urllib3's request lines and legacy mode's 'retry needed: retryable HTTP status code received: N'; the retry mode from the logger names",
		Fields: []string{"start", "end", "status", "outcome", "code", "call", "attempt", "max_attempts", "attempts", "route", "client"}},
		always(newBotocoreParser)},
	{FormatInfo{Name: "openai-python", Aliases: []string{"anthropic-python", "httpx"},
		Detect: "httpx 'HTTP Request: METHOD URL \"HTTP/1.1 N Reason\"' lines and the SDK's 'Retrying request … in N seconds' lines after a timestamp; without httpx lines each retry line is the failed attempt it retries",
		Fields: []string{"start", "status", "outcome", "route"}},
		always(newOpenAIPythonParser)},
	{FormatInfo{Name: "aws-js-v3",
		Detect: "JSON lines of @aws-sdk/middleware-logger records with $metadata; records printed by logger: console (Node's util.inspect) are read as aws-js-v3:console and skipped, since they have no time",
		Fields: []string{"start", "status", "outcome", "code", "request", "attempts", "route"}},
		always(newAWSJSParser)},
	{FormatInfo{Name: "otlp-json", Aliases: []string{"otlp"},
		Detect: "half of the first 50 lines are JSON objects with resourceSpans (the OpenTelemetry collector's file exporter), or the input is one pretty-printed request: a first line '{' and a line opening with \"resourceSpans\"",
		Fields: []string{"start", "end", "status", "outcome", "code", "retry_after", "route", "client", "task", "call", "request", "attempt"}},
		openOTLP},
	{FormatInfo{Name: "har",
		Detect: "one JSON document whose first lines hold \"log\" and \"entries\" (HAR 1.2, read whole, up to 1 GiB)",
		Fields: []string{"start", "end", "status", "outcome", "code", "retry_after", "route", "client", "task", "call", "request", "attempt", "max_attempts"}},
		always(newHARParser)},
}

func init() {
	// The load-test and gateway formats keep their own table beside their
	// parsers; the registry lists them after the formats above.
	loadTestFields := []string{"start", "end", "status", "outcome", "code", "route"}
	for _, f := range accessFormats {
		fields := loadTestFields
		switch f.name {
		case "caddy", "traefik-json", "traefik-clf", "cloudflare", "kong":
			fields = accessLogFields
		case "gcp-lb":
			fields = []string{"start", "end", "status", "outcome", "code", "route", "client", "request"}
		case "apigateway-json", "apigateway-clf":
			fields = append(slices.Clone(loadTestFields), "request", "client")
		}
		formats = append(formats, formatEntry{FormatInfo{Name: f.name, Aliases: f.aliases, Detect: f.detect, Fields: fields},
			func(_ []sampledLine, _ bool, opt Options, strs *interner) (lineParser, error) {
				// "apigateway-json:pretty", as detection names records
				// copied pretty-printed out of a log viewer.
				if strings.EqualFold(strings.TrimSpace(opt.LogFormat), "pretty") {
					return newPrettyJSONParser(f.newParser(strs)), nil
				}
				return f.newParser(strs), nil
			}})
	}
}

// Formats lists the formats Options.Format can name, with how each is
// detected and what it fills.
func Formats() []FormatInfo {
	out := make([]FormatInfo, len(formats))
	for i, fe := range formats {
		out[i] = fe.info
		out[i].Aliases = slices.Clone(fe.info.Aliases)
		out[i].Fields = slices.Clone(fe.info.Fields)
	}
	return out
}

func openNginx(sample []sampledLine, whole bool, opt Options, strs *interner) (lineParser, error) {
	if opt.LogFormat == "" {
		if len(sample) == 0 {
			return nil, noSample(whole)
		}
		return chooseFamily(sample, "nginx", strs)
	}
	f, err := compileNamedOrCustom(opt.LogFormat)
	if err != nil {
		return nil, err
	}
	return newNginxParser(f, strs), nil
}

// chooseFamily picks the named format of one family that reads the sample
// best, for Options.Format without Options.LogFormat.
func chooseFamily(sample []sampledLine, family string, strs *interner) (lineParser, error) {
	p, why := chooseText(sample, []string{family}, strs)
	if p == nil {
		return nil, errors.New(why)
	}
	return p, nil
}

func openJSONL(sample []sampledLine, _ bool, opt Options, strs *interner) (lineParser, error) {
	return newJSONLParserFor(sample, opt, strs)
}

func openApache(sample []sampledLine, whole bool, opt Options, strs *interner) (lineParser, error) {
	if opt.LogFormat == "" {
		if len(sample) == 0 {
			return nil, noSample(whole)
		}
		return chooseFamily(sample, "apache", strs)
	}
	f, err := compileApacheNamedOrCustom(opt.LogFormat)
	if err != nil {
		return nil, err
	}
	return newNginxParser(f, strs), nil
}

func openEnvoy(sample []sampledLine, _ bool, opt Options, strs *interner) (lineParser, error) {
	def := opt.LogFormat
	if def == "" {
		if p, _ := chooseText(sample, []string{"envoy"}, strs); p != nil {
			return p, nil
		}
		def = "default"
	}
	f, err := compileEnvoyNamedOrCustom(def)
	if err != nil {
		return nil, err
	}
	return newNginxParser(f, strs), nil
}

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
	p, err := newJSONLParserFor(sample, opt, strs)
	if err != nil {
		return nil, "jsonl (" + err.Error() + ")"
	}
	return p, ""
}

func sniffNginx(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	return chooseText(sample, []string{"nginx"}, strs)
}

func sniffApache(sample []sampledLine, _ Options, strs *interner) (lineParser, string) {
	return chooseText(sample, []string{"apache"}, strs)
}

// nginxCandidates are the named formats in detection order: most variables
// first, so that a format that is a prefix of another wins only when it
// explains the lines better.
var nginxCandidates = []string{"stampede", "retry", "upstreaminfo", "main_timing", "main", "combined"}

// lineReader yields lines without their '\n', bounded to maxLineBytes.
type lineReader struct {
	r    *bufio.Reader
	long []byte
	err  error
	// midFile is set on a piece of a file other than its first, whose
	// first line cannot start with the file's byte order mark.
	midFile bool
	// pending are lines read ahead for format detection, returned first.
	pending []pendingLine
}

type pendingLine struct {
	text    []byte
	tooLong bool
}

// maxLinesAhead bounds how many leading lines too long for the detection
// window are read past; each costs at most maxLineBytes held.
const maxLinesAhead = 4

// readAhead reads past leading lines that do not fit the detection
// window, keeping them (bounded, or as a tooLong mark) for next to return,
// and samples the lines that follow them. whole reports that the sample
// reached the end of the input.
func (lr *lineReader) readAhead() (sample []sampledLine, whole bool) {
	for len(lr.pending) < maxLinesAhead {
		line, tooLong, err := lr.read()
		if err != nil {
			break
		}
		lr.pending = append(lr.pending, pendingLine{text: bytes.Clone(line), tooLong: tooLong})
		if lr.err != nil {
			break
		}
		if prefix, perr := lr.r.Peek(lr.r.Size()); len(sampleOf(prefix, perr != nil && perr != bufio.ErrBufferFull)) > 0 {
			break
		}
	}
	var ahead []sampledLine
	for i, pl := range lr.pending {
		if !pl.tooLong && !isBlank(pl.text) {
			ahead = append(ahead, sampledLine{n: int64(i + 1), text: bytes.TrimSuffix(pl.text, []byte{'\r'})})
		}
	}
	if lr.err != nil {
		return ahead, true
	}
	prefix, err := lr.r.Peek(lr.r.Size())
	whole = err != nil && err != bufio.ErrBufferFull
	for _, sl := range sampleOf(prefix, whole) {
		sl.n += int64(len(lr.pending))
		ahead = append(ahead, sl)
	}
	return ahead, whole
}

// next returns the next line, which is valid until the following call.
// tooLong reports a line over the bound, whose bytes were discarded. A last
// line without '\n' is returned as a line; err is io.EOF after it.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	if len(lr.pending) > 0 {
		pl := lr.pending[0]
		lr.pending = lr.pending[1:]
		return pl.text, pl.tooLong, nil
	}
	return lr.read()
}

// read is next without the lines read ahead.
func (lr *lineReader) read() (line []byte, tooLong bool, err error) {
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
// (routes, user agents, task and call ids), and remembers their Syms so that
// a repeated value reaches the process-wide table, and its locks, only once
// per parser. Looking up m[string(b)] does not allocate, so a repeated value
// costs no allocation at all.
type interner struct {
	// slots cache the Syms of short values, m those of longer ones.
	slots []symSlot
	used  int
	m     map[string]timeline.Sym
	// labels bounds the distinct routes, User-Agents and error codes kept
	// as logged (Options.Labels); nil keeps them all.
	labels *timeline.Labels
	// lm caches the labels kept as logged; shapes caches the Syms of
	// shortened values, which a log of a new value per line repeats on
	// every line.
	lm     [len(timeline.LabelKinds)]map[string]timeline.Sym
	shapes [len(timeline.LabelKinds)]map[string]timeline.Sym
	short  []byte
}

// maxInterned bounds the local map, which is emptied when it fills: a log
// of millions of tasks would otherwise hold every task id twice, here and
// in the shared table. Routes, agents and codes come back within a few
// lines; a task id comes back only after tens of thousands of others,
// which is what the larger table of short values (maxSymSlots) is for.
const maxInterned = 1 << 16

// newInterner starts with an empty table that grows with the log: format
// detection opens one per candidate format on every file, and a directory
// of thousands of small logs would otherwise clear tables it never fills.
func newInterner() *interner { return &interner{m: map[string]timeline.Sym{}} }

// newLabelInterner is an interner whose labels labels bounds.
func newLabelInterner(labels *timeline.Labels) *interner {
	in := newInterner()
	if labels != nil {
		in.labels = labels
		for k := range in.shapes {
			in.lm[k], in.shapes[k] = make(map[string]timeline.Sym, 256), map[string]timeline.Sym{}
		}
	}
	return in
}

// sym returns the Sym of b.
func (in *interner) sym(b []byte) timeline.Sym {
	if len(b) <= symKeyBytes && in.slots != nil {
		return in.cached(b)
	}
	if id, ok := in.m[string(b)]; ok {
		return id
	}
	id := timeline.InternBytes(b)
	if id != timeline.NoSym {
		if len(in.m) >= maxInterned {
			clear(in.m)
		}
		in.m[id.String()] = id
		if in.slots == nil && len(in.m) == minSymSlots/2 {
			// Past a few values (detection, a small file), short ones
			// move to the table.
			in.slots = make([]symSlot, minSymSlots)
		}
	}
	return id
}

// symKeyBytes is the longest value the interner's slots hold: a task id, a
// UUID call or request id.
const symKeyBytes = 43

// symSlot is one entry of the interner's table of short values. The value's
// bytes are in the slot, so that a lookup reads one cache line, and
// neither the process-wide table nor the text it points into: task ids,
// which change on every line, come back only after tens of thousands of
// others, long after they have left the CPU's caches.
type symSlot struct {
	id  timeline.Sym
	n   uint8
	key [symKeyBytes]byte
}

// The table is made once the map holds minSymSlots/2 values: format
// detection opens an interner per candidate format on every file of a
// directory, and a small file interns a few values. It doubles at half
// full and is emptied when half of maxSymSlots (12 MiB) are used, as m is
// at maxInterned: the task ids of a large incident come back after some
// 50,000 others, which a smaller table no longer holds.
const (
	minSymSlots = 1 << 9
	maxSymSlots = 1 << 18
)

var symSeed = maphash.MakeSeed()

// cached is sym for a value of at most symKeyBytes.
func (in *interner) cached(b []byte) timeline.Sym {
	if len(b) == 0 {
		return timeline.NoSym
	}
	mask := uint64(len(in.slots) - 1)
	i := maphash.Bytes(symSeed, b) & mask
	for ; in.slots[i].n != 0; i = (i + 1) & mask {
		if s := &in.slots[i]; int(s.n) == len(b) && string(s.key[:len(b)]) == string(b) {
			return s.id
		}
	}
	id := timeline.InternBytes(b)
	if 2*(in.used+1) > len(in.slots) {
		if len(in.slots) < maxSymSlots {
			in.growSlots()
		} else {
			clear(in.slots)
			in.used = 0
		}
		mask = uint64(len(in.slots) - 1)
		for i = maphash.Bytes(symSeed, b) & mask; in.slots[i].n != 0; i = (i + 1) & mask {
		}
	}
	s := &in.slots[i]
	s.id, s.n = id, uint8(len(b))
	copy(s.key[:], b)
	in.used++
	return id
}

// growSlots doubles the table, keeping what it holds.
func (in *interner) growSlots() {
	old := in.slots
	in.slots = make([]symSlot, 2*len(old))
	mask := uint64(len(in.slots) - 1)
	for k := range old {
		if s := &old[k]; s.n > 0 {
			i := maphash.Bytes(symSeed, s.key[:s.n]) & mask
			for in.slots[i].n != 0 {
				i = (i + 1) & mask
			}
			in.slots[i] = *s
		}
	}
}

// label returns the Sym of a route, User-Agent or error code, as the
// ingest's Labels keep it.
func (in *interner) label(kind timeline.LabelKind, b []byte) timeline.Sym {
	if in.labels == nil {
		return in.sym(b)
	}
	if len(b) == 0 {
		return timeline.NoSym
	}
	lm := in.lm[kind]
	if id, ok := lm[string(b)]; ok {
		return id
	}
	id, ok := in.labels.Logged(kind, b)
	if !ok {
		// Not cached, nor copied: a value not kept as logged is most often
		// one of a new value per line, and its shape is cached instead.
		in.short = timeline.ShortenInto(in.short, b)
		shapes := in.shapes[kind]
		if id, ok = shapes[string(in.short)]; !ok {
			id = in.labels.Shape(kind, in.short, b)
			if len(shapes) >= maxInterned {
				clear(shapes)
			}
			shapes[string(in.short)] = id
		}
		return id
	}
	if len(lm) >= maxInterned {
		clear(lm)
	}
	lm[id.String()] = id
	return id
}

// bytes returns b as a string shared with earlier lines.
func (in *interner) bytes(b []byte) string {
	return in.sym(b).String()
}

// outcomeCache memoises timeline.Classify for lines that carry an error
// code: Classify lower-cases the code, which allocates, and incidents
// repeat the same few codes on every line.
type outcomeCache map[outcomeKey]timeline.Outcome

type outcomeKey struct {
	status int16
	code   timeline.Sym
}

func (c outcomeCache) classify(status int16, code timeline.Sym) timeline.Outcome {
	if code == timeline.NoSym {
		return timeline.Classify(status, "")
	}
	k := outcomeKey{status, code}
	if o, ok := c[k]; ok {
		return o
	}
	o := timeline.Classify(status, code.String())
	if len(c) < 4096 {
		c[k] = o
	}
	return o
}
