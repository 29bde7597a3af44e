package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/engram-app/engram/vault"
)

// PassphraseFunc asks for the passphrase. It returns ErrNoPassphrase when
// it cannot ask (no terminal, nothing configured).
type PassphraseFunc func(prompt string) ([]byte, error)

// UnlockResult says how a vault was unlocked, or why the keyring was not used.
type UnlockResult struct {
	FromKeyring bool
	// KeyringErr is set when the keyring could not be used; the caller
	// tells the user why they were asked for the passphrase.
	KeyringErr error
	// Remembered is set when the key was saved to the keyring.
	Remembered bool
}

// Unlock unlocks v: first with a key from ks, then with a passphrase from
// ask. After a passphrase unlock the derived key is saved to ks when
// remember is set. A stale key in the keyring (the passphrase was changed
// elsewhere) is deleted and the passphrase asked for. A wrong passphrase
// returns an error wrapping vault.ErrWrongPassphrase.
func Unlock(ctx context.Context, v *vault.Vault, ks KeyStore, ask PassphraseFunc, remember bool) (UnlockResult, error) {
	var res UnlockResult
	if !v.Locked() {
		return res, nil
	}
	key, err := ks.Get(v.ID())
	usable := err == nil || errors.Is(err, ErrNoKey)
	switch {
	case err == nil:
		uerr := v.UnlockWithKey(key)
		clear(key)
		if uerr == nil {
			res.FromKeyring = true
			return res, nil
		}
		_ = ks.Delete(v.ID())
		res.KeyringErr = errors.New("the key in the OS keyring is out of date")
	case errors.Is(err, ErrNoKey):
		// Nothing stored yet: ask, then remember.
	default:
		res.KeyringErr = err
	}
	pass, err := ask("Passphrase for the Engram vault: ")
	if err != nil {
		return res, fmt.Errorf("unlock: %w", err)
	}
	defer clear(pass)
	if err := v.Unlock(ctx, pass); err != nil {
		return res, err
	}
	if remember && usable {
		res.Remembered = Remember(v, ks) == nil
	}
	return res, nil
}

// Remember saves v's derived key in ks. v must be unlocked.
func Remember(v *vault.Vault, ks KeyStore) error {
	key, err := v.UnlockKey()
	if err != nil {
		return err
	}
	defer clear(key)
	return ks.Set(v.ID(), key)
}

// StrengthHint returns a sentence about a weak passphrase, or "".
func StrengthHint(p []byte) string {
	n := len([]rune(string(p)))
	switch {
	case n < 8:
		return "this passphrase is short: anyone with the vault file can guess it quickly. Four or more random words are better."
	case n < 14:
		return "a longer passphrase (four or more random words) would be stronger."
	}
	return ""
}
