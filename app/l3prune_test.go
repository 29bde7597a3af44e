package app_test

import (
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestL3RecordsWaitForTheUser: L3 access records past their retention
// are not pruned by the sweep nor by a plain prune; the sweep proposes
// their removal, and they go when the user approves it (PruneL3).
func TestL3RecordsWaitForTheUser(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	m := mustStore(t, s, operator, app.StoreInput{Content: "Alice's phone is 555-0100", Partition: vault.Sensitive})
	if g := s.Get(ctx, operator, m.ID); !g.OK() {
		t.Fatal(g.Response)
	}
	l3 := func() int {
		t.Helper()
		es, err := v.AuditLog(vault.AuditFilter{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range es {
			if e.Partition == vault.Sensitive {
				n++
			}
		}
		return n
	}
	before := l3()
	if before == 0 {
		t.Fatal("no L3 record to keep")
	}
	if err := s.Delete(ctx, operator, m.ID); !err.OK() {
		t.Fatal(err)
	}
	clock.Advance(2 * 365 * 24 * time.Hour)
	sw := sweepNow(t, s, clock)
	if got := l3(); got < before || sw.L3Proposed < before {
		t.Fatalf("after a sweep two years on: %d L3 records (had %d), %d proposed for removal; want all kept and proposed", got, before, sw.L3Proposed)
	}
	if r := s.PruneAudit(ctx, operator, clock.Now(), app.DefaultAuditRetention); !r.OK() || l3() < before {
		t.Fatalf("PruneAudit = %+v; it removed L3 records without the user's approval", r)
	}
	if r := s.PruneL3(ctx, claude, clock.Now(), app.DefaultAuditRetention); r.Status != app.StatusUnauthorized {
		t.Fatalf("PruneL3 by an agent = %+v; want unauthorized", r.Response)
	}
	if r := s.PruneL3(ctx, operator, clock.Now(), app.DefaultAuditRetention); !r.OK() || r.Pruned == 0 || l3() != 0 {
		t.Fatalf("PruneL3 = %+v, %d L3 records left; want them removed", r, l3())
	}
	if sw := sweepNow(t, s, clock); sw.L3Proposed != 0 {
		t.Errorf("sweep after the approval proposes %d", sw.L3Proposed)
	}
}

// TestL3DueIsWhatPruneRemoves: the count the user approves is the count
// removed, and none is due after, even when the newest audit entry is
// itself an L3 record past its retention (nothing written since).
func TestL3DueIsWhatPruneRemoves(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	m := mustStore(t, s, operator, app.StoreInput{Content: "Alice's phone is 555-0100", Partition: vault.Sensitive})
	if g := s.Get(ctx, operator, m.ID); !g.OK() {
		t.Fatal(g.Response)
	}
	es, err := v.AuditLog(vault.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if last := es[len(es)-1]; last.Partition != vault.Sensitive {
		t.Fatalf("the newest audit entry is %s on %q; want the L3 access", last.Action, last.Partition)
	}
	clock.Advance(2 * 365 * 24 * time.Hour)
	due := s.L3Due(ctx, operator, clock.Now(), app.DefaultAuditRetention)
	if !due.OK() || due.Due == 0 {
		t.Fatalf("L3Due = %+v; want the records due", due)
	}
	r := s.PruneL3(ctx, operator, clock.Now(), app.DefaultAuditRetention)
	if !r.OK() {
		t.Fatal(r.Response)
	}
	after := s.L3Due(ctx, operator, clock.Now(), app.DefaultAuditRetention)
	if after.Due != 0 {
		t.Fatalf("%d L3 records were due, PruneL3 removed %d entries, %d still due; want none", due.Due, r.Pruned, after.Due)
	}
	if rep, vr := s.VerifyAudit(ctx, operator); !vr.OK() || !rep.OK() {
		t.Fatalf("VerifyAudit after the prune = %+v, %+v", rep, vr)
	}
}
