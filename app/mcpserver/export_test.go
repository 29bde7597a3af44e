package mcpserver

// NewLocal is newLocal, for the external tests' benchmarks.
var NewLocal = newLocal
