package app

import "errors"

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
