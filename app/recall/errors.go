package recall

import "errors"

var (
	// ErrNoEmbedder is returned for a semantic query to an engine without
	// an embedder.
	ErrNoEmbedder = errors.New("no embedder configured")
	// ErrMode is returned for an unknown search mode.
	ErrMode = errors.New("unknown search mode")
	// ErrVector is returned for a vector blob that cannot be decoded or
	// a vector of the wrong dimension.
	ErrVector = errors.New("bad vector")
)
