//go:build !linux

package embed

// idleThread is a no-op where per-thread scheduling classes are not
// available: background work then runs at normal priority on one core.
func idleThread() error { return nil }
