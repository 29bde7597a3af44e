//go:build unix

package hooks

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive advisory lock on f without waiting.
func tryLock(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// vaultHeld reports whether a process holds the vault file at path open
// for writing: bbolt takes an exclusive flock on it, so a shared one
// cannot be had.
func vaultHeld(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
