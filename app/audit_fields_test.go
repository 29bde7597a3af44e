package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestAuditEntriesSayWhatTheDesignAsks: a write's entry names its source
// type, tier and trust; a redaction's names the detector and the offsets,
// never the text; each sweep writes one summary entry counting what it
// archived and purged by tier and field.
func TestAuditEntriesSayWhatTheDesignAsks(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	writer := register(t, s, app.AgentSpec{Name: "writer"})
	const key = "AKIAIOSFODNN7EXAMPLF"
	text := "deploy with aws key " + key
	m := mustStore(t, s, writer, app.StoreInput{Content: text, Source: vault.Source{Type: vault.SourceToolOutput}})
	log := s.Audit(ctx, operator, app.AuditInput{})
	var write, redacted *vault.AuditEntry
	for i, e := range log.Entries {
		switch {
		case e.Action == vault.ActionWrite && e.MemoryID == m.ID:
			write = &log.Entries[i]
		case e.Action == vault.ActionSecretRedacted:
			redacted = &log.Entries[i]
		}
	}
	if write == nil || write.SourceType != vault.SourceToolOutput || write.Tier != vault.Episodic || write.Trust != vault.TrustStandard {
		t.Errorf("write entry = %+v; want source type tool_output, tier episodic, trust standard", write)
	}
	if redacted == nil || len(redacted.Redactions) != 1 {
		t.Fatalf("redaction entry = %+v; want one redaction", redacted)
	}
	rd := redacted.Redactions[0]
	if rd.Detector == "" || text[rd.Start:rd.End] != key {
		t.Errorf("redaction = %+v; want the detector and the offsets of the key in the text as written", rd)
	}
	if b, _ := json.Marshal(log.Entries); strings.Contains(string(b), key) || strings.Contains(string(b), "deploy with") {
		t.Error("the audit log holds the text")
	}

	// A sweep: the agent's episodic learning expires after the agent-field TTL.
	mustStore(t, s, operator, app.StoreInput{Content: "The office is closed this week", Expires: "2d"})
	clock.Advance(31 * 24 * time.Hour)
	sweepNow(t, s, clock)
	sweepNow(t, s, clock) // nothing left to do: still one entry
	log = s.Audit(ctx, operator, app.AuditInput{})
	var sweeps []vault.AuditEntry
	for _, e := range log.Entries {
		if e.Action == vault.ActionSweep {
			sweeps = append(sweeps, e)
		}
	}
	if len(sweeps) != 2 {
		t.Fatalf("sweep entries = %+v; want one a sweep", sweeps)
	}
	if got := sweeps[0].Counts; got["archived/episodic/learnings"] != 2 || sweeps[0].Count != 2 {
		t.Errorf("first sweep's counts = %v (count %d); want archived/episodic/learnings 2", got, sweeps[0].Count)
	}
	if sweeps[1].Count != 0 || len(sweeps[1].Counts) != 0 {
		t.Errorf("second sweep's entry = %+v; want zero counts", sweeps[1])
	}
}
