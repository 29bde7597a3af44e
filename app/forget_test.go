package app_test

import (
	"os"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

func TestForgetTopic(t *testing.T) {
	v, _ := vaulttest.New(t)
	s := newRecallService(t, v, &countingEmbedder{})
	a := mustStore(t, s, operator, app.StoreInput{Content: "ORION-PROJECT kicks off in May"})
	b := mustStore(t, s, claude, app.StoreInput{Content: "the orion-project repo uses pnpm"})
	keep := mustStore(t, s, operator, app.StoreInput{Content: "lunch is at noon"})
	// An archived memory that points at one of them keeps a note.
	old := mustStore(t, s, operator, app.StoreInput{Content: "kickoff was planned for April"})
	if _, err := v.Archive(old.ID, "superseded", a.ID, vault.Actor{}); err != nil {
		t.Fatal(err)
	}
	if r := s.FindTopic(ctx, claude, "orion"); r.Status != app.StatusUnauthorized {
		t.Fatalf("FindTopic by an agent = %+v", r.Response)
	}
	found := s.FindTopic(ctx, operator, "orion-project")
	var ids []string
	for _, m := range found.Memories {
		ids = append(ids, m.ID)
	}
	if len(ids) != 2 || !strings.Contains(strings.Join(ids, " "), a.ID) || !strings.Contains(strings.Join(ids, " "), b.ID) {
		t.Fatalf("FindTopic = %v, want %s and %s", ids, a.ID, b.ID)
	}
	r := s.Forget(ctx, operator, ids, "")
	if !r.OK() || r.Purged != 2 {
		t.Fatalf("Forget = %+v", r)
	}
	raw, _ := os.ReadFile(v.Path())
	if strings.Contains(string(raw), "ORION-PROJECT") || strings.Contains(string(raw), "orion-project repo") {
		t.Fatal("forgotten text remains in the vault file")
	}
	if g := s.Get(ctx, operator, keep.ID); !g.OK() {
		t.Fatal("an unrelated memory was lost")
	}
	h := s.History(ctx, operator, old.ID)
	mods := h.Memory.Provenance.Modifications
	if h.Memory.Archive.Pointer != "" || !strings.Contains(mods[len(mods)-1].Reason, "was forgotten") {
		t.Fatalf("the pointing memory's provenance = %+v", mods)
	}
	for _, res := range s.Recall(ctx, operator, app.RecallInput{Query: "orion project"}).Results {
		if res.ID == a.ID || res.ID == b.ID {
			t.Fatalf("recall still finds a forgotten memory: %+v", res)
		}
	}
}
