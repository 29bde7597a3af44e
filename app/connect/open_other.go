//go:build !unix

package connect

import "os"

// openFlags opens a client's file for reading.
const openFlags = os.O_RDONLY
