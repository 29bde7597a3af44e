package vault_test

import (
	"context"
	"errors"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

func TestDeriveKey(t *testing.T) {
	v, _ := vaulttest.New(t)
	if _, err := v.DeriveKey("engram audit content hash v1"); !errors.Is(err, vault.ErrInvalid) {
		t.Fatalf("DeriveKey of the audit key's info: %v, want ErrInvalid", err)
	}
	a, err := v.DeriveKey("engram sync segment v1")
	if err != nil || len(a) != 32 {
		t.Fatalf("DeriveKey: %x, %v", a, err)
	}
	b, _ := v.DeriveKey("engram sync state v1")
	if string(a) == string(b) {
		t.Fatal("two purposes, one key")
	}
	v.Lock()
	if _, err := v.DeriveKey("engram sync segment v1"); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("DeriveKey while locked: %v, want ErrLocked", err)
	}
}

func TestJoinFromHeader(t *testing.T) {
	v, _ := vaulttest.New(t)
	hdr, err := v.Header()
	if err != nil {
		t.Fatal(err)
	}
	if id, err := vault.HeaderVaultID(hdr); err != nil || id != v.ID() {
		t.Fatalf("HeaderVaultID = %q, %v; want %q", id, err, v.ID())
	}
	path := t.TempDir() + "/joined.db"
	if _, err := vault.Join(context.Background(), path, hdr, []byte("wrong"), vault.Options{}); !errors.Is(err, vault.ErrWrongPassphrase) {
		t.Fatalf("Join with a wrong passphrase: %v", err)
	}
	bad := append([]byte(nil), hdr...)
	bad[len(bad)/2] ^= 1
	if _, err := vault.Join(context.Background(), path, bad, []byte(vaulttest.Passphrase), vault.Options{}); err == nil {
		t.Fatal("Join accepted a damaged header")
	}
	j, err := vault.Join(context.Background(), path, hdr, []byte(vaulttest.Passphrase), vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { j.Close(); vaulttest.Check(t, path) }()
	if j.ID() != v.ID() {
		t.Fatalf("joined id %s, want %s", j.ID(), v.ID())
	}
	a, _ := v.DeriveKey("engram sync segment v1")
	b, _ := j.DeriveKey("engram sync segment v1")
	if string(a) != string(b) {
		t.Fatal("the joined vault has another data key")
	}
	if _, err := vault.Join(context.Background(), path, hdr, []byte(vaulttest.Passphrase), vault.Options{}); !errors.Is(err, vault.ErrExists) {
		t.Fatalf("Join over an existing file: %v", err)
	}
}

func TestInsertReplicaAndBury(t *testing.T) {
	src, _ := vaulttest.New(t)
	m, err := src.Add(vaulttest.Memory(vault.Internal, "replicated fact"), vault.Actor{})
	if err != nil {
		t.Fatal(err)
	}
	m, vers, err := src.Replica(m.ID)
	if err != nil || len(vers) != 1 {
		t.Fatalf("Replica: %d versions, %v", len(vers), err)
	}
	dst, _ := vaulttest.New(t)
	forged := m
	forged.Content = "changed without its hash"
	tests := []struct {
		name string
		m    vault.Memory
		vers []vault.Version
		want error
	}{
		{"a content that does not match its hash", forged, vers, vault.ErrInvalid},
		{"no versions", m, nil, vault.ErrInvalid},
		{"as it is", m, vers, nil},
		{"twice", m, vers, vault.ErrExists},
	}
	for _, tc := range tests {
		if err := dst.InsertReplica(tc.m, tc.vers, vault.Actor{Agent: "sync:test"}); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Fatalf("%s: InsertReplica = %v, want %v", tc.name, err, tc.want)
		}
	}
	got, err := dst.Peek(m.ID)
	if err != nil || got.Content != m.Content || got.Version != m.Version {
		t.Fatalf("inserted: %+v, %v", got, err)
	}
	if removed, err := dst.Bury(m.ID, vault.ActionPurge, "SYNC", vault.Actor{Agent: "sync:test"}); err != nil || !removed {
		t.Fatalf("Bury: %v, %v", removed, err)
	}
	if err := dst.InsertReplica(m, vers, vault.Actor{}); !errors.Is(err, vault.ErrForgotten) {
		t.Fatalf("InsertReplica of a buried memory: %v, want ErrForgotten", err)
	}
	// A removal that arrives before its memory leaves a tombstone that
	// keeps the memory out.
	other, _ := src.Add(vaulttest.Memory(vault.Internal, "removed before it arrived"), vault.Actor{})
	other, overs, _ := src.Replica(other.ID)
	if removed, err := dst.Bury(other.ID, vault.ActionDelete, "SYNC", vault.Actor{}); err != nil || removed {
		t.Fatalf("Bury of an absent memory: %v, %v", removed, err)
	}
	if err := dst.InsertReplica(other, overs, vault.Actor{}); !errors.Is(err, vault.ErrForgotten) {
		t.Fatalf("InsertReplica after its tombstone: %v, want ErrForgotten", err)
	}
	if _, err := dst.Bury(other.ID, vault.ActionUpdate, "", vault.Actor{}); !errors.Is(err, vault.ErrInvalid) {
		t.Fatalf("Bury with an update: %v", err)
	}
}

func TestSyncState(t *testing.T) {
	v, _ := vaulttest.New(t)
	if _, err := v.SyncGet("self"); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("SyncGet before any: %v", err)
	}
	if err := v.SyncPut(map[string][]byte{"m/a": []byte(`{"rid":"1"}`), "m/b": []byte(`{"rid":"2"}`), "self": []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := v.SyncPut(map[string][]byte{"bad": []byte(`{not json`)}); !errors.Is(err, vault.ErrInvalid) {
		t.Fatalf("SyncPut of bad JSON: %v", err)
	}
	var keys []string
	if err := v.SyncEach("m/", func(k string, _ []byte) error { keys = append(keys, k); return nil }); err != nil || len(keys) != 2 || keys[0] != "m/a" {
		t.Fatalf("SyncEach: %v, %v", keys, err)
	}
	if err := v.SyncPut(map[string][]byte{"m/a": nil}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.SyncGet("m/a"); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("SyncGet of a deleted key: %v", err)
	}
	if !v.ScrubPending() {
		t.Fatal("a deleted sync state is not scrubbed")
	}
	v.Lock()
	if _, err := v.SyncGet("m/b"); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("SyncGet while locked: %v", err)
	}
}
