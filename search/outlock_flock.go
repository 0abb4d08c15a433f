//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package search

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile is the file in a result directory that a run holds locked
// while it writes there.
const lockFile = ".macemc.lock"

// lockOut takes the result directory dir for this run: a second run that
// writes to dir at the same time would leave one run's report beside the
// other's traces. It fails with an error wrapping ErrOutput when another
// run holds dir; release gives it back (the lock also ends with the
// process).
func lockOut(dir string) (release func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOutput, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is in use by another run, whose results would mix with this one's: give another --out, or wait for it", ErrOutput, dir)
		}
		return nil, fmt.Errorf("%w: lock %s: %w", ErrOutput, dir, err)
	}
	return func() { f.Close() }, nil
}
