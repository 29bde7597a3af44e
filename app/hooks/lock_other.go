//go:build !unix

package hooks

import "os"

// tryLock is a no-op where flock is not available: concurrent hooks of
// one session are rare there, and a duplicate capture merges.
func tryLock(*os.File) bool { return true }
