//go:build !unix

package hooks

import "os"

// tryLock is a no-op where flock is not available: concurrent hooks of
// one session are rare there, and a duplicate capture merges.
func tryLock(*os.File) bool { return true }

// vaultHeld cannot tell without flock: a hook does not wait for a
// starting Engram there.
func vaultHeld(string) bool { return false }
