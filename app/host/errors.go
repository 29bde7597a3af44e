package host

import "errors"

var (
	// ErrNoVault is returned by Open when the data directory has no vault
	// yet; the caller offers to create one.
	ErrNoVault = errors.New("no vault yet")
	// ErrInvalidSettings wraps every settings validation failure.
	ErrInvalidSettings = errors.New("invalid settings")
	// ErrNoBackupPassphrase is returned when an export has no passphrase
	// from the caller, the environment or the keyring.
	ErrNoBackupPassphrase = errors.New("no backup passphrase set")
)
