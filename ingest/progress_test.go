package ingest

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// TestProgressReachesFileSize reads a real access log, repeated past the
// reporting step so that Progress is called on the way and at the end, and
// checks the deltas add up to the file as stored and to the lines read.
func TestProgressReachesFileSize(t *testing.T) {
	log, err := os.ReadFile("../testdata/traces/botocore-standard/access.log")
	if err != nil {
		t.Fatal(err)
	}
	plain := bytes.Repeat(log, 1+2*progressStepBytes/len(log))
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	if _, err := zw.Write(plain); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"access.log", plain},
		{"access.log.gz", zipped.Bytes()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var calls, bytesRead, lines int64
			tl, err := ReadFile(path, Options{Progress: func(b, l int64) {
				calls++
				bytesRead += b
				lines += l
			}})
			if err != nil {
				t.Fatal(err)
			}
			if bytesRead != int64(len(tc.data)) {
				t.Errorf("progress reported %d bytes, file has %d", bytesRead, len(tc.data))
			}
			if want := tl.Sources[0].Lines; lines != want {
				t.Errorf("progress reported %d lines, read %d", lines, want)
			}
			if len(tc.data) > progressStepBytes && calls < 2 {
				t.Errorf("progress called %d times for %d bytes, want a call per MiB", calls, len(tc.data))
			}
		})
	}
}

// TestProgressOffLeavesResultAlone checks that watching a read does not
// change what it reads.
func TestProgressOffLeavesResultAlone(t *testing.T) {
	const path = "../testdata/traces/botocore-standard/calls.jsonl"
	plain, err := ReadFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	watched, err := ReadFile(path, Options{Progress: func(int64, int64) {}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Events) != len(watched.Events) || plain.Sources[0].Lines != watched.Sources[0].Lines {
		t.Errorf("with progress: %d events, %d lines; without: %d events, %d lines",
			len(watched.Events), watched.Sources[0].Lines, len(plain.Events), plain.Sources[0].Lines)
	}
}
