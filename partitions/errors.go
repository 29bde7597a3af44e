package partitions

import "errors"

// ErrUnknownLevel is returned by ParseLevel for a name that is not a level.
var ErrUnknownLevel = errors.New("partitions: unknown level")
