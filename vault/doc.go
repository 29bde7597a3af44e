// Package vault is Engram's storage: one bbolt file holding memories in
// partitions, their versions and provenance, and a hash-chained audit log.
// It is the only package that touches bbolt, AES-GCM, Argon2id or the
// backup format.
//
// A Vault is opened locked. Public and internal memories are readable at
// once; sensitive memories are sealed with a random data key that only
// Unlock (with the passphrase) or UnlockWithKey (with the derived key kept
// in the OS keyring) makes available. Lock wipes the keys from memory.
//
// Every change goes through Add, Update, Rollback or Delete, each one bbolt
// transaction that writes the record, a version snapshot and an audit
// entry together: a crash leaves all three or none.
//
// See DESIGN.md beside this file for the format, the keys, the write
// ordering and the threat model.
package vault
