//go:build unix

package vault

import (
	"errors"
	"os"
	"syscall"
)

// lockShared takes a shared lock on the vault file, as bbolt does for a
// read-only open, so salvage does not read a file that a running Engram is
// writing. The lock ends when f is closed.
func lockShared(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrInUse
	}
	return nil // a file system without locks: read anyway, salvage never writes
}
