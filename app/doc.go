// Package app wires Engram together: the memory service that the CLI, the
// loopback API and the desktop app all call, its authorization and its
// responses, the OS keyring, and the vault's location. It never imports
// Fyne.
//
// Every service call takes a Request naming the caller and returns a
// response with a Status. Expected failures (a locked vault, a memory that
// does not exist, a caller without the right) are statuses, not errors, and
// internal errors never reach an agent verbatim.
//
// With Options.Recall set, the service keeps a recall index (package
// app/recall) current on every write and answers Recall under the same
// read rules as Get. A write is indexed by keyword before it is answered;
// its vector follows in the background (embedqueue.go). The non-sensitive
// memories' vectors are kept in the vault so start-up does not embed them
// again.
package app
