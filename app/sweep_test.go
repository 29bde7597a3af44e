package app_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestSweepAYearAhead runs the sweep a year ahead: it archives and purges
// exactly what the rules say, keeps pinned and user-saved memories, and
// leaves no purged text in the vault file.
func TestSweepAYearAhead(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	agentNote := s.Store(ctx, claude, app.StoreInput{Content: "the flaky test is TestUpload"}).Memory
	pinned := s.Store(ctx, claude, app.StoreInput{Content: "the release branch is release/2026", Pinned: true}).Memory
	userFact := s.Store(ctx, operator, app.StoreInput{Content: "I prefer squash merges", Tier: vault.Semantic, Kind: vault.Preference}).Memory
	episode := s.Store(ctx, operator, app.StoreInput{Content: "SWEEP-EPISODE-SECRET met the auditor on Monday", Tier: vault.Episodic, Kind: vault.Event, Partition: vault.Sensitive}).Memory
	for _, m := range []*app.Memory{agentNote, pinned, userFact, episode} {
		if m == nil {
			t.Fatal("a store failed")
		}
	}

	// Day 1: nothing is due.
	clock.Advance(24 * time.Hour)
	if r := s.Sweep(ctx, operator, clock.Now(), decay.DefaultPolicy(), app.DefaultAuditRetention); !r.OK() || len(r.Actions) != 0 {
		t.Fatalf("sweep on day 1 = %+v, want nothing", r)
	}
	// A year ahead.
	clock.Advance(365 * 24 * time.Hour)
	r := s.Sweep(ctx, operator, clock.Now(), decay.DefaultPolicy(), app.DefaultAuditRetention)
	if !r.OK() {
		t.Fatalf("sweep = %+v", r.Response)
	}
	got := map[string]string{}
	for _, a := range r.Actions {
		got[a.ID] = a.Action
	}
	want := map[string]string{agentNote.ID: "archive", episode.ID: "purge"}
	if len(got) != len(want) || got[agentNote.ID] != "archive" || got[episode.ID] != "purge" {
		t.Fatalf("sweep actions = %+v, want %v", r.Actions, want)
	}
	if !r.Compacted {
		t.Fatal("a purge was not followed by compaction")
	}
	for _, m := range []*app.Memory{pinned, userFact} {
		if g := s.Get(ctx, operator, m.ID); !g.OK() || g.Memory.Partition == vault.Archive {
			t.Fatalf("%q did not survive the sweep: %+v", m.Content, g)
		}
	}
	if g := s.Get(ctx, operator, agentNote.ID); !g.OK() || g.Memory.Partition != vault.Archive || g.Memory.Archive.Reason != "expired" {
		t.Fatalf("agent note after the sweep = %+v", g.Memory)
	}
	if purges, _ := v.AuditLog(vault.AuditFilter{Action: vault.ActionPurge}); len(purges) != 1 || purges[0].MemoryID != episode.ID {
		t.Fatalf("purges audited after the first sweep = %+v", purges)
	}
	// 180 days after archiving, the archived note is purged too (and the
	// audit log drops entries past its 90-day retention).
	clock.Advance(181 * 24 * time.Hour)
	r = s.Sweep(ctx, operator, clock.Now(), decay.DefaultPolicy(), app.DefaultAuditRetention)
	if len(r.Actions) != 1 || r.Actions[0].ID != agentNote.ID || r.Actions[0].Action != "purge" {
		t.Fatalf("second sweep = %+v", r.Actions)
	}
	raw, _ := os.ReadFile(v.Path())
	if strings.Contains(string(raw), "TestUpload") || strings.Contains(string(raw), "SWEEP-EPISODE-SECRET") {
		t.Fatal("purged text remains in the vault file")
	}
	// The first sweep's purge was of a sensitive memory: an L3 record,
	// kept although older than the 90-day retention. The sensitive
	// memory's write, over a year old, is an L3 record the sweep proposes
	// to remove and keeps until the user approves (PruneL3): the chain is
	// cut at its start only, so nothing after it is pruned meanwhile.
	purges, _ := v.AuditLog(vault.AuditFilter{Action: vault.ActionPurge})
	if len(purges) != 2 || purges[0].MemoryID != episode.ID || purges[1].MemoryID != agentNote.ID || r.AuditPruned != 0 || r.L3Proposed == 0 {
		t.Fatalf("purges audited after the second sweep = %+v (pruned %d, L3 proposed %d)", purges, r.AuditPruned, r.L3Proposed)
	}
	if rep, err := v.VerifyAudit(); err != nil || !rep.OK() {
		t.Fatalf("audit chain after sweeps = %+v, %v", rep, err)
	}
}

// The clock moving backwards purges nothing early.
func TestSweepClockBackwards(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, _ := app.New(v, app.Options{Now: clock.Now})
	s.Store(ctx, claude, app.StoreInput{Content: "note"})
	r := s.Sweep(ctx, operator, clock.Now().Add(-5*365*24*time.Hour), decay.DefaultPolicy(), app.DefaultAuditRetention)
	if !r.OK() || len(r.Actions) != 0 {
		t.Fatalf("sweep in the past = %+v", r)
	}
}
