package guard

import "errors"

var (
	// ErrBadPolicy is returned by New for a policy it cannot apply, such as
	// an unknown PII mode or a negative field limit.
	ErrBadPolicy = errors.New("guard: invalid policy")

	// ErrBadModel is returned by New when the embedded injection model
	// cannot be decoded. It indicates a broken build, not bad input.
	ErrBadModel = errors.New("guard: invalid injection model")
)
