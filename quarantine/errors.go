package quarantine

import "errors"

var (
	// ErrTransition is returned for a state change the state machine forbids.
	ErrTransition = errors.New("transition not allowed")
	// ErrItem is returned for an item whose stored form cannot be decoded.
	ErrItem = errors.New("invalid quarantine item")
)
