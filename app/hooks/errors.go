package hooks

import "errors"

var (
	// ErrUnknownEvent is returned for an event name Run does not answer.
	ErrUnknownEvent = errors.New("unknown hook event")
	// ErrUnknownClient is returned for a client whose hooks Engram does
	// not speak (ParseFormat).
	ErrUnknownClient = errors.New("unknown hook client")
	// ErrUnavailable wraps a failure to reach the running Engram (not
	// running, starting, or not answering in time).
	ErrUnavailable = errors.New("engram is not reachable")
)
