package vault_test

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
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

// TestVectorsAcrossPartitions checks which vectors Vectors gives and which
// it reports stale when many memories of every partition interleave in
// id order: those of plaintext memories (public, internal, archived) are
// given, those of memories made sensitive are stale, and those of deleted
// memories are gone.
func TestVectorsAcrossPartitions(t *testing.T) {
	v, _ := vaulttest.New(t)
	r := rand.New(rand.NewPCG(39, 2))
	want := map[string]bool{} // id -> given (true) or stale (false)
	var blobs = map[string][]byte{}
	var ids []string
	for i := range 300 {
		p := []vault.Partition{vault.Public, vault.Internal}[r.IntN(2)]
		m := mustAdd(t, v, p, fmt.Sprintf("memory number %d", i))
		if r.IntN(5) == 0 {
			mustAdd(t, v, vault.Sensitive, fmt.Sprintf("phone 555-01%02d, memory %d", i%100, i)) // never has a vector
			continue
		}
		blobs[m.ID] = []byte("blob:" + m.ID)
		ids = append(ids, m.ID)
	}
	if err := v.PutVectors(blobs); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		switch r.IntN(5) {
		case 0:
			if _, err := v.Update(id, vault.OpReclassify, operator, func(m *vault.Memory) error { m.Partition = vault.Sensitive; return nil }); err != nil {
				t.Fatal(err)
			}
			want[id] = false
		case 1:
			if err := v.Delete(id, operator); err != nil {
				t.Fatal(err)
			}
		case 2:
			if _, err := v.Archive(id, "test", "", operator); err != nil {
				t.Fatal(err)
			}
			want[id] = true
		default:
			want[id] = true
		}
	}
	got := map[string]bool{}
	stale, err := v.Vectors(func(id string, blob []byte) error {
		if string(blob) != "blob:"+id {
			t.Errorf("Vectors: blob of %s = %q", id, blob)
		}
		got[id] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range stale {
		if _, dup := got[id]; dup {
			t.Errorf("%s given and stale", id)
		}
		got[id] = false
	}
	if !maps.Equal(got, want) {
		for id, w := range want {
			if g, ok := got[id]; !ok || g != w {
				t.Errorf("vector of %s: given/stale %v (reported %v), want %v", id, g, ok, w)
			}
		}
		t.Fatalf("Vectors gave %d and %d stale; want %d in all", len(got)-len(stale), len(stale), len(want))
	}
}
