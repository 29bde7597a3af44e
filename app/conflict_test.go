package app_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// recallService is a service with keyword recall (no embedder), which is
// what the duplicate and conflict checks search with.
func recallService(t *testing.T, strategy app.ConflictStrategy) *app.Service {
	t.Helper()
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil)), Conflicts: strategy, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func storeOK(t *testing.T, s *app.Service, req app.Request, in app.StoreInput) app.MemoryResponse {
	t.Helper()
	r := s.Store(ctx, req, in)
	if r.Memory == nil {
		t.Fatalf("Store(%q) = %s %s", in.Content, r.Status, r.Message)
	}
	return r
}

// live lists the memories recall would see: not archived.
func live(t *testing.T, s *app.Service) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range s.List(ctx, operator, app.ListInput{}).Memories {
		if m.Partition != vault.Archive {
			out[m.ID] = m.Content
		}
	}
	return out
}

func TestDuplicateWritesMerge(t *testing.T) {
	tests := []struct{ name, first, second string }{
		{"same text, other case and punctuation", "The deploy script lives in ops/deploy.sh", "the deploy script lives in ops deploy sh!"},
		{"near duplicate", "we deploy with the script in ops every friday after the standup with two reviewers and a changelog entry",
			"we deploy with the script in ops every friday after the standup with two reviewers and a changelog entry today"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := recallService(t, "")
			first := storeOK(t, s, claude, app.StoreInput{Content: tc.first, Tags: []string{"ops"}}).Memory
			before := app.CurrentConfidence(first, first.Created)
			// Another session of the same agent (agents never see each
			// other's internal memories, so they cannot duplicate them).
			again := app.Request{Caller: app.Caller{Agent: "claude-code", Session: "s2"}, Authorized: true}
			r := s.Store(ctx, again, app.StoreInput{Content: tc.second, Tags: []string{"deploy"}})
			if !r.OK() || r.Memory.ID != first.ID || len(r.Warnings) == 0 || !strings.Contains(r.Warnings[len(r.Warnings)-1], "duplicate of memory "+first.ID) {
				t.Fatalf("second write = %s %+v %q; want the first memory back with a duplicate warning", r.Status, r.Memory, r.Warnings)
			}
			if n := len(live(t, s)); n != 1 {
				t.Fatalf("%d memories after a duplicate write, want 1", n)
			}
			m := r.Memory
			if v := m.Provenance.Verifications; len(v) != 1 || v[0].Verdict != vault.Observed || v[0].Agent != "claude-code" {
				t.Fatalf("verifications = %+v, want one observation by the writer", v)
			}
			if got := app.CurrentConfidence(m, first.Created); got <= before {
				t.Fatalf("confidence %.3f after an observation, was %.3f", got, before)
			}
			if strings.Join(m.Tags, ",") != "ops,deploy" {
				t.Fatalf("tags = %v, want the union", m.Tags)
			}
		})
	}
}

func TestUnrelatedAndOtherFieldWritesAreKept(t *testing.T) {
	s := recallService(t, "")
	storeOK(t, s, claude, app.StoreInput{Content: "the staging database listens on port 5432"})
	storeOK(t, s, claude, app.StoreInput{Content: "the team indents Go code with tabs"})
	storeOK(t, s, claude, app.StoreInput{Content: "the staging database listens on port 5432", Field: "decisions"})
	// Two long texts on one topic share many words; one saying "not"
	// somewhere does not make it the other's contradiction.
	storeOK(t, s, operator, app.StoreInput{Content: "The vaccine trial enrolled 400 adults across six sites and measured antibody levels after the second dose in every group."})
	storeOK(t, s, operator, app.StoreInput{Content: "The vaccine trial enrolled 400 adults across six sites; antibody levels after the second dose did not differ between the groups."})
	if n := len(live(t, s)); n != 5 {
		t.Fatalf("%d memories, want 5: unrelated texts, other fields and long texts on one topic are kept", n)
	}
}

func TestConflictResolution(t *testing.T) {
	tests := []struct {
		name     string
		strategy app.ConflictStrategy
		first    app.Request
		second   app.Request
		a, b     string
		status   app.Status // of the second write
		survivor string     // "first", "second" or "queued"
	}{
		{"equal trust: the newer wins", app.ResolveTrust, claude, claude,
			"the staging database accepts remote connections", "the staging database no longer accepts remote connections", app.StatusOK, "second"},
		{"the user's memory outranks an agent's", app.ResolveTrust, operator, claude,
			"deploys happen on fridays after the standup", "deploys never happen on fridays after the standup", app.StatusConflict, "first"},
		{"recency: the newer wins whoever wrote it", app.ResolveRecency, operator, claude,
			"deploys happen on fridays after the standup", "deploys never happen on fridays after the standup", app.StatusOK, "second"},
		{"confidence: the more confident wins", app.ResolveConfidence, operator, claude,
			"the release branch is cut from main on mondays", "the release branch is not cut from main on mondays", app.StatusConflict, "first"},
		{"ask: the user decides", app.ResolveAsk, claude, claude,
			"the staging database accepts remote connections", "the staging database does not accept remote connections", app.StatusQuarantined, "queued"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := recallService(t, tc.strategy)
			first := storeOK(t, s, tc.first, app.StoreInput{Content: tc.a}).Memory
			r := s.Store(ctx, tc.second, app.StoreInput{Content: tc.b})
			if r.Status != tc.status {
				t.Fatalf("second write = %s (%s), want %s", r.Status, r.Message, tc.status)
			}
			got := live(t, s)
			switch tc.survivor {
			case "queued":
				q := s.Quarantine(ctx, operator)
				if len(got) != 1 || got[first.ID] != tc.a || len(q.Items) != 1 || !strings.Contains(q.Items[0].Reason, "conflicts with memory "+first.ID) {
					t.Fatalf("live %v, queue %+v", got, q.Items)
				}
				return
			case "first":
				if len(got) != 1 || got[first.ID] != tc.a {
					t.Fatalf("live memories %v, want only the first", got)
				}
			case "second":
				if len(got) != 1 || got[r.Memory.ID] != tc.b {
					t.Fatalf("live memories %v, want only the second", got)
				}
			}
			// The loser is archived with a pointer to the winner, and its
			// history shows why.
			loser, winner := first.ID, r.Memory.ID
			if tc.survivor == "first" {
				loser, winner = r.Memory.ID, first.ID
			}
			h := s.History(ctx, operator, loser)
			if !h.OK() || h.Memory.Partition != vault.Archive || h.Memory.Archive.Pointer != winner || !strings.Contains(h.Memory.Archive.Reason, "conflicts with memory "+winner) {
				t.Fatalf("loser = %+v", h.Memory)
			}
		})
	}
}

func TestDifferentNumbersOnlyWarn(t *testing.T) {
	s := recallService(t, "")
	first := storeOK(t, s, claude, app.StoreInput{Content: "the staging database listens on port 5432"}).Memory
	r := s.Store(ctx, claude, app.StoreInput{Content: "the staging database listens on port 6543"})
	if !r.OK() || !strings.Contains(strings.Join(r.Warnings, " "), "may contradict memory "+first.ID) {
		t.Fatalf("second write = %s %q; want stored with a warning", r.Status, r.Warnings)
	}
	storeOK(t, s, claude, app.StoreInput{Content: "build 41 passed on main"})
	storeOK(t, s, claude, app.StoreInput{Content: "build 42 passed on main"})
	// The same words in another order say something else: not duplicates.
	storeOK(t, s, claude, app.StoreInput{Content: "crash 1 writer 3 note 0"})
	storeOK(t, s, claude, app.StoreInput{Content: "crash 1 writer 0 note 3"})
	if n := len(live(t, s)); n != 6 {
		t.Fatalf("%d live memories, want all 6: numbers alone never archive or merge", n)
	}
}

func TestExplicitSupersedes(t *testing.T) {
	s := recallService(t, "")
	old := storeOK(t, s, claude, app.StoreInput{Content: "builds run on the jenkins box"}).Memory
	r := s.Store(ctx, claude, app.StoreInput{Content: "CI moved to GitHub Actions in March", Supersedes: old.ID})
	if !r.OK() || !strings.Contains(strings.Join(r.Warnings, " "), "supersedes memory "+old.ID) {
		t.Fatalf("superseding write = %s %q", r.Status, r.Warnings)
	}
	if got := live(t, s); len(got) != 1 || got[r.Memory.ID] == "" {
		t.Fatalf("live = %v", got)
	}
	// An agent cannot supersede what it may not read.
	secret := storeOK(t, s, operator, app.StoreInput{Content: "my doctor is dr. rivera", Partition: "sensitive"}).Memory
	if r := s.Store(ctx, claude, app.StoreInput{Content: "no doctor on file", Supersedes: secret.ID}); r.OK() || r.Memory != nil {
		t.Fatalf("superseding an unreadable memory = %s", r.Status)
	}
}

func TestAgentsDoNotMergeIntoOthersMemories(t *testing.T) {
	s := recallService(t, "")
	storeOK(t, s, claude, app.StoreInput{Content: "the staging database listens on port 5432"})
	r := s.Store(ctx, cursor, app.StoreInput{Content: "the staging database listens on port 5432"})
	if !r.OK() || len(r.Warnings) != 0 {
		t.Fatalf("cursor's write = %s %q: another agent's internal memory must not be revealed by a merge", r.Status, r.Warnings)
	}
	if n := len(live(t, s)); n != 2 {
		t.Fatalf("%d memories, want each agent's own", n)
	}
}

// TestConfidenceBoostsOncePerAgent: an agent cannot raise a memory's
// confidence by confirming it again and again or by writing it again and
// again; its confirmation of its own memory counts for nothing, another
// agent's once.
func TestConfidenceBoostsOncePerAgent(t *testing.T) {
	s := recallService(t, "")
	// Two agents of one group: each reads the other's memories.
	claude, cursor := writerAndPeer(t, s)
	m := storeOK(t, s, claude, app.StoreInput{Content: "The release branch is cut every second Tuesday"}).Memory
	at := m.Created
	base := app.CurrentConfidence(m, at)
	get := func() *vault.Memory {
		t.Helper()
		r := s.Get(ctx, operator, m.ID)
		if r.Memory == nil {
			t.Fatalf("Get = %+v", r.Response)
		}
		return r.Memory
	}
	for i := 0; i < 3; i++ {
		if r := s.Confirm(ctx, claude, m.ID, "checked the calendar"); !r.OK() {
			t.Fatalf("Confirm by the writer = %+v", r.Response)
		}
	}
	if got := app.CurrentConfidence(get(), at); got != base {
		t.Errorf("confidence %.3f after the writer confirmed its own memory three times, want %.3f", got, base)
	}
	for i := 0; i < 3; i++ {
		if r := s.Confirm(ctx, cursor, m.ID, "checked the calendar"); !r.OK() {
			t.Fatalf("Confirm by another agent = %+v", r.Response)
		}
	}
	once := app.CurrentConfidence(get(), at)
	if once <= base || once > base+0.1+1e-9 {
		t.Errorf("confidence %.3f after another agent confirmed three times, want %.3f + 0.1 once", once, base)
	}
	for i := 0; i < 3; i++ {
		again := claude
		again.Caller.Session = fmt.Sprintf("later-%d", i)
		if r := s.Store(ctx, again, app.StoreInput{Content: "The release branch is cut every second Tuesday"}); !r.OK() || r.Memory.ID != m.ID {
			t.Fatalf("the writer's repeat = %+v; want it merged into %s", r, m.ID)
		}
	}
	if got := app.CurrentConfidence(get(), at); got > once+0.05+1e-9 {
		t.Errorf("confidence %.3f after the writer wrote it three more times, want at most one observation's boost over %.3f", got, once)
	}
}
