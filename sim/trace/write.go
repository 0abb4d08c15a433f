package trace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotRegular marks a path that is not a regular file where one is
// needed: WriteAtomic replaces only regular files (never a symlink, a
// device, a FIFO, a socket or a directory), and Read reads only them.
var ErrNotRegular = errors.New("not a regular file")

// fileType names what a non-regular file is, for error messages.
func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// CheckReplaceable reports whether path can be replaced by a result file:
// it does not exist, or it is a regular file. Anything else (a symlink,
// a device such as /dev/null, a FIFO, a socket, a directory) is refused
// with an error wrapping ErrNotRegular: replacing it would destroy what
// the user put there, or write somewhere they did not mean.
func CheckReplaceable(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("write %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("write %s: refusing to replace %s: %w", path, fileType(fi.Mode()), ErrNotRegular)
	}
	return nil
}

// ErrIsTrace marks an output path that holds a macemc trace, which a log,
// a graph or a page is never written over (CheckNotTrace).
var ErrIsTrace = errors.New("trace: the file is a macemc trace")

// CheckNotTrace returns an error wrapping ErrIsTrace when path is a
// regular file that starts as a trace does: the evidence a log or a
// picture of it would replace (`replay --trace T --log T`). Other files,
// and paths that do not exist, pass.
func CheckNotTrace(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // not there, or not readable: the writer says
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	head := make([]byte, len(magic))
	if n, _ := io.ReadFull(f, head); n == len(magic) && string(head) == magic {
		return fmt.Errorf("write %s: refusing to replace it: %w (give another file name)", path, ErrIsTrace)
	}
	return nil
}

// WriteAtomic writes a file through a temporary file in the same directory
// and renames it into place, so a reader never sees half of it. It only
// replaces a regular file: an existing symlink, device, FIFO, socket or
// directory at path is refused with ErrNotRegular (see CheckReplaceable),
// before anything is written.
func WriteAtomic(path string, write func(io.Writer) error) error {
	if err := CheckReplaceable(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	// CreateTemp makes the file private (0600); results are ordinary files.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Clean up in a deferred function, so that a write callback that
	// panics does not leave the temporary file behind either.
	closed, renamed := false, false
	defer func() {
		if !closed {
			f.Close()
		}
		if !renamed {
			os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	closed = true
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Check again just before the rename: something may have been put
	// there while the file was written.
	if err := CheckReplaceable(path); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	renamed = true
	return nil
}
