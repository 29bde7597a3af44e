package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestQuestionedMemory: the user's question keeps the memory in place,
// halves its confidence, labels it "questioned: REASON" in recall and
// lists it among the questions until the user confirms or refutes it; an
// agent's question is only its report (of the user's memory or its
// peer's alike): it changes neither confidence nor label.
func TestQuestionedMemory(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now, Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		t.Fatal(err)
	}
	writer, peer := writerAndPeer(t, s)
	users := mustStore(t, s, operator, app.StoreInput{Content: "The release train leaves on Thursdays", Tier: vault.Semantic})
	agents := mustStore(t, s, writer, app.StoreInput{Content: "The flaky suite is the upload tests"})
	before := app.CurrentConfidence(users, clock.Now())

	if r := s.Question(ctx, operator, users.ID, ""); r.Status != app.StatusInvalid {
		t.Fatalf("Question without a reason = %+v; want invalid", r.Response)
	}
	// Agents: reports only, whatever the memory's trust.
	for _, tc := range []struct {
		req app.Request
		id  string
	}{{peer, users.ID}, {peer, agents.ID}} {
		r := s.Question(ctx, tc.req, tc.id, "the calendar changed last month")
		if !r.OK() || !strings.Contains(r.Message, "your report") {
			t.Fatalf("agent's Question = %+v; want ok, recorded as its report", r.Response)
		}
		if _, ok := app.QuestionedBy(r.Memory); ok {
			t.Errorf("an agent's question counts as the user's: %+v", r.Memory.Provenance.Verifications)
		}
	}
	g := s.Get(ctx, operator, users.ID)
	if got := app.CurrentConfidence(g.Memory, clock.Now()); got != before {
		t.Errorf("confidence after an agent's question = %v, want %v unchanged", got, before)
	}
	if qs := s.Questions(ctx, operator); !qs.OK() || len(qs.Memories) != 2 {
		t.Fatalf("Questions after two agents' reports = %+v; want both memories listed for the user", qs)
	}
	if qs := s.Questions(ctx, peer); qs.OK() {
		t.Fatal("an agent listed the questions")
	}

	// The user's question.
	r := s.Question(ctx, operator, users.ID, "the train moved to Fridays")
	if !r.OK() || r.Memory.Partition != users.Partition {
		t.Fatalf("user's Question = %+v; want ok, the memory in place", r)
	}
	if why, ok := app.QuestionedBy(r.Memory); !ok || why != "the train moved to Fridays" {
		t.Fatalf("QuestionedBy = %q, %v", why, ok)
	}
	if got := app.CurrentConfidence(r.Memory, clock.Now()); got != before*app.QuestionFactor {
		t.Errorf("confidence after the user's question = %v, want %v", got, before*app.QuestionFactor)
	}
	rec := s.Recall(ctx, peer, app.RecallInput{Query: "release train Thursdays", Mode: app.RecallMode(recall.Exact)})
	if !rec.OK() || len(rec.Results) == 0 || rec.Results[0].ID != users.ID {
		t.Fatalf("Recall = %+v", rec)
	}
	if rec.Results[0].Questioned != "the train moved to Fridays" || !strings.Contains(rec.Context, "[questioned: the train moved to Fridays]") {
		t.Errorf("recall of a questioned memory = %+v, context %q; want it labelled questioned: REASON", rec.Results[0], rec.Context)
	}
	if rec.Results[0].Confidence >= before {
		t.Errorf("recall confidence %v; want below %v", rec.Results[0].Confidence, before)
	}
	// The sweep leaves it where it is, however long the user takes.
	clock.Advance(24 * time.Hour)
	if sw := sweepNow(t, s, clock); sw.Archived != 0 {
		t.Fatalf("sweep archived %+v; a questioned memory keeps its place", sw.Actions)
	}
	// The user's confirmation closes every question of it.
	if r := s.Confirm(ctx, operator, users.ID, "checked the calendar"); !r.OK() {
		t.Fatal(r)
	}
	g = s.Get(ctx, operator, users.ID)
	if _, ok := app.QuestionedBy(g.Memory); ok || len(app.OpenQuestions(g.Memory)) != 0 {
		t.Errorf("questions after the user's confirmation: %+v", app.OpenQuestions(g.Memory))
	}
	qs := s.Questions(ctx, operator)
	if len(qs.Memories) != 1 || qs.Memories[0].ID != agents.ID {
		t.Errorf("Questions after the confirmation = %+v; want only the agent's memory", qs.Memories)
	}
}
