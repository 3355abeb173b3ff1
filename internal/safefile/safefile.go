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
	target, err := resolve(path)
	if err != nil {
		return err
	}
	info, err := os.Stat(target)
	switch {
	case err == nil && info.IsDir():
		return fmt.Errorf("%s is a directory", path)
	case err == nil && !info.Mode().IsRegular():
		return writeThrough(target, write)
	case err == nil:
		perm = info.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return replace(target, perm, err == nil, write)
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

func replace(path string, perm fs.FileMode, exists bool, write func(io.Writer) error) (err error) {
	tmp, err := createTemp(path, perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if exists {
		// The umask applied at creation; an existing file's mode is the
		// user's choice and is kept exactly.
		if err := tmp.Chmod(perm); err != nil {
			return err
		}
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
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
