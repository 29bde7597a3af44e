//go:build !unix

package importer

import "os"

// openFlags opens a file for reading.
const openFlags = os.O_RDONLY
