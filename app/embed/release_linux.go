package embed

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// release tells the kernel that the process is done with b, bytes the
// binary maps read-only from its file (the embedded model, once parsed):
// their pages leave the process's resident set, and are read from the
// file again should b ever be read. Only the pages wholly inside b are
// released.
func release(b []byte) {
	page := uintptr(unix.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	end := start + uintptr(len(b))
	first, last := (start+page-1)&^(page-1), end&^(page-1)
	if last <= first {
		return
	}
	_ = unix.Madvise(b[first-start:last-start], unix.MADV_DONTNEED)
}
