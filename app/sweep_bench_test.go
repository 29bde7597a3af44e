package app_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// BenchmarkSweep100k sweeps a vault of 100,000 memories (a tenth of them
// agent notes past their TTL, the rest live) a year ahead; it measures the
// whole sweep: listing, decay rules, archiving and the audit entries.
//
//	go test ./app -run '^$' -bench Sweep100k -benchtime 1x
func BenchmarkSweep100k(b *testing.B) {
	const n = 100_000
	v, clock := vaulttest.New(b, vaulttest.NoSync, vaulttest.SkipCheck)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		m := vaulttest.Memory(vault.Internal, fmt.Sprintf("memory %d about build step %d", i, i%97))
		a := vault.Actor{Agent: vault.AgentOperator}
		if i%10 == 0 {
			m.Tier, m.Owner, a.Agent = vault.Episodic, "claude-code", "claude-code"
		}
		if _, err := v.Add(m, a); err != nil {
			b.Fatal(err)
		}
	}
	later := clock.Now().Add(400 * 24 * time.Hour)
	for b.Loop() {
		start := time.Now()
		r := s.Sweep(ctx, operator, later, decay.DefaultPolicy(), 0)
		b.ReportMetric(time.Since(start).Seconds(), "sweep-s")
		if !r.OK() || r.Archived != n/10 {
			b.Fatalf("sweep = %+v (archived %d, want %d)", r.Response, r.Archived, n/10)
		}
	}
}
