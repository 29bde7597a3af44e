package app_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// gatedEmbedder is countingEmbedder under another model name whose
// document batches (more than one text) each wait for a token on gate;
// queries (one text) pass at once. fail, when set, is returned instead.
type gatedEmbedder struct {
	countingEmbedder
	gate chan struct{}
	fail error
}

func (g *gatedEmbedder) Name() string { return "bag-test-2" }
func (g *gatedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if g.fail != nil {
		return nil, g.fail
	}
	if len(texts) > 1 && g.gate != nil {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.countingEmbedder.Embed(ctx, texts)
}

// fillEmbedded adds n memories to v and embeds them with countingEmbedder
// (model "bag-test"), as a vault made before a model change.
func fillEmbedded(t *testing.T, v *vault.Vault, n int) []vault.Memory {
	t.Helper()
	mems := make([]vault.Memory, n)
	for i := range mems {
		m, err := v.Add(vaulttest.Memory(vault.Internal, fmt.Sprintf("note %d about topic%d and subject%d", i, i, i%7)), vault.Actor{Agent: vault.AgentOperator})
		if err != nil {
			t.Fatal(err)
		}
		mems[i] = m
	}
	eng := recall.New(recall.DefaultConfig(&countingEmbedder{}))
	s, err := app.New(v, app.Options{Recall: eng})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mems {
		if !eng.HasVector(m.ID) {
			t.Fatalf("memory %s has no vector after New", m.ID)
		}
	}
	s.Close()
	return mems
}

// hasVector reports whether the index of eng holds a vector of memory id.
func hasVector(eng *recall.Engine, id string) bool { return eng.HasVector(id) }

func TestReembedInBackgroundAfterModelChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v, clock := vaulttest.New(t)
		mems := fillEmbedded(t, v, 100)
		// The five most recently used memories are embedded first.
		recent := map[string]time.Time{}
		for _, m := range mems[50:55] {
			recent[m.ID] = clock.Now().Add(time.Hour)
		}
		if _, err := v.Touch(recent); err != nil {
			t.Fatal(err)
		}

		emb := &gatedEmbedder{gate: make(chan struct{})}
		eng := recall.New(recall.DefaultConfig(emb))
		s, err := app.New(v, app.Options{Recall: eng, IndexInBackground: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.WaitIndexed(t.Context()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if p := s.EmbedProgress(); p.Total != 100 || p.Done != 0 || !p.Running || p.Model == "" {
			t.Fatalf("progress before any batch = %+v, want 0 of 100, running", p)
		}
		// Recall works while nothing is embedded: by keyword, and with no
		// vector of the old model (never compared with the new model's).
		if got := recallIDs(t, s, operator, app.RecallInput{Query: "topic42", Mode: recall.Hybrid}); len(got) != 1 {
			t.Errorf("hybrid recall during re-embedding = %q, want the one keyword match", got)
		}
		if got := recallIDs(t, s, operator, app.RecallInput{Query: "topic42", Mode: recall.Semantic}); len(got) != 0 {
			t.Errorf("semantic recall before re-embedding = %q, want none (old vectors are not used)", got)
		}
		if hasVector(eng, mems[0].ID) {
			t.Error("a memory has a vector of the old model in the new index")
		}

		emb.gate <- struct{}{} // one batch of 32
		synctest.Wait()
		if p := s.EmbedProgress(); p.Done != 32 || !p.Running {
			t.Fatalf("progress after one batch = %+v, want 32 of 100", p)
		}
		for _, m := range mems[50:55] {
			if !hasVector(eng, m.ID) {
				t.Errorf("recently used memory %q not in the first batch", m.Content)
			}
		}
		withVec := 0
		for _, m := range mems {
			if hasVector(eng, m.ID) {
				withVec++
			}
		}
		if withVec != 32 {
			t.Errorf("%d memories have vectors after one batch, want 32", withVec)
		}
		if got := recallIDs(t, s, operator, app.RecallInput{Query: "note 50 about topic50", Mode: recall.Semantic}); len(got) == 0 {
			t.Error("semantic recall finds nothing among the re-embedded memories")
		}

		// Stopped half-way (the app quits): what was stored stays, and the
		// next start embeds only the rest.
		s.Close()
		if p := s.EmbedProgress(); p.Running || p.Err == "" {
			t.Errorf("progress after Close = %+v, want stopped with its reason", p)
		}
		emb2 := &gatedEmbedder{}
		eng2 := recall.New(recall.DefaultConfig(emb2))
		s2, err := app.New(v, app.Options{Recall: eng2})
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		if n, p := emb2.n.Load(), s2.EmbedProgress(); n != 68 || p.Done != 68 || p.Total != 68 || p.Running {
			t.Errorf("restart embedded %d texts (progress %+v), want the 68 left", n, p)
		}
		for _, m := range mems {
			if !hasVector(eng2, m.ID) {
				t.Fatalf("memory %q has no vector after the restart", m.Content)
			}
		}
	})
}

func TestReembedFailureLeavesKeywordRecall(t *testing.T) {
	v, _ := vaulttest.New(t)
	fillEmbedded(t, v, 40)
	emb := &gatedEmbedder{fail: errors.New("endpoint down")}
	s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(emb)), IndexInBackground: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.WaitEmbedded(t.Context()); err == nil {
		t.Error("WaitEmbedded = nil, want the embedder's error")
	}
	if p := s.EmbedProgress(); p.Running || p.Err == "" || p.Done != 0 || p.Total != 40 {
		t.Errorf("progress = %+v, want stopped at 0 of 40 with the error", p)
	}
	if got := recallIDs(t, s, operator, app.RecallInput{Query: "topic7", Mode: recall.Exact}); len(got) != 1 {
		t.Errorf("exact recall with the embedder down = %q, want 1", got)
	}
}

func TestRecallRecordsAccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v, clock := vaulttest.New(t)
		s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil)), Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		kiwi := mustStore(t, s, operator, app.StoreInput{Content: "kiwi grows on vines"})
		other := mustStore(t, s, operator, app.StoreInput{Content: "bananas are yellow"})
		accessed := func(m *app.Memory) time.Time {
			t.Helper()
			got, err := v.Get(m.ID, vault.Actor{Agent: vault.AgentOperator})
			if err != nil {
				t.Fatal(err)
			}
			return got.Accessed
		}

		clock.Advance(time.Hour)
		first := clock.Now()
		recallIDs(t, s, operator, app.RecallInput{Query: "kiwi"})
		clock.Advance(time.Minute)
		recallIDs(t, s, operator, app.RecallInput{Query: "kiwi vines"})
		if got := accessed(kiwi); !got.Equal(kiwi.Accessed) {
			t.Errorf("accessed written at once (%v): recall should not wait for the disk", got)
		}
		time.Sleep(time.Minute) // past the flush delay, in the bubble's time
		synctest.Wait()
		if got, want := accessed(kiwi), first.Add(time.Minute); !got.Equal(want) {
			t.Errorf("kiwi accessed = %v, want %v (the later recall)", got, want)
		}
		if got := accessed(other); !got.Equal(other.Accessed) {
			t.Errorf("a memory not recalled has accessed %v, want %v", got, other.Accessed)
		}

		// Close writes what is pending without waiting.
		clock.Advance(time.Hour)
		recallIDs(t, s, operator, app.RecallInput{Query: "bananas"})
		s.Close()
		if got := accessed(other); !got.Equal(clock.Now()) {
			t.Errorf("after Close, accessed = %v, want %v", got, clock.Now())
		}
	})
}
