package decay

import "errors"

// Errors returned by [Policy.Validate] and [Record.Validate], always wrapped
// with the field at fault; test for them with errors.Is.
var (
	// ErrInvalidPolicy reports a Policy field out of its allowed range.
	ErrInvalidPolicy = errors.New("invalid decay policy")
	// ErrInvalidRecord reports a Record the rules cannot judge faithfully.
	ErrInvalidRecord = errors.New("invalid decay record")
)
