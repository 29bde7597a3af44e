package app

import (
	"errors"

	"github.com/engram-app/engram/vault"
)

var (
	// ErrNoKey is returned by a KeyStore that holds no key for the vault.
	ErrNoKey = errors.New("no key stored")
	// ErrKeyringUnavailable is returned when the OS keyring cannot be
	// reached (no D-Bus session, no secret service, locked collection).
	ErrKeyringUnavailable = errors.New("OS keyring unavailable")
	// ErrNoPassphrase is returned when a passphrase is needed and none can
	// be had: no terminal, no ENGRAM_PASSPHRASE, no passphrase file.
	ErrNoPassphrase = errors.New("no passphrase available")
)

// Vault errors the desktop app tells apart, re-exported so that it need
// not import the vault package.
var (
	// ErrInUse: another Engram process has the vault open.
	ErrInUse = vault.ErrInUse
	// ErrWrongPassphrase: the passphrase does not open the vault.
	ErrWrongPassphrase = vault.ErrWrongPassphrase
	// ErrDamaged lists the errors of a damaged or foreign file.
	ErrDamaged = []error{vault.ErrCorrupt, vault.ErrFormat, vault.ErrAuth}
)
