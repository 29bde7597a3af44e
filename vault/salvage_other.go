//go:build !unix

package vault

import "os"

// lockShared is a no-op where bbolt's lock is not a flock: salvage then
// relies on the user closing Engram first, as the doctor's message says.
func lockShared(*os.File) error { return nil }
