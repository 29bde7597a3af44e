package hooks

import "errors"

var (
	// ErrUnknownEvent is returned for an event name Run does not answer.
	ErrUnknownEvent = errors.New("unknown hook event")
	// ErrUnavailable wraps a failure to reach the running Engram (not
	// running, starting, or not answering in time).
	ErrUnavailable = errors.New("engram is not reachable")
)
