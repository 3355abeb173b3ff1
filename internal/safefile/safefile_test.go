package safefile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fifoReaders holds the read ends of the FIFOs the table makes.
var fifoReaders = map[string]*os.File{}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func TestWrite(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	tests := []struct {
		name string
		// setup makes the output in dir and returns its path.
		setup func(t *testing.T, dir string) string
		// check looks at dir after a write of "new".
		check func(t *testing.T, dir, path string)
	}{
		{name: "a new file gets the umask's mode",
			setup: func(t *testing.T, dir string) string { return filepath.Join(dir, "r.json") },
			check: func(t *testing.T, dir, path string) {
				wantFile(t, path, "new", 0o644)
			}},
		{name: "an existing file keeps its mode",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "r.json")
				must(t, os.WriteFile(p, []byte("old"), 0o600))
				must(t, os.Chmod(p, 0o600))
				return p
			},
			check: func(t *testing.T, dir, path string) { wantFile(t, path, "new", 0o600) }},
		{name: "a symlink is followed and kept",
			setup: func(t *testing.T, dir string) string {
				must(t, os.WriteFile(filepath.Join(dir, "target"), []byte("old"), 0o640))
				p := filepath.Join(dir, "link")
				must(t, os.Symlink("target", p))
				return p
			},
			check: func(t *testing.T, dir, path string) {
				if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("the link was replaced: %v %v", fi, err)
				}
				wantFile(t, filepath.Join(dir, "target"), "new", 0o640)
			}},
		{name: "a dangling symlink creates its target",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "link")
				must(t, os.Symlink("made", p))
				return p
			},
			check: func(t *testing.T, dir, path string) { wantFile(t, filepath.Join(dir, "made"), "new", 0o644) }},
		{name: "a FIFO is written through",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "fifo")
				must(t, syscall.Mkfifo(p, 0o600))
				// The read end opened first, without blocking, so that the
				// write can open the other and a replaced FIFO cannot hang
				// the test.
				r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
				must(t, err)
				t.Cleanup(func() { r.Close() })
				fifoReaders[p] = r
				return p
			},
			check: func(t *testing.T, dir, path string) {
				if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
					t.Errorf("the FIFO was replaced: %v %v", fi, err)
					return
				}
				b := make([]byte, 16)
				n, _ := fifoReaders[path].Read(b)
				if string(b[:n]) != "new" {
					t.Errorf("the FIFO's reader got %q, want %q", b[:n], "new")
				}
			}},
		{name: "a character device is written through",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "null")
				// The null device is 1:3; making one needs root.
				if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
					t.Skipf("mknod: %v (needs root)", err)
				}
				return p
			},
			check: func(t *testing.T, dir, path string) {
				if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
					t.Errorf("the device was replaced by %v (%v)", fi, err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tt.setup(t, dir)
			if err := Write(context.Background(), path, 0o666, writeString("new")); err != nil {
				t.Fatalf("Write: %v", err)
			}
			tt.check(t, dir, path)
			wantNoTemp(t, dir)
		})
	}
}

func TestWriteFailureKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	must(t, os.WriteFile(p, []byte("old"), 0o644))
	failed := errors.New("cancelled")
	err := Write(context.Background(), p, 0o666, func(w io.Writer) error {
		io.WriteString(w, "half")
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("Write = %v, want %v", err, failed)
	}
	wantFile(t, p, "old", 0o644)
	wantNoTemp(t, dir)
	// A writer that panics (as Arrow's Parquet writer can when its sink
	// fails) takes its temporary file with it too.
	func() {
		defer func() { recover() }()
		Write(context.Background(), p, 0o666, func(w io.Writer) error {
			io.WriteString(w, "half")
			panic("writer bug")
		})
	}()
	wantFile(t, p, "old", 0o644)
	wantNoTemp(t, dir)
	if err := Write(context.Background(), dir, 0o666, writeString("x")); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("Write to a directory = %v, want a refusal", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantFile(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != content {
		t.Errorf("%s holds %d bytes %.20q (%v), want %q", path, len(b), b, err, content)
	}
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != mode {
		t.Errorf("%s: %v (%v), want a regular file of mode %v", path, fi.Mode(), err, mode)
	}
}

func wantNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// TestWriteStopped stops the context at each point of a write: the old file
// stays as it was, no temporary is left, and the error is the context's
// cause.
func TestWriteStopped(t *testing.T) {
	stop := errors.New("stopped for the test")
	tests := []struct {
		name string
		// write gets cancel to call where the row says.
		write func(cancel func(), w io.Writer) error
	}{
		{"before the write", func(cancel func(), w io.Writer) error {
			_, err := io.WriteString(w, "new")
			return err
		}},
		{"between two writes", func(cancel func(), w io.Writer) error {
			io.WriteString(w, "half")
			cancel()
			// Past the buffer, so that the write reaches the file.
			_, err := w.Write(make([]byte, 1<<20))
			return err
		}},
		{"by a writer that ignores the error", func(cancel func(), w io.Writer) error {
			cancel()
			w.Write(make([]byte, 1<<20))
			return nil
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "r.json")
			must(t, os.WriteFile(p, []byte("old"), 0o644))
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			if i == 0 {
				cancel(stop)
			}
			called := false
			err := Write(ctx, p, 0o666, func(w io.Writer) error {
				called = true
				return tt.write(func() { cancel(stop) }, w)
			})
			if !errors.Is(err, stop) {
				t.Errorf("Write = %v, want the context's cause", err)
			}
			if i > 0 && !called {
				t.Error("write was never called")
			}
			wantFile(t, p, "old", 0o644)
			wantNoTemp(t, dir)
		})
	}
}

// TestWriterChunks: one large write reaches the file a megabyte at a time,
// so a context done meanwhile stops it between two.
func TestWriterChunks(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped for the test")
	var got []int
	w := Writer(ctx, writerFunc(func(p []byte) (int, error) {
		got = append(got, len(p))
		if len(got) == 2 {
			cancel(stop)
		}
		return len(p), nil
	}))
	n, err := w.Write(make([]byte, 5*chunk))
	if !errors.Is(err, stop) || n != 2*chunk || len(got) != 2 || got[0] != chunk {
		t.Errorf("Write = %d, %v after writes of %v; want %d and the cause after two of %d", n, err, got, 2*chunk, chunk)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestRemoveTemporaries: a writer stuck in its write loses its temporary
// file, and its output never reaches the target.
func TestRemoveTemporaries(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.parquet")
	writing, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Write(context.Background(), p, 0o666, func(w io.Writer) error {
			close(writing)
			<-release
			_, err := io.WriteString(w, "late")
			return err
		})
	}()
	<-writing
	RemoveTemporaries()
	wantNoTemp(t, dir)
	close(release)
	if err := <-done; err == nil {
		t.Error("a write whose temporary file was removed succeeded")
	}
	if _, err := os.Stat(p); err == nil {
		t.Error("the target was written")
	}
}
