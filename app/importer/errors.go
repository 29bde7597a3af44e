package importer

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by every *SyntaxError.
var ErrMalformed = errors.New("malformed file")

// ErrFormat reports a format name Parse does not know.
var ErrFormat = errors.New("unknown import format")

// SyntaxError is a problem at a line of a file. Nothing of a file with a
// SyntaxError is imported.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s, line %d: %s", e.File, e.Line, e.Msg)
}

func (e *SyntaxError) Unwrap() error { return ErrMalformed }

// ErrTooLarge is wrapped when a file holds more than MaxFileSize bytes,
// whatever its size is said to be.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is wrapped when a path named for import leads to
// something other than a regular file: a named pipe, a device, a socket.
var ErrNotRegular = errors.New("not a regular file")
