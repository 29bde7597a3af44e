// Package vaulttest opens real vault files for tests, with a cheap key
// derivation and a consistency check at cleanup.
package vaulttest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
)

// KDF is a deliberately cheap Argon2id cost: tests only.
var KDF = vault.KDFCost{Time: 1, MemoryKiB: 64, Threads: 1}

// Passphrase is the passphrase of every vault New creates.
const Passphrase = "correct horse battery staple"

// Clock is a settable clock for vault.Options.Now.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d (backwards for a negative d).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Start is the time every test clock starts at.
var Start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Option changes what New does.
type Option int

// Options for New.
const (
	// SkipCheck leaves out the cleanup check, for tests that damage the
	// file on purpose and assert on Check themselves.
	SkipCheck Option = iota + 1
	// NoSync opens the vault without fsync on commit (benchmarks).
	NoSync
)

// New creates an unlocked vault in t.TempDir() with the cheap KDF. At
// cleanup it closes the vault (tests may close it earlier), opens the file
// again, unlocks it when it still can, and fails the test if Check finds a
// problem. It returns the vault and its clock.
func New(t testing.TB, opts ...Option) (*vault.Vault, *Clock) {
	t.Helper()
	clock := NewClock(Start)
	path := filepath.Join(t.TempDir(), "vault.db")
	check, o := true, vault.Options{Now: clock.Now}
	for _, opt := range opts {
		switch opt {
		case SkipCheck:
			check = false
		case NoSync:
			o.NoSync = true
		}
	}
	v, err := vault.Create(context.Background(), path, []byte(Passphrase), vault.CreateOptions{KDF: KDF, Options: o})
	if err != nil {
		t.Fatalf("vaulttest: create: %v", err)
	}
	t.Cleanup(func() {
		v.Close()
		if check {
			Check(t, path)
		}
	})
	return v, clock
}

// Check opens the vault file at path and fails t on any problem Check finds.
// It unlocks with Passphrase when that still works.
func Check(t testing.TB, path string) {
	t.Helper()
	v, err := vault.Open(path, vault.Options{})
	if err != nil {
		t.Errorf("vaulttest: reopen for check: %v", err)
		return
	}
	defer v.Close()
	if err := v.Unlock(context.Background(), []byte(Passphrase)); err != nil {
		t.Logf("vaulttest: checking locked (%v)", err)
	}
	r, err := v.Check(context.Background())
	if err != nil {
		t.Errorf("vaulttest: check: %v", err)
	} else if len(r.Problems) > 0 {
		t.Errorf("vaulttest: check found problems: %v", r.Problems)
	}
}

// Memory returns a valid memory for partition p with content.
func Memory(p vault.Partition, content string) vault.Memory {
	return vault.Memory{
		Content: content, Kind: vault.Fact, Field: vault.Learnings, Tier: vault.Semantic, Partition: p,
		Source: vault.Source{Type: vault.SourceExplicitSave}, Trust: vault.TrustOperator, Confidence: 0.95,
	}
}
