//go:build !linux

package embed

// release does nothing where madvise is not at hand: the pages stay
// resident until the system needs them.
func release([]byte) {}
