package ingest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/stampede/stampede/spill"
)

// logText is n access-log lines that compress about as real ones do;
// repeat lines of one client repeated compress far better.
func logText(n int, repeat bool) []byte {
	var b bytes.Buffer
	for i := range n {
		if repeat {
			fmt.Fprintf(&b, "10.0.0.1 - - [01/Nov/2026:00:00:%02d +0000] \"GET /a HTTP/1.1\" 429 0 \"-\" \"curl/8.0\"\n", i%60)
			continue
		}
		fmt.Fprintf(&b, "10.%d.%d.%d - - [01/Nov/2026:%02d:%02d:%02d +0000] \"GET /v1/%d HTTP/1.1\" %d %d \"-\" \"client/%d\"\n",
			i*7%251, i*13%253, i*31%255, i/3600%24, i/60%60, i%60, i*17%1009, 200+i%3*229, i*97%100003, i%7)
	}
	return b.Bytes()
}

func gzipped(t *testing.T, members ...[]byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, m := range members {
		zw := gzip.NewWriter(&out)
		if _, err := zw.Write(m); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// TestSizeOf checks the sizes a run is planned by: exact where the file
// records its size and the record holds, within a quarter where only the
// sampled ratio can tell, unknown where nothing can.
func TestSizeOf(t *testing.T) {
	defer func(in, out int64) { ratioSampleBytes, ratioSampleOutBytes = in, out }(ratioSampleBytes, ratioSampleOutBytes)
	// A sample past one zstd block of 128 KiB; an output cap the file of
	// repeated lines reaches.
	ratioSampleBytes, ratioSampleOutBytes = 160<<10, 1<<20
	dir := t.TempDir()
	plain := logText(40000, false)
	repeated := logText(40000, true)
	encoder, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	var streamed bytes.Buffer
	zw, _ := zstd.NewWriter(&streamed)
	zw.Write(plain)
	zw.Close()
	// A trailer that does not match the data, as a multi-member file's
	// last member, or a file of some GiB, shows it.
	wrongTrailer := gzipped(t, plain)
	copy(wrongTrailer[len(wrongTrailer)-4:], []byte{100, 0, 0, 0})

	short := plain[:bytes.IndexByte(plain[4000:], '\n')+4001]
	tests := []struct {
		name  string
		data  []byte
		want  int64
		exact bool
		lines int64 // 0: not checked
	}{
		{"plain", plain, int64(len(plain)), true, 40000},
		{"small gzip, read whole", gzipped(t, short), int64(len(short)), true, int64(bytes.Count(short, []byte{'\n'}))},
		{"gzip of one member, trailer", gzipped(t, plain), int64(len(plain)), true, 40000},
		{"gzip compressing a hundred times, trailer", gzipped(t, repeated), int64(len(repeated)), true, 40000},
		{"gzip of many members, sampled", gzipped(t, plain[:len(plain)/2], plain[len(plain)/2:len(plain)-100], plain[len(plain)-100:]), int64(len(plain)), false, 40000},
		{"gzip whose trailer disagrees, sampled", wrongTrailer, int64(len(plain)), false, 40000},
		{"zstd with its content size", encoder.EncodeAll(plain, nil), int64(len(plain)), true, 40000},
		{"zstd streamed, sampled", streamed.Bytes(), int64(len(plain)), false, 40000},
		{"damaged gzip", append([]byte{0x1f, 0x8b}, bytes.Repeat([]byte{0xff}, 1000)...), 1002 * fallbackRatio, true, 0},
		{"one line without a newline", []byte("x"), 1, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name)
			if err := os.WriteFile(p, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, known := SizeOf(p)
			if !known {
				t.Fatalf("SizeOf = %d, unknown", got)
			}
			if b := got.Bytes; tt.exact && b != tt.want || !tt.exact && (b < tt.want*3/4 || b > tt.want*5/4) {
				t.Fatalf("SizeOf = %+v, want %d bytes (exact %v); file of %d bytes", got, tt.want, tt.exact, len(tt.data))
			}
			if l := got.Lines; tt.lines > 0 && (l < tt.lines*3/4 || l > tt.lines*5/4) {
				t.Fatalf("SizeOf = %+v, want about %d lines", got, tt.lines)
			}
		})
	}

	fifo := filepath.Join(dir, "fifo.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"-", fifo} {
		if got, known := SizeOf(p); known {
			t.Errorf("SizeOf(%s) = %+v, known; want unknown", p, got)
		}
	}
}

// TestNearestWrap covers the gzip trailer's size modulo 4 GiB.
func TestNearestWrap(t *testing.T) {
	const g4 = 1 << 32
	tests := []struct {
		recorded, est, want int64
	}{
		{1000, 900, 1000},
		{1000, 1 << 30, 1000},        // nearer 1000 than 4 GiB + 1000
		{1000, g4 - 1000, g4 + 1000}, // just past 4 GiB
		{1 << 30, 10 << 30, 9 << 30}, // 1 GiB + 2·4 GiB
	}
	for _, tt := range tests {
		if got := nearestWrap(tt.recorded, tt.est); got != tt.want {
			t.Errorf("nearestWrap(%d, %d) = %d, want %d", tt.recorded, tt.est, got, tt.want)
		}
	}
	for _, tt := range []struct{ recorded, est, want int64 }{{100, 120, 100}, {100, 60, 100}, {10, 1000, 1000}, {5000, 1000, 5000}} {
		if got := agreed(tt.recorded, tt.est); got != tt.want {
			t.Errorf("agreed(%d, %d) = %d, want %d", tt.recorded, tt.est, got, tt.want)
		}
	}
}

// TestUnknownSizeGrowsIntoSpill reads a stream of unknown size under the
// spill: its events must grow into the spill file, as a sized file's are
// made there, or a budget would not hold for standard input; and they must
// be the events read without the spill.
func TestUnknownSizeGrowsIntoSpill(t *testing.T) {
	text := logText(5000, false)
	want, err := Read(struct{ io.Reader }{bytes.NewReader(text)}, "stdin", Options{})
	if err != nil {
		t.Fatal(err)
	}
	stop, err := spill.Start(spill.Options{Dir: t.TempDir(), MinBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	got, err := Read(struct{ io.Reader }{bytes.NewReader(text)}, "stdin", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Events, want.Events) {
		t.Fatalf("%d events with the spill, %d without, or they differ", len(got.Events), len(want.Events))
	}
	if !spill.Free(got.Events) {
		t.Fatal("the events of a stream of unknown size are not in the spill file")
	}
}
