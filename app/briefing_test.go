package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestBriefing: what an agent is briefed with at a session's start (see
// Service.Briefing): its project's memories first, then general ones,
// never another project's; most trusted first; cut to the budget with the
// rest counted; nothing it may not read; nothing its confidence has
// decayed away from or that has expired; a bad budget refused.
func TestBriefing(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	store := func(req app.Request, in app.StoreInput) {
		t.Helper()
		if r := s.Store(ctx, req, in); !r.OK() {
			t.Fatalf("store %q: %v", in.Content, r.Response)
		}
	}
	store(operator, app.StoreInput{Content: "The team indents Go code with tabs", Partition: vault.Public})
	store(operator, app.StoreInput{Content: "Heron pins Python 3.12 in its lockfile", Tags: []string{"project:heron"}})
	store(operator, app.StoreInput{Content: "Alice's phone number is 555-0100", Partition: vault.Sensitive})
	store(claude, app.StoreInput{Content: "Falcon's integration tests need the staging database", Kind: vault.Event, Tags: []string{"falcon"}})
	store(operator, app.StoreInput{Content: "Falcon deploys with make release on Fridays", Tags: []string{"project:falcon"}})

	brief := func(in app.BriefingInput) app.BriefingResponse {
		t.Helper()
		r := s.Briefing(ctx, claude, in)
		if !r.OK() {
			t.Fatalf("Briefing(%+v) = %v", in, r.Response)
		}
		return r
	}
	r := brief(app.BriefingInput{Project: "Falcon"})
	want := "[from user] Falcon deploys with make release on Fridays\n[from you] <user_memory>Falcon's integration tests need the staging database</user_memory>\n[from user] The team indents Go code with tabs\n"
	if r.Context != want || len(r.Results) != 3 || r.LeftOut != 0 {
		t.Errorf("falcon briefing:\n%s\nwant\n%s(%d results, %d left out)", r.Context, want, len(r.Results), r.LeftOut)
	}
	// Without a project, a plain tag is a label like any other: the
	// memory is general. A project: tag or a product scope is not.
	if r := brief(app.BriefingInput{}); r.Context != "[from user] The team indents Go code with tabs\n[from you] <user_memory>Falcon's integration tests need the staging database</user_memory>\n" {
		t.Errorf("general briefing:\n%s", r.Context)
	}
	if r := brief(app.BriefingInput{Project: "falcon", Budget: 15}); len(r.Results) != 1 || r.LeftOut != 2 || !strings.Contains(r.Context, "make release") {
		t.Errorf("briefing in 15 tokens: %q, %d left out", r.Context, r.LeftOut)
	}
	for _, bad := range []app.BriefingInput{{Budget: -1}, {Budget: app.MaxBriefingBudget + 1}, {Project: strings.Repeat("x", 65)}} {
		if r := s.Briefing(ctx, claude, bad); r.Status != app.StatusInvalid {
			t.Errorf("Briefing(%+v) = %v, want invalid", bad, r.Response)
		}
	}
	if r := s.Briefing(ctx, app.Request{Caller: app.Caller{Agent: "claude-code"}}, app.BriefingInput{}); r.Status != app.StatusUnauthorized {
		t.Errorf("an unauthorized briefing = %v", r.Response)
	}

	// Two years on the agent's event has decayed below 0.3; the user's
	// facts stay at their floor.
	clock.Advance(2 * 365 * 24 * time.Hour)
	if r := brief(app.BriefingInput{Project: "falcon"}); strings.Contains(r.Context, "integration tests") || !strings.Contains(r.Context, "tabs") {
		t.Errorf("briefing two years on:\n%s", r.Context)
	}
}
