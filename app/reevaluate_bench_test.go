package app_test

import (
	"fmt"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// BenchmarkQuarantineHeld lists a review queue of 200 memories held for
// review (one agent's, found unreliable) beside 5,000 other memories, as
// the desktop app does at every change of the queue.
func BenchmarkQuarantineHeld(b *testing.B) {
	v, _ := vaulttest.New(b)
	s, err := app.New(v, app.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	for i := range 5000 {
		m := vaulttest.Memory(vault.Internal, fmt.Sprintf("note %d about the build of service %d", i, i%97))
		m.Field = []vault.Field{vault.Learnings, vault.Conventions, vault.Decisions}[i%3]
		if _, err := v.Add(m, vault.Actor{Agent: "operator"}); err != nil {
			b.Fatal(err)
		}
	}
	cursor := app.Request{Caller: app.Caller{Agent: "cursor", Session: "c1"}, Authorized: true}
	for i := range 200 {
		if r := s.Store(ctx, cursor, app.StoreInput{Content: fmt.Sprintf("cursor says port %d serves service %d", 8000+i, i)}); !r.OK() {
			b.Fatal(r.Response)
		}
	}
	if r := s.Reevaluate(ctx, operator, app.ReevaluateInput{Agent: "cursor"}); r.Held != 200 {
		b.Fatalf("held %d", r.Held)
	}
	for b.Loop() {
		if q := s.Quarantine(ctx, operator); len(q.Items) != 200 {
			b.Fatalf("%d items", len(q.Items))
		}
	}
}

// BenchmarkReevaluateDryRun is the dry run of an agent's review over
// 10,000 memories, 200 of them the agent's.
func BenchmarkReevaluateDryRun(b *testing.B) {
	v, _ := vaulttest.New(b)
	s, err := app.New(v, app.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	for i := range 10000 {
		m := vaulttest.Memory(vault.Internal, fmt.Sprintf("note %d about the build of service %d", i, i%97))
		if i%50 == 0 {
			m.Owner, m.Trust, m.Source = "cursor", vault.TrustStandard, vault.Source{Type: vault.SourceAIInference, AgentID: "cursor", SessionID: "c1"}
		}
		if _, err := v.Add(m, vault.Actor{Agent: m.Owner}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if r := s.Reevaluate(ctx, operator, app.ReevaluateInput{Agent: "cursor", DryRun: true}); len(r.Selected) != 200 {
			b.Fatalf("selected %d", len(r.Selected))
		}
	}
}
