package app_test

import (
	"os"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault/vaulttest"
)

func TestWorkingMemory(t *testing.T) {
	v, _ := vaulttest.New(t)
	s := newRecallService(t, v, &countingEmbedder{})
	note := "WORKING-NOTE the failing test is TestCheckout in payments"
	r := s.Store(ctx, claude, app.StoreInput{Content: note, Tier: app.TierWorking})
	if !r.OK() || r.Memory.Partition != app.PartitionWorking {
		t.Fatalf("Store(working) = %+v", r)
	}
	if r := s.Store(ctx, app.Request{Caller: app.Caller{Agent: "claude-code"}, Authorized: true}, app.StoreInput{Content: "x", Tier: app.TierWorking}); r.Status != app.StatusInvalid {
		t.Fatalf("working memory without a session = %+v, want invalid", r.Response)
	}
	got := s.Recall(ctx, claude, app.RecallInput{Query: "which test is failing"})
	if !got.OK() || len(got.Results) == 0 || got.Results[0].Content != note || !strings.Contains(got.Context, "[working memory, this session]") {
		t.Fatalf("Recall in the session = %+v", got)
	}
	other := claude
	other.Caller.Session = "s2"
	if got := s.Recall(ctx, other, app.RecallInput{Query: "which test is failing"}); len(got.Results) != 0 {
		t.Fatalf("another session recalls the working note: %+v", got.Results)
	}
	s.EndSession(ctx, claude)
	if got := s.Recall(ctx, claude, app.RecallInput{Query: "which test is failing"}); len(got.Results) != 0 {
		t.Fatalf("the working note survives the session's end: %+v", got.Results)
	}
	raw, _ := os.ReadFile(v.Path())
	if strings.Contains(string(raw), "WORKING-NOTE") {
		t.Fatal("working memory reached the vault file")
	}
}
