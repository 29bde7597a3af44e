package host

import (
	"context"
	"fmt"

	"github.com/engram-app/engram/app"
)

// The engram commands forwarded to a running Engram (Config.Commands)
// unlock it as the command line unlocks a vault (app.Unlock: the OS
// keyring, then a passphrase), through these two methods, so that the
// app's state follows: the window opens, the auto-lock starts counting
// again.

// CommandKeyStore is the key store a forwarded command unlocks with: the
// host's own, except that after the user locked this Engram (Lock) it
// yields no key, so that only the passphrase unlocks it again, as in the
// app (TryKeyring). Set and Delete reach the host's store.
func (h *Host) CommandKeyStore() app.KeyStore { return commandKeys{h} }

type commandKeys struct{ h *Host }

func (k commandKeys) Get(id string) ([]byte, error) {
	k.h.mu.Lock()
	userLocked := k.h.userLocked
	k.h.mu.Unlock()
	if userLocked {
		return nil, fmt.Errorf("%w: Engram was locked; its passphrase unlocks it again", app.ErrKeyringUnavailable)
	}
	return k.h.cfg.KeyStore.Get(id)
}

func (k commandKeys) Set(id string, key []byte) error { return k.h.cfg.KeyStore.Set(id, key) }
func (k commandKeys) Delete(id string) error          { return k.h.cfg.KeyStore.Delete(id) }

// UnlockWith unlocks this Engram with app.Unlock (a key from ks, then a
// passphrase from ask, remembered in ks when remember is set) and, when
// that unlocked it, tells the app (an Event with Lock set). It reports
// whether this call unlocked it; a wrong passphrase returns an error
// wrapping vault.ErrWrongPassphrase and changes nothing.
func (h *Host) UnlockWith(ctx context.Context, ks app.KeyStore, ask app.PassphraseFunc, remember bool) (app.UnlockResult, bool, error) {
	if !h.v.Locked() {
		return app.UnlockResult{}, false, nil
	}
	res, err := app.Unlock(ctx, h.v, ks, ask, remember)
	if err != nil || h.v.Locked() {
		return res, false, err
	}
	h.unlocked()
	return res, true, nil
}
