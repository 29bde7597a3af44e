package mcppeer

import "errors"

// ErrUnavailable means the reference server could not be run here (no
// npx, or npx could not fetch or start the package). Callers report the
// comparison as skipped rather than failed.
var ErrUnavailable = errors.New("reference server unavailable")
