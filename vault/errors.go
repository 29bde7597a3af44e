package vault

import "errors"

// Errors returned by the vault. Callers test them with errors.Is; the
// memory service maps them to response statuses in one place.
var (
	// ErrInUse is returned by Open when another process holds the vault.
	ErrInUse = errors.New("vault in use by another process")
	// ErrNotFound is returned for a vault file, memory or version that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists is returned by Create when the vault file already exists,
	// and by writes whose id is already taken.
	ErrExists = errors.New("already exists")
	// ErrLocked is returned for sensitive data while the vault is locked.
	ErrLocked = errors.New("vault is locked")
	// ErrWrongPassphrase is returned when a passphrase or stored key does not
	// unwrap the data key. Nothing is written.
	ErrWrongPassphrase = errors.New("wrong passphrase")
	// ErrAuth is the one opaque error for ciphertext or a header that fails
	// authentication. The wrapping error names the record, never its content.
	ErrAuth = errors.New("authentication failed")
	// ErrCorrupt is returned for stored bytes that cannot be decoded.
	ErrCorrupt = errors.New("vault data is damaged")
	// ErrFormat is returned for a vault or record written by a newer Engram.
	ErrFormat = errors.New("unsupported format version")
	// ErrInvalid is returned for a memory or request that breaks the model's rules.
	ErrInvalid = errors.New("invalid")
	// ErrConflict is returned when a write is based on a stale version.
	ErrConflict = errors.New("conflict")
	// ErrReadOnly is returned for writes to a vault opened read-only.
	ErrReadOnly = errors.New("vault opened read-only")
	// ErrBackup is returned for a backup file that is damaged, truncated or
	// was encrypted with another passphrase.
	ErrBackup = errors.New("backup cannot be read")
)
