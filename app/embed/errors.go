package embed

import "errors"

// Sentinel errors. Functions wrap them with the operation and, where it
// helps, a file name; test with errors.Is. Errors never contain the text
// being embedded.
var (
	// ErrModelNotFound: the model directory or one of its files is absent.
	// Run fetch-model.sh to install the model.
	ErrModelNotFound = errors.New("embed: model not found")

	// ErrModelCorrupt: a model file is present but malformed (truncated
	// shard, bad JSON, non-finite weights, wrong shapes).
	ErrModelCorrupt = errors.New("embed: model files corrupt")

	// ErrUnsupportedModel: the files are well formed but describe a model
	// this package cannot run (unknown weight names, quantised weights).
	ErrUnsupportedModel = errors.New("embed: unsupported model")

	// ErrNotLoopback: an HTTP embedding endpoint is not on the local
	// machine. Memories must not leave the host to be embedded.
	ErrNotLoopback = errors.New("embed: endpoint is not a loopback address")

	// ErrEndpoint: the HTTP embedding endpoint failed or answered with
	// something that is not a valid embeddings response.
	ErrEndpoint = errors.New("embed: embedding endpoint failed")

	// ErrDimension: vectors of different lengths were compared or an
	// endpoint returned vectors of inconsistent length.
	ErrDimension = errors.New("embed: dimension mismatch")
)
