package vault_test

import (
	"errors"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestFingerprint: the audit's fingerprint of text is keyed by the vault,
// stable for one vault, different in another, the same as a sensitive
// memory's audited content hash, and never a plain hash while locked.
func TestFingerprint(t *testing.T) {
	const phone = "Alice's phone is 555-0100"
	v, _ := vaulttest.New(t)
	other, _ := vaulttest.New(t)

	fp, err := v.Fingerprint(phone)
	if err != nil || !vault.IsFingerprint(fp) {
		t.Fatalf("Fingerprint = %q, %v; want hmac: and 64 hex digits", fp, err)
	}
	if plain := vault.HashContent(phone); fp == plain || fp == "hmac:"+plain {
		t.Fatalf("Fingerprint = %q is the plain SHA-256 of the text", fp)
	}
	if again, _ := v.Fingerprint(phone); again != fp {
		t.Fatalf("Fingerprint twice = %q then %q, want the same", fp, again)
	}
	if fo, _ := other.Fingerprint(phone); fo == fp || !vault.IsFingerprint(fo) {
		t.Fatalf("Fingerprint in another vault = %q, want another keyed value than %q", fo, fp)
	}
	if f2, _ := v.Fingerprint(phone + " "); f2 == fp {
		t.Fatal("two texts have one fingerprint")
	}
	// A sensitive memory's write is audited with the same fingerprint.
	m := mustAdd(t, v, vault.Sensitive, phone)
	log, _ := v.AuditLog(vault.AuditFilter{Action: vault.ActionWrite})
	if len(log) != 1 || log[0].MemoryID != m.ID || log[0].ContentHash != fp {
		t.Fatalf("sensitive write audited as %+v, want content hash %s", log, fp)
	}

	v = reopen(t, v)
	if got, err := v.Fingerprint(phone); got != "" || !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("Fingerprint while locked = %q, %v; want \"\" and ErrLocked", got, err)
	}
	if err := v.Unlock(ctx, []byte(vaulttest.Passphrase)); err != nil {
		t.Fatal(err)
	}
	if got, _ := v.Fingerprint(phone); got != fp {
		t.Fatalf("Fingerprint after reopening = %q, want %q", got, fp)
	}
}

func TestIsFingerprint(t *testing.T) {
	hex64 := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"hmac:" + hex64, true},
		{hex64, false},
		{"hmac:" + hex64[:63], false},
		{"hmac:" + hex64 + "0", false},
		{"hmac:" + hex64[:63] + "G", false},
		{"HMAC:" + hex64, false},
		{"", false},
	} {
		if got := vault.IsFingerprint(tc.s); got != tc.want {
			t.Errorf("IsFingerprint(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// TestGivenEntriesHoldOnlyKeyedHashes: an entry the service hands the
// vault (Audit, QueuePut, QueueDelete) keeps a content hash only when it
// is a keyed fingerprint; a plain SHA-256 of the text is left out.
func TestGivenEntriesHoldOnlyKeyedHashes(t *testing.T) {
	const text = "call me on 555-0100"
	v, _ := vaulttest.New(t)
	fp, err := v.Fingerprint(text)
	if err != nil {
		t.Fatal(err)
	}
	plain := vault.HashContent(text)
	const queueID = "7c1f8e2a-5b1d-4e7b-9a51-0d4c2f7e9b10"
	put := func(e vault.AuditEntry) error { return v.QueuePut(queueID, []byte(`{}`), false, e) }
	del := func(e vault.AuditEntry) error { return v.QueueDelete(queueID, e) }
	tests := []struct {
		name       string
		do         func(e vault.AuditEntry) error
		hash, want string
	}{
		{"Audit, plain hash", v.Audit, plain, ""},
		{"Audit, malformed fingerprint", v.Audit, "hmac:" + plain[:10], ""},
		{"Audit, fingerprint", v.Audit, fp, fp},
		{"QueuePut, plain hash", put, plain, ""},
		{"QueueDelete, plain hash", del, plain, ""},
	}
	for _, tc := range tests {
		if err := tc.do(vault.AuditEntry{Action: vault.ActionReject, Agent: "claude-code", ContentHash: tc.hash, Result: vault.ResultRejected}); err != nil {
			t.Fatalf("%s = %v", tc.name, err)
		}
		log, _ := v.AuditLog(vault.AuditFilter{Last: 1})
		if len(log) != 1 || log[0].ContentHash != tc.want {
			t.Errorf("%s: logged %+v, want content hash %q", tc.name, log, tc.want)
		}
	}
}
