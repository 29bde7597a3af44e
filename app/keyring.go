package app

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/zalando/go-keyring"
)

// KeyStore keeps a vault's derived key so the user is not asked for the
// passphrase every time. Get returns ErrNoKey when nothing is stored and an
// error wrapping ErrKeyringUnavailable when the store cannot be reached.
type KeyStore interface {
	Get(vaultID string) ([]byte, error)
	Set(vaultID string, key []byte) error
	Delete(vaultID string) error
}

// keyringService is the service name of Engram's OS keyring entries.
const keyringService = "engram"

// OSKeyring stores keys in the OS keyring (Secret Service on Linux,
// Keychain on macOS, Credential Manager on Windows).
type OSKeyring struct{}

func keyringUser(vaultID string) string { return "vault-key:" + vaultID }

// Get returns the stored key for vaultID.
func (OSKeyring) Get(vaultID string) ([]byte, error) {
	if err := sessionBus(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKeyringUnavailable, err)
	}
	s, err := keyring.Get(keyringService, keyringUser(vaultID))
	if err != nil {
		return nil, keyringErr(err)
	}
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(key) != 32 {
		// Garbage in the keyring is the same as no key: ask for the passphrase.
		return nil, fmt.Errorf("%w: the stored entry is not a key", ErrNoKey)
	}
	return key, nil
}

// Set stores key for vaultID.
func (OSKeyring) Set(vaultID string, key []byte) error {
	if err := sessionBus(); err != nil {
		return fmt.Errorf("%w: %v", ErrKeyringUnavailable, err)
	}
	return keyringErr(keyring.Set(keyringService, keyringUser(vaultID), base64.StdEncoding.EncodeToString(key)))
}

// Delete removes the key for vaultID; deleting a missing key is not an error.
func (OSKeyring) Delete(vaultID string) error {
	if err := sessionBus(); err != nil {
		return fmt.Errorf("%w: %v", ErrKeyringUnavailable, err)
	}
	err := keyringErr(keyring.Delete(keyringService, keyringUser(vaultID)))
	if errors.Is(err, ErrNoKey) {
		return nil
	}
	return err
}

// keyringErr sorts go-keyring's errors: not found is ErrNoKey; anything else
// (an exec error when there is no D-Bus session, a locked collection, a
// missing secret service) means the keyring is unavailable.
func keyringErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keyring.ErrNotFound):
		return ErrNoKey
	}
	return fmt.Errorf("%w: %v", ErrKeyringUnavailable, err)
}

// NoKeyring is a KeyStore that is always unavailable, for users who chose
// not to remember the key.
type NoKeyring struct{ Reason string }

func (n NoKeyring) err() error { return fmt.Errorf("%w: %s", ErrKeyringUnavailable, n.Reason) }

// Get always fails.
func (n NoKeyring) Get(string) ([]byte, error) { return nil, n.err() }

// Set always fails.
func (n NoKeyring) Set(string, []byte) error { return n.err() }

// Delete does nothing.
func (n NoKeyring) Delete(string) error { return nil }

// OSSecrets keeps named secrets other than vault keys (the agent tokens
// that engram connect creates) in the OS keyring, under Engram's service
// name. Get returns ErrNoKey when nothing is stored under name and an
// error wrapping ErrKeyringUnavailable when the keyring cannot be reached.
type OSSecrets struct{}

// Get returns the secret stored under name.
func (OSSecrets) Get(name string) (string, error) {
	if err := sessionBus(); err != nil {
		return "", fmt.Errorf("%w: %v", ErrKeyringUnavailable, err)
	}
	s, err := keyring.Get(keyringService, name)
	if err != nil {
		return "", keyringErr(err)
	}
	return s, nil
}

// Set stores secret under name.
func (OSSecrets) Set(name, secret string) error {
	if err := sessionBus(); err != nil {
		return fmt.Errorf("%w: %v", ErrKeyringUnavailable, err)
	}
	return keyringErr(keyring.Set(keyringService, name, secret))
}

// Delete removes the secret under name; deleting a missing one is not an error.
func (OSSecrets) Delete(name string) error {
	if err := sessionBus(); err != nil {
		return fmt.Errorf("%w: %v", ErrKeyringUnavailable, err)
	}
	err := keyringErr(keyring.Delete(keyringService, name))
	if errors.Is(err, ErrNoKey) {
		return nil
	}
	return err
}
