package vault_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

func TestVectors(t *testing.T) {
	v, _ := vaulttest.New(t)
	pub := mustAdd(t, v, vault.Public, "tabs, not spaces")
	moved := mustAdd(t, v, vault.Internal, "will become sensitive")
	gone := mustAdd(t, v, vault.Internal, "will be deleted")
	sens := mustAdd(t, v, vault.Sensitive, "phone 555-0100")

	puts := []struct {
		name string
		id   string
		want error
	}{
		{"public", pub.ID, nil},
		{"internal", moved.ID, nil},
		{"to delete", gone.ID, nil},
		{"sensitive refused", sens.ID, vault.ErrInvalid},
		{"unknown id", "5b0e7c1e-0000-4000-8000-000000000000", vault.ErrNotFound},
	}
	for _, tc := range puts {
		t.Run(tc.name, func(t *testing.T) {
			err := v.PutVectors(map[string][]byte{tc.id: []byte("blob:" + tc.id)})
			if !errors.Is(err, tc.want) {
				t.Fatalf("PutVectors(%q) = %v, want %v", tc.id, err, tc.want)
			}
		})
	}
	if _, err := v.Update(moved.ID, vault.OpReclassify, operator, func(m *vault.Memory) error { m.Partition = vault.Sensitive; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := v.Delete(gone.ID, operator); err != nil {
		t.Fatal(err)
	}

	var ids []string
	stale, err := v.Vectors(func(id string, blob []byte) error {
		if string(blob) != "blob:"+id {
			t.Errorf("Vectors: blob of %s = %q", id, blob)
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(stale)
	// A deleted memory's vector goes with it (no byte of it may stay);
	// one that became sensitive is stale until the service drops it.
	wantStale := []string{moved.ID}
	slices.Sort(wantStale)
	if !slices.Equal(ids, []string{pub.ID}) || !slices.Equal(stale, wantStale) {
		t.Fatalf("Vectors = %v, stale %v; want [%s], stale %v", ids, stale, pub.ID, wantStale)
	}
	if err := v.DeleteVectors(stale...); err != nil {
		t.Fatal(err)
	}
	stale, err = v.Vectors(func(string, []byte) error { return nil })
	if err != nil || len(stale) != 0 {
		t.Fatalf("Vectors after DeleteVectors: stale %v, err %v; want none", stale, err)
	}
}

func TestVectorsEmptyVault(t *testing.T) {
	v, _ := vaulttest.New(t)
	n := 0
	stale, err := v.Vectors(func(string, []byte) error { n++; return nil })
	if err != nil || n != 0 || stale != nil {
		t.Fatalf("Vectors on a new vault = %d vectors, stale %v, err %v; want nothing", n, stale, err)
	}
	if err := v.DeleteVectors("x"); err != nil {
		t.Fatalf("DeleteVectors without a bucket = %v", err)
	}
}
