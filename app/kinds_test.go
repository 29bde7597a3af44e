package app_test

import (
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

// TestEveryKindDecays: decay.Kind repeats vault.Kind's names (package
// decay imports nothing of ours), and the half-life table lives in
// package decay only. Every kind a memory may have must select a decay
// profile there: a kind decay did not know would never lose confidence.
// A kind outside vault.Kinds is the control: it keeps its confidence.
func TestEveryKindDecays(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	later := t0.Add(3 * 365 * 24 * time.Hour)
	at := func(k vault.Kind) float64 {
		m := vault.Memory{Kind: k, Tier: vault.Semantic, Confidence: 0.9, Owner: vault.AgentOperator, Created: t0}
		return app.CurrentConfidence(&m, later)
	}
	for _, k := range vault.Kinds {
		if got := at(k); got >= 0.9 {
			t.Errorf("CurrentConfidence(kind %q, three years on) = %v, want below 0.9: package decay has no profile for it", k, got)
		}
	}
	if got := at("rumour"); got != 0.9 {
		t.Errorf("CurrentConfidence(kind %q, three years on) = %v, want 0.9 (no profile, no decay)", "rumour", got)
	}
}
