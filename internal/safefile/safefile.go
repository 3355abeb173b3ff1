// Package safefile writes an output file so that a failed or interrupted
// write leaves the old file as it was, without ever replacing what is not
// a regular file: a device, a FIFO or a symlink given as the output.
//
// Every write takes a context: once it is done, the next Write fails with
// its cause, the temporary file is removed and the target is left as it
// was, so that Ctrl-C or a time limit stops a multi-GB output within
// moments rather than after it.
package safefile

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Write writes what write produces to path.
//   - A regular file (or none yet) is written to a temporary file beside it
//     and renamed into place once complete, so that readers never see half
//     of it. An existing file keeps its mode; a new one gets perm less the
//     umask.
//   - A symlink is followed, and its target is replaced in the same way.
//   - Anything else (/dev/null, /dev/stdout, a FIFO) is written to
//     directly: renaming over it would put a regular file in its place.
//
// Once ctx is done, Write fails with its cause and leaves path as it was.
func Write(ctx context.Context, path string, perm fs.FileMode, write func(io.Writer) error) error {
	s, err := Stage(ctx, path, perm, write)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		s.Abort()
		return context.Cause(ctx)
	}
	return s.Commit()
}

// Staged is an output written but not yet in place: several files that
// belong together (a report and its charts) are all staged first, so that
// a failure in any leaves none of them behind.
type Staged struct {
	tmp, target string
	// through is set for a device or FIFO: it is written at Commit, under
	// ctx.
	through func(io.Writer) error
	ctx     context.Context
}

// Stage writes what write produces beside path, as Write does, but leaves
// it there until Commit (or Abort). Once ctx is done, the writer given to
// write fails with ctx's cause and nothing is left beside path.
func Stage(ctx context.Context, path string, perm fs.FileMode, write func(io.Writer) error) (*Staged, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	target, err := resolve(path)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(target)
	switch {
	case err == nil && info.IsDir():
		return nil, fmt.Errorf("%s is a directory", path)
	case err == nil && !info.Mode().IsRegular():
		return &Staged{target: target, through: write, ctx: ctx}, nil
	case err == nil:
		perm = info.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	tmp, err := stage(ctx, target, perm, err == nil, write)
	if err != nil {
		return nil, err
	}
	return &Staged{tmp: tmp, target: target}, nil
}

// Commit puts the staged file in place. A caller that puts several in
// place checks its context once before the first: renames take
// microseconds, and stopping between two would leave a part of the set.
func (s *Staged) Commit() error {
	if s.through != nil {
		return writeThrough(s.ctx, s.target, s.through)
	}
	defer forget(s.tmp)
	if err := os.Rename(s.tmp, s.target); err != nil {
		os.Remove(s.tmp)
		return err
	}
	return nil
}

// WritesThrough reports whether the target is a device or FIFO, which
// Commit writes to rather than replaces: that takes as long as its reader,
// so such a target goes first among outputs that belong together.
func (s *Staged) WritesThrough() bool { return s.through != nil }

// Abort removes the staged file, leaving the target as it was.
func (s *Staged) Abort() {
	if s.through == nil {
		os.Remove(s.tmp)
		forget(s.tmp)
	}
}

// temporaries are the temporary files written or staged and not yet renamed
// or removed, for RemoveTemporaries.
var temporaries = struct {
	sync.Mutex
	names map[string]bool
}{names: map[string]bool{}}

func forget(name string) {
	temporaries.Lock()
	delete(temporaries.names, name)
	temporaries.Unlock()
}

// RemoveTemporaries removes every temporary file not yet renamed into place
// or removed, for a process that is about to exit while a writer is stuck
// (in a slow disk's fsync, say) and cannot clean up after itself. A writer
// still at work carries on into a file no longer there and fails to put it
// in place.
func RemoveTemporaries() {
	temporaries.Lock()
	defer temporaries.Unlock()
	for name := range temporaries.names {
		os.Remove(name)
		delete(temporaries.names, name)
	}
}

// resolve follows path's symlinks, a dangling one included: writing through
// a link creates or replaces its target and leaves the link.
func resolve(path string) (string, error) {
	for range 40 {
		info, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && info.Mode()&fs.ModeSymlink == 0) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

func writeThrough(ctx context.Context, path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := writeBuffered(ctx, f, write); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stage writes the temporary file beside path and returns its name.
func stage(ctx context.Context, path string, perm fs.FileMode, exists bool, write func(io.Writer) error) (name string, err error) {
	tmp, err := createTemp(path, perm)
	if err != nil {
		return "", err
	}
	// Removed unless staged whole, a panic in write included: the
	// command turns one into an error and goes on to exit.
	staged := false
	defer func() {
		if !staged {
			tmp.Close()
			os.Remove(tmp.Name())
			forget(tmp.Name())
		}
	}()
	if err := writeBuffered(ctx, tmp, write); err != nil {
		return "", err
	}
	// A writer that swallowed the error it got must not pass for one that
	// finished.
	if ctx.Err() != nil {
		return "", context.Cause(ctx)
	}
	if exists {
		// The umask applied at creation; an existing file's mode is the
		// user's choice and is kept exactly.
		if err := tmp.Chmod(perm); err != nil {
			return "", err
		}
	}
	if err := tmp.Sync(); err != nil {
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	staged = true
	return tmp.Name(), nil
}

// createTemp makes a new file beside path. os.CreateTemp would make it
// 0600 whatever the umask; opening it here with perm lets the umask decide,
// as for any file the user's tools create.
func createTemp(path string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(path)
	for range 100 {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		name := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(b[:]))
		temporaries.Lock()
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			temporaries.names[name] = true
		}
		temporaries.Unlock()
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("%s: cannot create a temporary file beside it", path)
}

// writeBuffered hands write a buffer over f, so that renderers and encoders
// that write a few bytes at a time cost no system call each, and flushes it.
func writeBuffered(ctx context.Context, f *os.File, write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(Writer(ctx, f), 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// chunk bounds one write between two looks at the context, so that a
// report rendered whole into memory still stops within moments.
const chunk = 1 << 20

// Writer returns w, failing every Write with ctx's cause once ctx is done:
// standard output and the temporary files are written through it, and the
// renderers and encoders stop at their next write.
func Writer(ctx context.Context, w io.Writer) io.Writer {
	return &ctxWriter{ctx: ctx, w: w}
}

type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *ctxWriter) Write(p []byte) (n int, err error) {
	for len(p) > 0 {
		if c.ctx.Err() != nil {
			return n, context.Cause(c.ctx)
		}
		m, err := c.w.Write(p[:min(len(p), chunk)])
		n += m
		if err != nil {
			return n, err
		}
		p = p[m:]
	}
	return n, nil
}
