package ingest

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/stampede/stampede/timeline"
)

// TestPartsMatchSequentialRead cuts inputs into many small pieces and
// blocks and checks that what comes back, put together, is exactly what a
// line-by-line read gives: every line accounted, the same skip samples at
// the same line numbers, the same events.
func TestPartsMatchSequentialRead(t *testing.T) {
	defer func(p int64, b int) { minPieceBytes, blockBytes = p, b }(minPieceBytes, blockBytes)
	minPieceBytes, blockBytes = 4<<10, 8<<10

	nginx := generateNginx(6000)
	var damaged bytes.Buffer
	damaged.Write(utf8BOM)
	for i, line := range bytes.SplitAfter(nginx, []byte{'\n'}) {
		damaged.Write(line)
		switch i % 97 {
		case 5:
			damaged.WriteString("not a log line\n")
		case 11:
			damaged.WriteString("   \n")
		case 17:
			damaged.WriteString(strings.Repeat("x", 20<<10) + "\n")
		}
	}
	damaged.WriteString(`10.0.0.1 - - [30/Nov/2026:02:47:30 +0000] "POST /cut`) // no final newline

	envoy := []byte(strings.Repeat(`{"start_time":"2026-11-30T02:00:00.000Z","path":"/v1/chat","response_code":429,"response_flags":"-","duration":3,"user_agent":"OpenAI/Python 1.52.0","x_stainless_retry_count":"1","x_task_id":"task-0001","retry_after":"12"}`+"\n", 6000))

	var tooLong bytes.Buffer
	tooLong.Write(nginx[:len(nginx)/2])
	tooLong.WriteString(strings.Repeat("y", maxLineBytes+10) + "\n")
	tooLong.Write(nginx[len(nginx)/2:])

	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"nginx", nginx},
		{"nginx with damage", damaged.Bytes()},
		{"envoy json", envoy},
		{"line over the limit", tooLong.Bytes()},
	} {
		for _, enc := range []string{"plain", "gzip", "zstd", "gzip cut short", "gzip two members"} {
			if tc.name == "line over the limit" && enc != "plain" && enc != "gzip" {
				continue // 4 MiB lines are slow under -race; two readers suffice
			}
			t.Run(tc.name+"/"+enc, func(t *testing.T) {
				path := filepath.Join(dir, strings.ReplaceAll(tc.name+"-"+enc, " ", "_"))
				if err := os.WriteFile(path, encode(t, tc.data, enc), 0o644); err != nil {
					t.Fatal(err)
				}
				want, err := ReadFile(path, Options{})
				if err != nil {
					t.Fatal(err)
				}
				var bytesRead, linesRead atomic.Int64
				progress := func(b, l int64) { bytesRead.Add(b); linesRead.Add(l) }
				src, parts, err := ReadFileParts(path, Options{Progress: progress}, 3)
				if err != nil {
					t.Fatal(err)
				}
				if enc == "plain" && (bytesRead.Load() != int64(len(tc.data)) || linesRead.Load() != src.Lines) {
					t.Errorf("progress counted %d bytes and %d lines, want %d and %d", bytesRead.Load(), linesRead.Load(), len(tc.data), src.Lines)
				}
				if enc != "plain" {
					// Compressed input is read in blocks only without progress.
					if src, parts, err = ReadFileParts(path, Options{}, 3); err != nil {
						t.Fatal(err)
					}
				}
				if enc == "zstd" && len(parts) < 2 {
					// gzip's trailer lets its blocks be joined in place into
					// one part; zstd's blocks are merged.
					t.Errorf("a zstd input came back in %d part, want it parsed in blocks", len(parts))
				}
				got := timeline.Merge([]timeline.Source{src}, parts)
				want = timeline.Merge(want.Sources, []timeline.Part{{Events: want.Events}})
				if !reflect.DeepEqual(got.Sources, want.Sources) {
					t.Errorf("source\ngot  %+v\nwant %+v", got.Sources[0], want.Sources[0])
				}
				if len(got.Events) != len(want.Events) {
					t.Fatalf("%d events, want %d", len(got.Events), len(want.Events))
				}
				for i := range got.Events {
					if got.Events[i] != want.Events[i] {
						t.Fatalf("event %d:\ngot  %+v\nwant %+v", i, got.Events[i], want.Events[i])
					}
				}
			})
		}
	}
}

func encode(t *testing.T, data []byte, enc string) []byte {
	t.Helper()
	var buf bytes.Buffer
	switch enc {
	case "plain":
		return data
	case "gzip", "gzip cut short":
		zw := gzip.NewWriter(&buf)
		zw.Write(data)
		zw.Close()
		if enc == "gzip cut short" {
			return buf.Bytes()[:buf.Len()*2/3]
		}
	case "gzip two members":
		// The trailer then gives the second member's size only: too small
		// for the whole, so the blocks run out of room midway.
		for _, half := range [][]byte{data[:len(data)/2], data[len(data)/2:]} {
			zw := gzip.NewWriter(&buf)
			zw.Write(half)
			zw.Close()
		}
	case "zstd":
		zw, err := zstd.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(data)
		zw.Close()
	}
	return buf.Bytes()
}
