package connect

import "errors"

var (
	// ErrUnknownClient is returned for a client name that is not in Clients.
	ErrUnknownClient = errors.New("unknown client")
	// ErrSyntax is returned when a client's file cannot be read as its
	// format (JSON with comments, or TOML); the file is left alone.
	ErrSyntax = errors.New("cannot read the client's configuration")
	// ErrNoToken is returned by Tokens.Load when no token is stored for an agent.
	ErrNoToken = errors.New("no token stored for this agent")
	// ErrChanged is returned when the client's file kept changing while
	// Engram wrote it (the client rewrites it itself); nothing was written.
	ErrChanged = errors.New("the file changed while Engram was writing it")
)

// ErrTooLarge is returned for a client's file larger than MaxFileSize;
// the file is left alone.
var ErrTooLarge = errors.New("the client's configuration is too large")
