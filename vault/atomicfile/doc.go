// Package atomicfile replaces a file so that a crash, a full disk or a
// failed write leaves either the old file or the complete new one under
// its name, never half of one.
//
// The contract of Write and WriteFile, in this order:
//
//  1. The new content is written to a temporary file in the target's own
//     directory (a rename is atomic only within one file system), named
//     .tmp-NAME-RANDOM: hidden, and beginning with TempPrefix, so that a
//     reader of the directory, or a sync engine told to skip TempPrefix*,
//     never takes it for the file itself.
//  2. The temporary file gets the mode asked for before any byte is in
//     it, so that a secret is never readable by others, not even while
//     it is being written.
//  3. It is fsynced and closed; any error so far removes it and leaves the
//     target as it was.
//  4. It is renamed over the target: from here on the target's name holds
//     the new content.
//  5. The directory is fsynced, so that the rename itself survives a
//     crash (SyncDir; a no-op on Windows, which cannot sync a directory).
//
// The target's directory must exist: nothing here creates it. A symbolic
// link at the target's name is replaced by the file, not followed; a
// caller that wants to keep the link resolves it first.
package atomicfile
