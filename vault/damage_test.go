package vault_test

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestRandomDamage flips one byte at a time at random offsets of a real
// vault file and checks that Engram never panics, and that whenever Check
// calls the vault healthy, every memory still reads back exactly as
// written: damage is either reported or harmless (unused space).
func TestRandomDamage(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ENGRAM_DAMAGE_SEED"); s != "" {
		seed = parseSeed(t, s)
	}
	t.Logf("seed %d (rerun with ENGRAM_DAMAGE_SEED)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))

	v, _ := vaulttest.New(t, vaulttest.SkipCheck)
	want := map[string]string{}
	for i, p := range []vault.Partition{vault.Public, vault.Internal, vault.Sensitive, vault.Sensitive, vault.Internal} {
		m := mustAdd(t, v, p, strings.Repeat(string(rune('a'+i)), 40)+" memory")
		v.Update(m.ID, vault.OpUpdate, operator, func(m *vault.Memory) error { m.Content += " v2"; return nil })
		want[m.ID] = m.Content + " v2"
	}
	// The last transaction touches no memory: a flip in one of bbolt's two
	// meta pages makes it fall back to the other, losing the last
	// transaction exactly as a crash before its commit would.
	if err := v.Audit(vault.AuditEntry{Action: vault.ActionRead, Agent: "test", Result: vault.ResultOK}); err != nil {
		t.Fatal(err)
	}
	path := v.Path()
	v.Close()
	pristine, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Half the flips land on bytes that hold something (the file is mostly
	// preallocated zeros), half anywhere.
	var used []int
	for i, b := range pristine {
		if b != 0 {
			used = append(used, i)
		}
	}
	const trials = 150
	detected, harmless := 0, 0
	for i := 0; i < trials; i++ {
		off := rng.IntN(len(pristine))
		if i%2 == 0 {
			off = used[rng.IntN(len(used))]
		}
		damaged := append([]byte(nil), pristine...)
		damaged[off] ^= byte(1 + rng.IntN(255))
		p := filepath.Join(t.TempDir(), "v.db")
		if err := os.WriteFile(p, damaged, 0o600); err != nil {
			t.Fatal(err)
		}
		if probe(t, p, off, want) {
			detected++
		} else {
			harmless++
		}
	}
	t.Logf("%d flips: %d reported, %d in unused space", trials, detected, harmless)
}

// probe opens a damaged file and reports whether the damage was detected.
// It fails the test on a panic or on undetected damage.
func probe(t *testing.T, path string, off int, want map[string]string) (detected bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("flip at offset %d: panic: %v", off, r)
		}
	}()
	v, err := vault.Open(path, vault.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		if !errors.Is(err, vault.ErrCorrupt) && !errors.Is(err, vault.ErrAuth) && !errors.Is(err, vault.ErrFormat) {
			t.Fatalf("flip at offset %d: Open = %v, want a damage error", off, err)
		}
		return true
	}
	defer v.Close()
	if err := v.Unlock(ctx, []byte(vaulttest.Passphrase)); err != nil {
		return true // the header's wrapped key or parameters were hit
	}
	r, err := v.Check(ctx)
	if err != nil || len(r.Problems) > 0 {
		if os.Getenv("DEBUG_DAMAGE") != "" {
			t.Logf("flip at %d: %v %v", off, err, r.Problems)
		}
		return true
	}
	for id, content := range want {
		got, err := v.Get(id, operator)
		if err != nil || got.Content != content {
			t.Fatalf("flip at offset %d: Check found nothing, but Get(%s) = %q, %v; want %q", off, id, got.Content, err, content)
		}
	}
	return false
}

func parseSeed(t *testing.T, s string) uint64 {
	var n uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("bad seed %q", s)
		}
		n = n*10 + uint64(c-'0')
	}
	return n
}
