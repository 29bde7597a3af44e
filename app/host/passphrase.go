package host

import (
	"context"
	"errors"

	"github.com/engram-app/engram/app"
)

// ChangePassphrase re-wraps the vault's data key under newPass once
// oldPass is found right (records are not re-encrypted), as 'engram
// passphrase change' does. The keyring is kept in step: a key kept there
// is replaced by the new one, or deleted if that fails, and keyringErr
// says so; a keyring that held nothing is left so. A wrong oldPass
// returns an error wrapping app.ErrWrongPassphrase and changes nothing.
// The vault stays unlocked.
func (h *Host) ChangePassphrase(ctx context.Context, oldPass, newPass []byte) (keyringErr, err error) {
	if len(newPass) == 0 {
		return nil, errors.New("the new passphrase is empty")
	}
	key, kerr := h.cfg.KeyStore.Get(h.v.ID())
	clear(key)
	kept := kerr == nil
	if err := h.v.ChangePassphrase(ctx, oldPass, newPass); err != nil {
		return nil, err
	}
	if !kept {
		return nil, nil
	}
	if err := app.Remember(h.v, h.cfg.KeyStore); err != nil {
		_ = h.cfg.KeyStore.Delete(h.v.ID())
		return err, nil
	}
	return nil, nil
}
