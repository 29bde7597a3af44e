package app_test

import (
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestMergePreviewIsWhatMergeStores: for each strategy the preview is
// the text Merge then stores, it changes nothing, it refuses what Merge
// refuses, and it is the user's alone.
func TestMergePreviewIsWhatMergeStores(t *testing.T) {
	for _, strategy := range app.MergeStrategies {
		t.Run(string(strategy), func(t *testing.T) {
			v, clock := vaulttest.New(t)
			s, err := app.New(v, app.Options{Now: clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			a := mustStore(t, s, operator, app.StoreInput{Content: "The build uses Go 1.27. Releases ship on Tuesdays."})
			b := mustStore(t, s, claude, app.StoreInput{Content: "releases ship on tuesdays. The build uses Bazel."})
			in := app.MergeInput{IDs: []string{b.ID, a.ID}, Strategy: strategy}
			p := s.MergePreview(ctx, operator, in)
			if !p.OK() || p.Content == "" {
				t.Fatalf("MergePreview(%s) = %+v", strategy, p.Response)
			}
			if l := s.List(ctx, operator, app.ListInput{}); len(l.Memories) != 2 {
				t.Fatalf("after the preview %d live memories, want the 2 sources", len(l.Memories))
			}
			if r := s.MergePreview(ctx, claude, in); r.Status != app.StatusUnauthorized {
				t.Fatalf("MergePreview by an agent = %+v, want unauthorized", r.Response)
			}
			m := s.Merge(ctx, operator, in)
			if !m.OK() {
				t.Fatal(m.Response)
			}
			if m.Memory.Content != p.Content {
				t.Fatalf("MergePreview(%s) = %q, Merge stored %q", strategy, p.Content, m.Memory.Content)
			}
		})
	}
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	a := mustStore(t, s, operator, app.StoreInput{Content: "the staging cluster has three nodes"})
	b := mustStore(t, s, operator, app.StoreInput{Content: "the office closes at six"})
	for _, in := range []app.MergeInput{
		{IDs: []string{a.ID, b.ID}, Strategy: app.MergeIntersection},
		{IDs: []string{a.ID, a.ID}},
		{IDs: []string{a.ID, b.ID}, Strategy: "average"},
	} {
		p, m := s.MergePreview(ctx, operator, in), s.Merge(ctx, operator, in)
		if p.Status != app.StatusInvalid || p.Status != m.Status || p.Message != m.Message {
			t.Errorf("MergePreview(%+v) = %+v, Merge = %+v; want the same refusal", in, p.Response, m.Response)
		}
	}
}
