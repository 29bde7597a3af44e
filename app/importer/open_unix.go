//go:build unix

package importer

import (
	"os"
	"syscall"
)

// openFlags opens a file for reading without waiting: a named pipe put in
// a file's place after it was checked does not hold the open until a
// writer comes (it is then refused as not a regular file).
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
