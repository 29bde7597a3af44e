package app_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name     string
		strategy app.MergeStrategy
		want     string
		trust    vault.Trust
	}{
		{"union keeps every text and the lowest trust", app.MergeUnion, "deploys go through ops/deploy.sh\ndeploys need two reviewers", vault.TrustStandard},
		{"prioritize keeps the most trusted text", app.MergePrioritize, "deploys need two reviewers", vault.TrustOperator},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := recallService(t, "")
			a := storeOK(t, s, claude, app.StoreInput{Content: "deploys go through ops/deploy.sh", Tags: []string{"ops"}}).Memory
			b := storeOK(t, s, operator, app.StoreInput{Content: "deploys need two reviewers", Tags: []string{"review"}, Pinned: true}).Memory
			r := s.Merge(ctx, operator, app.MergeInput{IDs: []string{b.ID, a.ID}, Strategy: tc.strategy})
			if !r.OK() {
				t.Fatalf("Merge = %s %s", r.Status, r.Message)
			}
			m := r.Memory
			// Both were written at the same instant: order is not defined.
			lines, want := strings.Split(m.Content, "\n"), strings.Split(tc.want, "\n")
			slices.Sort(lines)
			slices.Sort(want)
			tags := slices.Sorted(slices.Values(m.Tags))
			if !slices.Equal(lines, want) || m.Trust != tc.trust || !m.Pinned || strings.Join(tags, ",") != "ops,review" {
				t.Fatalf("merged = %q trust %s pinned %v tags %v", m.Content, m.Trust, m.Pinned, m.Tags)
			}
			if !strings.Contains(m.Provenance.Genesis.Context, "merged from") {
				t.Fatalf("genesis = %+v", m.Provenance.Genesis)
			}
			for _, id := range []string{a.ID, b.ID} {
				h := s.History(ctx, operator, id)
				if h.Memory.Partition != vault.Archive || h.Memory.Archive.Pointer != m.ID {
					t.Fatalf("source %s after merge: %+v", id, h.Memory.Archive)
				}
			}
			if got := live(t, s); len(got) != 1 || got[m.ID] == "" {
				t.Fatalf("live = %v", got)
			}
		})
	}
}

func TestMergeRefusals(t *testing.T) {
	s := recallService(t, "")
	own := storeOK(t, s, claude, app.StoreInput{Content: "the cache lives in /tmp/cache"}).Memory
	own2 := storeOK(t, s, claude, app.StoreInput{Content: "builds take four minutes cold"}).Memory
	other := storeOK(t, s, cursor, app.StoreInput{Content: "cursor's own note about linting"}).Memory
	secret := storeOK(t, s, operator, app.StoreInput{Content: "call me on +1 415 555 0100", Partition: "sensitive"}).Memory
	for _, tc := range []struct {
		name string
		req  app.Request
		in   app.MergeInput
	}{
		{"one memory", claude, app.MergeInput{IDs: []string{own.ID, own.ID}}},
		{"another agent's memory", claude, app.MergeInput{IDs: []string{own.ID, other.ID}}},
		{"a sensitive memory", claude, app.MergeInput{IDs: []string{own.ID, secret.ID}}},
		{"unknown strategy", claude, app.MergeInput{IDs: []string{own.ID, own2.ID}, Strategy: "average"}},
	} {
		if r := s.Merge(ctx, tc.req, tc.in); r.OK() {
			t.Errorf("Merge(%s) succeeded", tc.name)
		}
	}
	if n := len(live(t, s)); n != 4 {
		t.Fatalf("refused merges changed the vault: %d live memories", n)
	}
	// The merged memory of a sensitive and an internal one stays sensitive.
	r := s.Merge(ctx, operator, app.MergeInput{IDs: []string{own.ID, secret.ID}})
	if !r.OK() || r.Memory.Partition != vault.Sensitive {
		t.Fatalf("merge with a sensitive memory = %s, partition %s", r.Status, r.Memory.Partition)
	}
}

func TestSplit(t *testing.T) {
	s := recallService(t, "")
	orig := storeOK(t, s, claude, app.StoreInput{Content: "builds use make. tests run with the race detector.", Tags: []string{"ci"}}).Memory
	if r := s.Split(ctx, claude, app.SplitInput{ID: orig.ID, Parts: []string{"builds use make.", "deploys are manual"}}); r.OK() {
		t.Fatal("an agent split a memory into text that was not in it")
	}
	r := s.Split(ctx, claude, app.SplitInput{ID: orig.ID, Parts: []string{"builds use make.", "tests run with the race detector."}})
	if !r.OK() || len(r.Memories) != 2 {
		t.Fatalf("Split = %s %s", r.Status, r.Message)
	}
	for _, m := range r.Memories {
		if m.Owner != "claude-code" || m.Field != orig.Field || strings.Join(m.Tags, ",") != "ci" {
			t.Fatalf("part = %+v", m)
		}
	}
	h := s.History(ctx, operator, orig.ID)
	if h.Memory.Partition != vault.Archive || h.Memory.Archive.Pointer != r.Memories[0].ID || !strings.Contains(h.Memory.Archive.Reason, r.Memories[1].ID) {
		t.Fatalf("original after split: %+v", h.Memory.Archive)
	}
	// The user may split into new words; the guard still runs on them.
	op := storeOK(t, s, operator, app.StoreInput{Content: "alice leads payments; the api key is rotated monthly"}).Memory
	r = s.Split(ctx, operator, app.SplitInput{ID: op.ID, Parts: []string{"alice (alice@example.com) leads payments", "api keys rotate monthly"}})
	if !r.OK() || r.Memories[0].Partition != vault.Sensitive || r.Memories[1].Partition != vault.Internal {
		t.Fatalf("operator split = %s; partitions %v", r.Status, r.Memories)
	}
}

// TestMergeGivesAgentsNoTrust: merging an agent's memory with the user's
// must not hand the agent a memory it may rewrite at the user's trust.
// A prioritize merge keeps the kept text's owner with its trust, and an
// agent's change to any memory carries at most the agent's trust.
func TestMergeGivesAgentsNoTrust(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	agent := storeOK(t, s, claude, app.StoreInput{Content: "deploys go through ops/deploy.sh"}).Memory
	clock.Advance(time.Minute) // the agent's is the older: a merge took the oldest source's owner
	user := storeOK(t, s, operator, app.StoreInput{Content: "deploys need two reviewers"}).Memory
	r := s.Merge(ctx, operator, app.MergeInput{IDs: []string{agent.ID, user.ID}, Strategy: app.MergePrioritize})
	if !r.OK() || r.Memory.Content != user.Content || r.Memory.Trust != vault.TrustOperator {
		t.Fatalf("prioritize merge = %+v; want the user's text at the user's trust", r)
	}
	if r.Memory.Owner != vault.AgentOperator {
		t.Errorf("the merged memory keeps the user's text and trust but is owned by %q", r.Memory.Owner)
	}
	text := "deploys need no review"
	u := s.Update(ctx, claude, r.Memory.ID, app.UpdateInput{Content: &text})
	if u.OK() && u.Memory.Trust.Above(vault.TrustStandard) {
		t.Fatalf("the agent rewrote the merged memory and it kept trust %s", u.Memory.Trust)
	}

	// The same cap holds for any memory an agent owns with a higher trust
	// than its own: its change is its word.
	own := storeOK(t, s, claude, app.StoreInput{Content: "the build cache lives on the second disk"}).Memory
	if err := raiseTrust(v, own.ID); err != nil {
		t.Fatal(err)
	}
	text = "the build cache lives in /tmp"
	u = s.Update(ctx, claude, own.ID, app.UpdateInput{Content: &text})
	if !u.OK() || u.Memory.Trust != vault.TrustStandard {
		t.Fatalf("an agent's update of its memory at operator trust = %+v; want it stored at standard", u.Memory)
	}
}

// raiseTrust gives a memory operator trust, as only the user's hand could.
func raiseTrust(v *vault.Vault, id string) error {
	_, err := v.Update(id, vault.OpReclassify, vault.Actor{Agent: vault.AgentOperator}, func(m *vault.Memory) error {
		m.Trust = vault.TrustOperator
		return nil
	})
	return err
}

// TestSplitByAgentCarriesItsTrust: an agent that splits a memory it owns
// at a higher trust gets parts at its own trust: a part of a text can say
// what the whole did not ("push to main" out of "never push to main").
func TestSplitByAgentCarriesItsTrust(t *testing.T) {
	s, v := newService(t)
	own := storeOK(t, s, claude, app.StoreInput{Content: "never push to main directly"}).Memory
	if err := raiseTrust(v, own.ID); err != nil {
		t.Fatal(err)
	}
	r := s.Split(ctx, claude, app.SplitInput{ID: own.ID, Parts: []string{"never", "push to main directly"}})
	if !r.OK() {
		t.Fatalf("split = %+v", r.Response)
	}
	for _, m := range r.Memories {
		if m.Trust.Above(vault.TrustStandard) {
			t.Errorf("part %q of the agent's split has trust %s", m.Content, m.Trust)
		}
	}
	// The user's split keeps the memory's trust.
	mine := storeOK(t, s, operator, app.StoreInput{Content: "tabs in Go; spaces in YAML"}).Memory
	r = s.Split(ctx, operator, app.SplitInput{ID: mine.ID, Parts: []string{"tabs in Go", "spaces in YAML"}})
	if !r.OK() || len(r.Memories) != 2 || r.Memories[0].Trust != vault.TrustOperator {
		t.Fatalf("the user's split = %+v", r)
	}
}

// TestMergeIntersection: intersection keeps the statements every source
// holds, in the oldest source's order, with the lowest trust; sources
// that agree on nothing are left as they are.
func TestMergeIntersection(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	a := mustStore(t, s, claude, app.StoreInput{Content: "Deploys go through ops/deploy.sh. Deploys need two reviewers.\nStaging runs in eu-west-1"})
	clock.Advance(time.Minute)
	b := mustStore(t, s, operator, app.StoreInput{Content: "deploys need two reviewers! Staging runs in EU-west-1. Prod runs in us-east-2."})
	clock.Advance(time.Minute)
	c := mustStore(t, s, operator, app.StoreInput{Content: "The build uses Go 1.27."})

	if r := s.Merge(ctx, operator, app.MergeInput{IDs: []string{a.ID, c.ID}, Strategy: app.MergeIntersection}); r.Status != app.StatusInvalid || !strings.Contains(r.Message, "agree on nothing") {
		t.Fatalf("Merge of memories that agree on nothing = %+v; want invalid", r.Response)
	}
	if got := live(t, s); len(got) != 3 {
		t.Fatalf("after a refused merge, live = %v; want the three memories", got)
	}
	r := s.Merge(ctx, operator, app.MergeInput{IDs: []string{b.ID, a.ID}, Strategy: app.MergeIntersection})
	if !r.OK() {
		t.Fatalf("Merge(intersection) = %+v", r.Response)
	}
	if want := "Deploys need two reviewers. Staging runs in eu-west-1"; r.Memory.Content != want || r.Memory.Trust != vault.TrustStandard {
		t.Errorf("merged = %q trust %s; want %q with the lowest trust", r.Memory.Content, r.Memory.Trust, want)
	}
	if r := s.Merge(ctx, operator, app.MergeInput{IDs: []string{a.ID, c.ID}, Strategy: "overlap"}); r.Status != app.StatusInvalid || !strings.Contains(r.Message, "intersection") {
		t.Errorf("Merge(overlap) = %+v; want invalid naming the strategies", r.Response)
	}
}
