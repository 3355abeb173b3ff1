package ingest

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// The compression ratio SizeOf samples: enough compressed bytes to reach
// well past the first blocks, which compress worse while the window fills
// (and a zstd block can take 128 KiB),
// and a cap on what they give, so that a file of one line repeated costs
// no long decompression here.
// (Variables so that tests can sample small files.)
var (
	ratioSampleBytes    int64 = 256 << 10
	ratioSampleOutBytes int64 = 16 << 20
)

// fallbackRatio is used when no sample can be decompressed.
const fallbackRatio = 10

// Size is what an input holds once decompressed.
type Size struct {
	Bytes int64
	// Lines is estimated from the length of the lines at its start.
	Lines int64
}

// SizeOf estimates what a file holds once decompressed, for sizing a run
// before reading it. known is false for standard input ("-") and for
// anything but a regular file (a FIFO, a device): their size cannot be
// told beforehand. A file that cannot be read counts its size on disk, or
// 0; reading it will report the error.
//
// A compressed file's size is sampled: the start is decompressed, and the
// ratio it shows is checked against what the file records, the gzip
// trailer's size (modulo 4 GiB, and of the last member only) or the first
// zstd frame's content size. When they agree the record wins, as it is
// exact; when they do not (several members or frames) the larger wins.
func SizeOf(path string) (size Size, known bool) {
	if path == "-" {
		return Size{}, false
	}
	st, err := os.Stat(path)
	if err != nil {
		return Size{}, true
	}
	if !st.Mode().IsRegular() {
		return Size{}, false
	}
	onDisk := st.Size()
	f, err := os.Open(path)
	if err != nil {
		return Size{Bytes: onDisk, Lines: onDisk / defaultLineBytes}, true
	}
	defer f.Close()
	var head [18]byte
	n, _ := io.ReadFull(f, head[:])
	switch {
	case bytes.HasPrefix(head[:n], gzipMagic):
		sm := sampled(f, onDisk, func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) })
		var trailer [4]byte
		if sm.whole || !sm.ok || onDisk < 18 || readAt(f, trailer[:], onDisk-4) != nil {
			// A trailer of data that does not decompress says nothing.
			return sm.size(sm.bytes), true
		}
		return sm.size(agreed(nearestWrap(int64(binary.LittleEndian.Uint32(trailer[:])), sm.bytes), sm.bytes)), true
	case bytes.HasPrefix(head[:n], zstdMagic):
		sm := sampled(f, onDisk, func(r io.Reader) (io.Reader, error) {
			return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20))
		})
		var h zstd.Header
		if sm.whole || !sm.ok || h.Decode(head[:n]) != nil || !h.HasFCS || h.FrameContentSize > 1<<62 {
			return sm.size(sm.bytes), true
		}
		return sm.size(agreed(int64(h.FrameContentSize), sm.bytes)), true
	}
	prefix := make([]byte, min(onDisk, ratioSampleBytes))
	k, _ := f.ReadAt(prefix, 0)
	var lc lineCounter
	lc.Write(prefix[:k])
	return Size{Bytes: onDisk, Lines: lc.linesIn(onDisk)}, true
}

// defaultLineBytes is a line's length when none can be measured.
const defaultLineBytes = 150

func readAt(f *os.File, b []byte, at int64) error {
	_, err := f.ReadAt(b, at)
	return err
}

// sample is what decompressing the start of a file showed.
type sample struct {
	// bytes is the estimated size once decompressed; whole says the
	// sample reached the end of the file, so that it is exact; ok is
	// false when nothing decompressed, and bytes is the usual ratio of
	// logs.
	bytes     int64
	whole, ok bool
	lines     lineCounter
}

// size is the sample scaled to a file of the given bytes.
func (s sample) size(bytes int64) Size { return Size{Bytes: bytes, Lines: s.lines.linesIn(bytes)} }

// sampled decompresses the start of a compressed file of size bytes and
// scales what it gave to the whole file.
func sampled(f *os.File, size int64, open func(io.Reader) (io.Reader, error)) sample {
	fallback := sample{bytes: size * fallbackRatio}
	in := &countingReader{r: io.NewSectionReader(f, 0, min(size, ratioSampleBytes))}
	zr, err := open(in)
	if err != nil {
		return fallback
	}
	if c, ok := zr.(interface{ Close() }); ok {
		defer c.Close()
	}
	var s sample
	out, err := io.CopyN(&s.lines, zr, ratioSampleOutBytes)
	s.ok = out > 0 && in.n > 0
	switch {
	case err == io.EOF && size <= ratioSampleBytes:
		s.bytes, s.whole, s.ok = out, true, true
	case s.ok:
		// The decoder reads a little ahead of what it has given, so the
		// ratio errs low by that read-ahead; the sample is large against it.
		s.bytes = int64(float64(size) * float64(out) / float64(in.n))
	default:
		return fallback
	}
	return s
}

// lineCounter counts the bytes and newlines written to it.
type lineCounter struct{ n, newlines int64 }

func (c *lineCounter) Write(b []byte) (int, error) {
	c.n += int64(len(b))
	c.newlines += int64(bytes.Count(b, []byte{'\n'}))
	return len(b), nil
}

// linesIn scales the lines counted to size bytes of the same text. A
// sample without a newline holds part of one line at least that long.
func (c *lineCounter) linesIn(size int64) int64 {
	switch {
	case size <= 0:
		return 0
	case c.n == 0:
		return max(size/defaultLineBytes, 1)
	case c.newlines == 0:
		return max(size/c.n, 1)
	}
	return max(int64(float64(size)*float64(c.newlines)/float64(c.n)), 1)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// nearestWrap is the size, among recorded + k·4 GiB, nearest the estimate:
// a gzip trailer holds the size modulo 4 GiB.
func nearestWrap(recorded, est int64) int64 {
	k := max((est-recorded+1<<31)>>32, 0)
	return recorded + k<<32
}

// agreed is the recorded size when it is within half of the estimate
// either way, else the larger of the two.
func agreed(recorded, est int64) int64 {
	if d := recorded - est; d <= est/2 && -d <= est/2 {
		return recorded
	}
	return max(recorded, est)
}
