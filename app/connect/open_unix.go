//go:build unix

package connect

import (
	"os"
	"syscall"
)

// openFlags opens a client's file for reading without waiting: a named
// pipe put in its place after it was checked does not hold the open until
// a writer comes (it is then refused as not a regular file).
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
