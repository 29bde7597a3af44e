package app_test

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault/vaulttest"
	"github.com/zalando/go-keyring"
)

// memKeys is an in-memory KeyStore for unit tests.
type memKeys struct {
	keys map[string][]byte
	down error // when set, every call fails with it
}

func (m *memKeys) Get(id string) ([]byte, error) {
	if m.down != nil {
		return nil, m.down
	}
	k, ok := m.keys[id]
	if !ok {
		return nil, app.ErrNoKey
	}
	return append([]byte(nil), k...), nil
}

func (m *memKeys) Set(id string, k []byte) error {
	if m.down != nil {
		return m.down
	}
	m.keys[id] = append([]byte(nil), k...)
	return nil
}

func (m *memKeys) Delete(id string) error { delete(m.keys, id); return nil }

func askWith(pass string, asked *int) app.PassphraseFunc {
	return func(string) ([]byte, error) {
		*asked++
		if pass == "" {
			return nil, app.ErrNoPassphrase
		}
		return []byte(pass), nil
	}
}

func TestUnlock(t *testing.T) {
	unavailable := errors.Join(app.ErrKeyringUnavailable, errors.New("exec: dbus-launch not found"))
	tests := []struct {
		name         string
		stored       string // "", "good", "stale", "garbage"
		down         error
		pass         string
		wantErr      error
		wantAsked    int
		wantKeyring  bool
		wantRemember bool
		wantWhy      bool
	}{
		{"first time: ask, then remember", "", nil, vaulttest.Passphrase, nil, 1, false, true, false},
		{"remembered key: no question", "good", nil, "", nil, 0, true, false, false},
		{"stale key: ask, replace", "stale", nil, vaulttest.Passphrase, nil, 1, false, true, true},
		{"keyring down: ask, say why", "", unavailable, vaulttest.Passphrase, nil, 1, false, false, true},
		{"keyring down, no passphrase", "", unavailable, "", app.ErrNoPassphrase, 1, false, false, true},
		{"wrong passphrase", "", nil, "nope", nil, 1, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := vaulttest.New(t)
			good, _ := v.UnlockKey()
			v.Lock()
			ks := &memKeys{keys: map[string][]byte{}, down: tc.down}
			switch tc.stored {
			case "good":
				ks.keys[v.ID()] = good
			case "stale":
				ks.keys[v.ID()] = make([]byte, 32)
			}
			asked := 0
			res, err := app.Unlock(context.Background(), v, ks, askWith(tc.pass, &asked), true)
			if tc.pass == "nope" {
				if err == nil || !v.Locked() || len(ks.keys) != 0 {
					t.Fatalf("Unlock(wrong) = %v, locked=%v, stored=%d; want an error, locked, nothing stored", err, v.Locked(), len(ks.keys))
				}
				return
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Unlock = %v, want %v", err, tc.wantErr)
			}
			if asked != tc.wantAsked || res.FromKeyring != tc.wantKeyring || res.Remembered != tc.wantRemember || (res.KeyringErr != nil) != tc.wantWhy {
				t.Fatalf("Unlock: asked %d, result %+v; want asked %d keyring=%v remembered=%v why=%v", asked, res, tc.wantAsked, tc.wantKeyring, tc.wantRemember, tc.wantWhy)
			}
			if tc.wantErr == nil && v.Locked() {
				t.Fatal("vault still locked")
			}
			if tc.wantRemember && string(ks.keys[v.ID()]) != string(good) {
				t.Fatal("the remembered key is not the vault's key")
			}
		})
	}
}

// TestOSKeyring runs against the real Secret Service. .ci/run provides one
// (gnome-keyring in a private D-Bus session); without it, the keyring must
// report itself unavailable rather than not-found.
func TestOSKeyring(t *testing.T) {
	ks := app.OSKeyring{}
	id := "test-" + t.Name()
	if os.Getenv("ENGRAM_TEST_KEYRING") != "1" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must run inside .ci/with-keyring")
		}
		if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
			if _, err := ks.Get(id); !errors.Is(err, app.ErrKeyringUnavailable) {
				t.Fatalf("Get without a session bus = %v, want ErrKeyringUnavailable", err)
			}
		}
		t.Skip("no private keyring session; run under .ci/with-keyring")
	}
	t.Cleanup(func() { ks.Delete(id) })
	if _, err := ks.Get(id); !errors.Is(err, app.ErrNoKey) {
		t.Fatalf("Get(absent) = %v, want ErrNoKey", err)
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	if err := ks.Set(id, key); err != nil {
		t.Fatal(err)
	}
	got, err := ks.Get(id)
	if err != nil || string(got) != string(key) {
		t.Fatalf("Get = %q, %v; want the stored key", got, err)
	}
	if err := ks.Delete(id); err != nil {
		t.Fatal(err)
	}
	if err := ks.Delete(id); err != nil {
		t.Fatalf("Delete(absent) = %v, want nil", err)
	}
	if _, err := ks.Get(id); !errors.Is(err, app.ErrNoKey) {
		t.Fatalf("Get after Delete = %v, want ErrNoKey", err)
	}

	// Another program left garbage under the vault's entry: it counts as
	// no key, the passphrase unlocks, and the good key replaces it.
	v, _ := vaulttest.New(t)
	good, _ := v.UnlockKey()
	v.Lock()
	t.Cleanup(func() { ks.Delete(v.ID()) })
	for _, junk := range []string{"not base64 at all!", "c2hvcnQ=", strings.Repeat("A", 4000)} {
		if err := keyring.Set("engram", "vault-key:"+v.ID(), junk); err != nil {
			t.Fatal(err)
		}
		if _, err := ks.Get(v.ID()); !errors.Is(err, app.ErrNoKey) {
			t.Fatalf("Get(garbage %.20q) = %v, want ErrNoKey", junk, err)
		}
		asked := 0
		res, err := app.Unlock(context.Background(), v, ks, askWith(vaulttest.Passphrase, &asked), true)
		if err != nil || asked != 1 || res.FromKeyring || !res.Remembered || v.Locked() {
			t.Fatalf("Unlock over garbage %.20q = %+v, %v (asked %d); want the passphrase asked once and the key remembered", junk, res, err, asked)
		}
		if got, err := ks.Get(v.ID()); err != nil || string(got) != string(good) {
			t.Fatalf("after Unlock the keyring holds %x, %v; want the vault's key", got, err)
		}
		v.Lock()
	}
}

// TestOSKeyringWithoutSessionBus: with no session bus address and no user
// bus socket, the keyring is unavailable at once, and go-keyring is not
// asked (its D-Bus library would start a dbus-launch daemon that
// outlives the command).
func TestOSKeyringWithoutSessionBus(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Secret Service is reached over D-Bus on Linux")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	ks := app.OSKeyring{}
	_, err := ks.Get("any")
	if !errors.Is(err, app.ErrKeyringUnavailable) || !strings.Contains(err.Error(), "no D-Bus session bus") {
		t.Fatalf("Get = %v, want ErrKeyringUnavailable saying there is no session bus", err)
	}
	if err := ks.Set("any", make([]byte, 32)); !errors.Is(err, app.ErrKeyringUnavailable) {
		t.Fatalf("Set = %v, want ErrKeyringUnavailable", err)
	}
}
