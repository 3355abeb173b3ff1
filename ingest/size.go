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

// SizeOf estimates how many bytes of text a file holds once decompressed,
// for sizing a run before reading it. known is false for standard input
// ("-") and for anything but a regular file (a FIFO, a device): their size
// cannot be told beforehand. A file that cannot be read counts its size on
// disk, or 0; reading it will report the error.
//
// A compressed file's size is sampled: the start is decompressed, and the
// ratio it shows is checked against what the file records, the gzip
// trailer's size (modulo 4 GiB, and of the last member only) or the first
// zstd frame's content size. When they agree the record wins, as it is
// exact; when they do not (several members or frames) the larger wins.
func SizeOf(path string) (size int64, known bool) {
	if path == "-" {
		return 0, false
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, true
	}
	if !st.Mode().IsRegular() {
		return 0, false
	}
	f, err := os.Open(path)
	if err != nil {
		return st.Size(), true
	}
	defer f.Close()
	size = st.Size()
	var head [18]byte
	n, _ := io.ReadFull(f, head[:])
	switch {
	case bytes.HasPrefix(head[:n], gzipMagic):
		est, whole, ok := sampledSize(f, size, func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) })
		if whole || !ok {
			// A trailer of data that does not decompress says nothing.
			return est, true
		}
		var trailer [4]byte
		if size < 18 || readAt(f, trailer[:], size-4) != nil {
			return est, true
		}
		return agreed(nearestWrap(int64(binary.LittleEndian.Uint32(trailer[:])), est), est), true
	case bytes.HasPrefix(head[:n], zstdMagic):
		est, whole, ok := sampledSize(f, size, func(r io.Reader) (io.Reader, error) {
			return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20))
		})
		var h zstd.Header
		if whole || !ok || h.Decode(head[:n]) != nil || !h.HasFCS || h.FrameContentSize > 1<<62 {
			return est, true
		}
		return agreed(int64(h.FrameContentSize), est), true
	}
	return size, true
}

func readAt(f *os.File, b []byte, at int64) error {
	_, err := f.ReadAt(b, at)
	return err
}

// sampledSize decompresses the start of a compressed file of size bytes
// and scales what it gave to the whole file. whole reports that the
// sample was the whole file, decompressed to its end: then the size is
// exact; ok is false when nothing decompressed, and the estimate is the
// usual ratio of logs.
func sampledSize(f *os.File, size int64, open func(io.Reader) (io.Reader, error)) (est int64, whole, ok bool) {
	in := &countingReader{r: io.NewSectionReader(f, 0, min(size, ratioSampleBytes))}
	zr, err := open(in)
	if err != nil {
		return size * fallbackRatio, false, false
	}
	if c, ok := zr.(interface{ Close() }); ok {
		defer c.Close()
	}
	out, err := io.CopyN(io.Discard, zr, ratioSampleOutBytes)
	if err == io.EOF && size <= ratioSampleBytes {
		return out, true, true
	}
	if out == 0 || in.n == 0 {
		return size * fallbackRatio, false, false
	}
	// The decoder reads a little ahead of what it has given, so the
	// ratio errs low by that read-ahead; the sample is large against it.
	return int64(float64(size) * float64(out) / float64(in.n)), false, true
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
