package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/stampede/stampede/spill"
	"github.com/stampede/stampede/timeline"
)

// splitter is a lineParser whose lines are independent of each other, so
// that pieces of one file can be parsed at once, each by its own copy.
type splitter interface {
	lineParser
	// clone returns a parser for the same format with state of its own,
	// interning into strs.
	clone(strs *interner) lineParser
}

func (p *nginxParser) clone(strs *interner) lineParser {
	q := newNginxParser(p.f, strs)
	q.alts, q.altTokens, q.loose, q.tails, q.notes = p.alts, p.altTokens, p.loose, p.tails, p.notes
	return q
}

func (p *envoyJSONParser) clone(strs *interner) lineParser { return newEnvoyJSONParser(strs) }

// minPieceBytes keeps small files in one piece: below it, starting
// goroutines and merging costs more than parsing. (A variable so that tests
// can cut small inputs into many pieces.)
var minPieceBytes int64 = 16 << 20

// ReadFileParts reads one file like ReadFile, but parses a large
// uncompressed file in up to workers newline-aligned pieces at once. It
// returns the file's Source, whose counts and skip samples are the whole
// file's, and its events as parts in file order, each with the LineBase
// that makes its lines the file's; every event's Source is 0.
func ReadFileParts(path string, opt Options, workers int) (timeline.Source, []timeline.Part, error) {
	f, err := os.Open(path)
	if err != nil {
		return timeline.Source{}, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return timeline.Source{}, nil, err
	}
	size := st.Size()
	if opt.YearReference.IsZero() {
		opt.YearReference = st.ModTime()
	}
	whole := func() (timeline.Source, []timeline.Part, error) {
		t, err := read(f, path, opt, size)
		if err != nil {
			return timeline.Source{}, nil, err
		}
		return t.Sources[0], []timeline.Part{{Events: t.Events}}, nil
	}
	if workers < 2 || !st.Mode().IsRegular() {
		return whole()
	}
	prefix := make([]byte, min(size, readBufferBytes))
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), prefix); err != nil {
		return timeline.Source{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	if bytes.HasPrefix(prefix, gzipMagic) || bytes.HasPrefix(prefix, zstdMagic) {
		return readParts(f, path, opt, size, workers)
	}
	if size < 2*minPieceBytes {
		return whole()
	}
	fullPrefix := int64(len(prefix)) == size
	sample := sampleOf(prefix, fullPrefix)
	if len(sample) == 0 && !fullPrefix {
		// The first line overflows the detection window; the sequential
		// reader reads past it before detecting.
		return whole()
	}
	p, err := chooseParser(sample, fullPrefix, opt, newInterner())
	if err != nil {
		return timeline.Source{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	sp, ok := p.(splitter)
	if !ok {
		return whole()
	}
	n := int(min(int64(workers), size/minPieceBytes))
	bounds, err := pieceBounds(f, size, n)
	if err != nil {
		return timeline.Source{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	// Every piece appends into its own window of one slice, sized from
	// the line length of the first MiB, so that the pieces can be joined
	// in place instead of copied into a second slice of events.
	pieces := make([]*timeline.Timeline, len(bounds)-1)
	windows := make([]int64, len(bounds))
	for i := range pieces {
		windows[i+1] = windows[i] + eventsFor(bounds[i+1]-bounds[i], prefix)
	}
	all := spill.Make[timeline.Event](int(windows[len(pieces)]), int(windows[len(pieces)]))
	adviseHugePages(all)
	errs := make([]error, len(pieces))
	var wg sync.WaitGroup
	for i := range pieces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lo, hi := bounds[i], bounds[i+1]
			t := &timeline.Timeline{Sources: []timeline.Source{{Path: path}}}
			t.Events = all[windows[i]:windows[i]:windows[i+1]]
			var in io.Reader = io.NewSectionReader(f, lo, hi-lo)
			if opt.Progress != nil {
				// Each piece counts its own bytes and lines, on its own
				// goroutine, and reports them as they come.
				var lines *int64
				pr := &progressReader{r: in, report: opt.Progress, lines: &lines}
				defer pr.flush()
				lines = &t.Sources[0].Lines
				in = pr
			}
			lr := &lineReader{r: bufio.NewReaderSize(in, readBufferBytes), midFile: i > 0}
			errs[i] = parseLines(lr, t, sp.clone(newLabelInterner(opt.Labels)), false, path)
			pieces[i] = t
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return timeline.Source{}, nil, err
	}
	src, parts := assemble(path, p, pieces)
	for i, part := range parts {
		if int64(len(part.Events)) > windows[i+1]-windows[i] {
			// A piece outgrew its window and moved: merge the parts as
			// they are.
			return src, parts, nil
		}
	}
	return src, []timeline.Part{joinInPlace(all, parts, windows)}, nil
}

// pieceBounds cuts [0, size) into n pieces that start at the beginning of
// a line: each cut moves forward to just after the next '\n'.
func pieceBounds(f io.ReaderAt, size int64, n int) ([]int64, error) {
	bounds := []int64{0}
	buf := make([]byte, 64<<10)
	for i := 1; i < n; i++ {
		at := max(size*int64(i)/int64(n), bounds[len(bounds)-1])
		cut := size
		for at < size {
			k, err := f.ReadAt(buf[:min(int64(len(buf)), size-at)], at)
			if j := bytes.IndexByte(buf[:k], '\n'); j >= 0 {
				cut = at + int64(j) + 1
				break
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			if k == 0 {
				break
			}
			at += int64(k)
		}
		if cut > bounds[len(bounds)-1] && cut < size {
			bounds = append(bounds, cut)
		}
	}
	return append(bounds, size), nil
}

// joinInPlace closes the gaps between parts that were parsed into windows
// of all (part i at windows[i], in order; parts past the last window were
// allocated apart and fit in all's capacity after the others), moving each
// event left, never over one not yet moved, and making its line the
// file's.
func joinInPlace(all []timeline.Event, parts []timeline.Part, windows []int64) timeline.Part {
	all = all[:cap(all)]
	end := 0
	for i, part := range parts {
		if i == 0 && len(windows) > 1 && windows[0] == 0 && part.LineBase == 0 {
			end = len(part.Events) // already in place
			continue
		}
		for k := range part.Events {
			all[end] = part.Events[k]
			all[end].Line += part.LineBase
			end++
		}
	}
	// Events hold no pointers, so stale copies past the end keep nothing
	// alive. The capacity stays whole so that the slice can be freed as
	// made.
	return timeline.Part{Events: all[:end]}
}

// assemble adds up the pieces of one file, parsed on their own, into the
// file's Source and its parts, whose LineBase makes each piece's lines the
// file's.
func assemble(path string, p lineParser, pieces []*timeline.Timeline) (timeline.Source, []timeline.Part) {
	src := timeline.Source{Path: path, Format: p.format(), Observer: observerOf(p.format()), Warnings: notesOf(p)}
	parts := make([]timeline.Part, len(pieces))
	for i, t := range pieces {
		ps := &t.Sources[0]
		for _, sk := range ps.Samples {
			if len(src.Samples) < timeline.MaxSkipSamples {
				src.Samples = append(src.Samples, timeline.Skip{Line: sk.Line + src.Lines, Reason: sk.Reason})
			}
		}
		src.AddReasons(ps)
		parts[i] = timeline.Part{Events: t.Events, LineBase: src.Lines}
		src.Lines += ps.Lines
		src.Parsed += ps.Parsed
		src.Skipped += ps.Skipped
		src.Events += ps.Events
	}
	return src, parts
}

// blockBytes is how much of a stream one worker parses at a time: large
// enough that handing blocks over costs nothing, small enough that every
// worker gets several even from a modest file.
var blockBytes = 8 << 20

// maxCarryBytes bounds how far a block may grow looking for the end of its
// last line; past it, the rest of the stream is parsed in one sequential
// piece, which counts an over-long line exactly as reading line by line
// does.
func maxCarryBytes() int { return 2*maxLineBytes + blockBytes }

// errAfter is a reader that fails with err once the data before it is read,
// so that a worker meets a damaged stream where the single reader would.
type errAfter struct{ err error }

func (e errAfter) Read([]byte) (int, error) { return 0, e.err }

// parseBlocks parses a stream (the output of a decompressor, standard input)
// in newline-aligned blocks on up to workers goroutines while this one
// reads ahead, so that decompression and parsing overlap. Blocks are put
// back together in order, line numbers and skip samples included, exactly
// as a sequential read would count them. prefix is the start of r, already
// buffered in it.
//
// total, when not 0, is the expected size of the stream (a gzip file's
// trailer says it): blocks then parse into windows of one events slice
// sized for it, joined in place at the end, instead of slices of their own
// merged into a new one. Any size works; a wrong one only costs the copy.
func parseBlocks(r *bufio.Reader, path string, p splitter, prefix []byte, compressed bool, workers int, total int64, labels *timeline.Labels) (timeline.Source, []timeline.Part, error) {
	prefix = bytes.Clone(prefix)
	type block struct {
		i    int
		data []byte
		// rest, when set, follows data: the remainder of the stream, or
		// the error that ended it.
		rest io.Reader
		// window, when set, is where the block's events go.
		window []timeline.Event
	}
	var all []timeline.Event
	var windows []int64 // start of each block's window, then the end of the last
	if total > 0 {
		all = spill.Make[timeline.Event](0, int(eventsFor(total, prefix)))
		adviseHugePages(all[:cap(all)])
		windows = []int64{0}
	}
	// window hands out the next window for a block of n bytes, while they
	// last; once one does not fit, later blocks get none, so that windows
	// stay in block order.
	window := func(n int) []timeline.Event {
		if windows == nil || len(windows) != 0 && windows[len(windows)-1] < 0 {
			return nil
		}
		start := windows[len(windows)-1]
		size := eventsFor(int64(n), prefix)
		if start+size > int64(cap(all)) {
			windows[len(windows)-1] = -1 - start
			return nil
		}
		windows = append(windows, start+size)
		return all[start : start : start+size]
	}
	var (
		mu     sync.Mutex
		pieces []*timeline.Timeline
		errs   []error
	)
	blocks := make(chan block, workers)
	var free sync.Pool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parser := p.clone(newLabelInterner(labels))
			for b := range blocks {
				var in io.Reader = bytes.NewReader(b.data)
				if b.rest != nil {
					in = io.MultiReader(in, b.rest)
				}
				t := &timeline.Timeline{Sources: []timeline.Source{{Path: path}}}
				if t.Events = b.window; t.Events == nil {
					// In the spill, when it is on: a stream of unknown size
					// would otherwise hold all its events on the heap until
					// the merge.
					t.Events = spill.Make[timeline.Event](0, int(eventsFor(int64(len(b.data)), prefix)))
				}
				lr := &lineReader{r: bufio.NewReaderSize(in, readBufferBytes), midFile: b.i > 0}
				err := parseLines(lr, t, parser, compressed, path)
				if b.rest == nil {
					free.Put(b.data[:0])
				}
				mu.Lock()
				for len(pieces) <= b.i {
					pieces = append(pieces, nil)
					errs = append(errs, nil)
				}
				pieces[b.i], errs[b.i] = t, err
				mu.Unlock()
			}
		}()
	}

	var carry []byte
	for i := 0; ; i++ {
		buf, _ := free.Get().([]byte)
		if want := len(carry) + max(blockBytes, len(carry)); cap(buf) < want {
			// Not slices.Grow, which would clear the whole block first:
			// memory is slow to touch the first time, and reading fills it.
			// A line longer than a block doubles the buffer, so that
			// looking for its end costs linear time.
			buf = make([]byte, 0, want)
		}
		buf = append(buf[:0], carry...)
		var err error
		for len(buf) < cap(buf) && err == nil {
			var n int
			n, err = r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
		}
		if err != nil {
			// The end of the stream, or damage: the last block holds
			// everything left, and a reader that ends as the stream did.
			var rest io.Reader
			if err != io.EOF {
				rest = errAfter{err}
			}
			blocks <- block{i: i, data: buf, rest: rest, window: window(len(buf))}
			break
		}
		k := bytes.LastIndexByte(buf, '\n')
		switch {
		case k >= 0:
			carry = append(carry[:0], buf[k+1:]...)
			blocks <- block{i: i, data: buf[:k+1], window: window(k + 1)}
		case len(buf) >= maxCarryBytes():
			blocks <- block{i: i, data: buf, rest: r, window: window(len(buf))}
		default:
			// No line ends in the block yet: read on into a larger one.
			carry = append(carry[:0], buf...)
			free.Put(buf[:0])
			i--
			continue
		}
		if k < 0 {
			break
		}
	}
	close(blocks)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return timeline.Source{}, nil, err
	}
	src, parts := assemble(path, p, pieces)
	if windows == nil || src.Events > int64(cap(all)) {
		return src, parts, nil
	}
	if last := len(windows) - 1; windows[last] < 0 {
		windows[last] = -1 - windows[last]
	}
	for i := range min(len(parts), len(windows)-1) {
		if int64(len(parts[i].Events)) > windows[i+1]-windows[i] {
			// A block outgrew its window and moved: merge as they are.
			return src, parts, nil
		}
	}
	return src, []timeline.Part{joinInPlace(all, parts, windows)}, nil
}
