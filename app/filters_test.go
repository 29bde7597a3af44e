package app_test

import (
	"slices"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestListFiltersAreRecallFilters: a listing narrowed by filters keeps
// exactly the memories a recall with the same filters may return, by
// one rule (recall.Filters.Match): trust (which the desktop applied on
// its own before), the creation window's Before (which its copy of the
// rules lacked), tiers, tags and the archive.
func TestListFiltersAreRecallFilters(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now, Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mine := mustStore(t, s, operator, app.StoreInput{Content: "marmot deploys go through the blue pipeline", Tags: []string{"deploy"}})
	clock.Advance(48 * time.Hour)
	agents := mustStore(t, s, claude, app.StoreInput{Content: "marmot builds run on the arm runners"})
	cut := clock.Now().Add(time.Minute) // after is inclusive, before exclusive
	clock.Advance(48 * time.Hour)
	later := mustStore(t, s, claude, app.StoreInput{Content: "marmot caches live in the shared bucket", Tags: []string{"deploy"}})

	tests := []struct {
		name string
		f    app.RecallFilters
		want []string
	}{
		{"none", app.RecallFilters{}, []string{mine.ID, agents.ID, later.ID}},
		{"trust operator", app.RecallFilters{Trusts: []vault.Trust{vault.TrustOperator}}, []string{mine.ID}},
		{"trust standard", app.RecallFilters{Trusts: []vault.Trust{vault.TrustStandard}}, []string{agents.ID, later.ID}},
		{"before", app.RecallFilters{Before: cut}, []string{mine.ID, agents.ID}},
		{"before the second", app.RecallFilters{Before: mine.Created.Add(time.Hour)}, []string{mine.ID}},
		{"after", app.RecallFilters{After: cut}, []string{later.ID}},
		{"tag", app.RecallFilters{Tags: []string{"deploy"}}, []string{mine.ID, later.ID}},
		{"tag and trust", app.RecallFilters{Tags: []string{"deploy"}, Trusts: []vault.Trust{vault.TrustStandard}}, []string{later.ID}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := s.List(ctx, operator, app.ListInput{Filters: tc.f})
			if !l.OK() {
				t.Fatal(l.Response)
			}
			var got []string
			for _, m := range l.Memories {
				got = append(got, m.ID)
			}
			r := s.Search(ctx, operator, app.RecallInput{Query: "marmot", Mode: recall.Exact, Filters: tc.f})
			if !r.OK() {
				t.Fatal(r.Response)
			}
			var found []string
			for _, res := range r.Results {
				found = append(found, res.ID)
			}
			slices.Sort(got)
			slices.Sort(found)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) || !slices.Equal(found, want) {
				t.Errorf("filters %+v: List = %v, Search = %v, want %v", tc.f, got, found, want)
			}
		})
	}

	// An unknown trust level is refused, as any unknown filter value.
	if r := s.Search(ctx, operator, app.RecallInput{Query: "marmot", Filters: app.RecallFilters{Trusts: []vault.Trust{"godlike"}}}); r.Status != app.StatusInvalid {
		t.Errorf("Search with trust %q = %+v, want invalid", "godlike", r.Response)
	}
}
