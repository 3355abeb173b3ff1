// Package safefile writes an output file so that a failed or interrupted
// write leaves the old file as it was, without ever replacing what is not
// a regular file: a device, a FIFO or a symlink given as the output.
package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes what write produces to path.
//   - A regular file (or none yet) is written to a temporary file beside it
//     and renamed into place once complete, so that readers never see half
//     of it. An existing file keeps its mode; a new one gets perm less the
//     umask.
//   - A symlink is followed, and its target is replaced in the same way.
//   - Anything else (/dev/null, /dev/stdout, a FIFO) is written to
//     directly: renaming over it would put a regular file in its place.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) error {
	s, err := Stage(path, perm, write)
	if err != nil {
		return err
	}
	return s.Commit()
}

// Staged is an output written but not yet in place: several files that
// belong together (a report and its charts) are all staged first, so that
// a failure in any leaves none of them behind.
type Staged struct {
	tmp, target string
	// through is set for a device or FIFO: it is written at Commit.
	through func(io.Writer) error
}

// Stage writes what write produces beside path, as Write does, but leaves
// it there until Commit (or Abort).
func Stage(path string, perm fs.FileMode, write func(io.Writer) error) (*Staged, error) {
	target, err := resolve(path)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(target)
	switch {
	case err == nil && info.IsDir():
		return nil, fmt.Errorf("%s is a directory", path)
	case err == nil && !info.Mode().IsRegular():
		return &Staged{target: target, through: write}, nil
	case err == nil:
		perm = info.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	tmp, err := stage(target, perm, err == nil, write)
	if err != nil {
		return nil, err
	}
	return &Staged{tmp: tmp, target: target}, nil
}

// Commit puts the staged file in place.
func (s *Staged) Commit() error {
	if s.through != nil {
		return writeThrough(s.target, s.through)
	}
	if err := os.Rename(s.tmp, s.target); err != nil {
		os.Remove(s.tmp)
		return err
	}
	return nil
}

// Abort removes the staged file, leaving the target as it was.
func (s *Staged) Abort() {
	if s.through == nil {
		os.Remove(s.tmp)
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

func writeThrough(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stage writes the temporary file beside path and returns its name.
func stage(path string, perm fs.FileMode, exists bool, write func(io.Writer) error) (name string, err error) {
	tmp, err := createTemp(path, perm)
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return "", err
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
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("%s: cannot create a temporary file beside it", path)
}
