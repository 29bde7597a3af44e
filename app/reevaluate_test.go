package app_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/importer"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// newReevalService is a service with keyword recall over a fresh vault,
// and the vault's clock, which each step of a test moves on (verdicts are
// ordered by time).
func newReevalService(t *testing.T) (*app.Service, *vault.Vault, *vaulttest.Clock) {
	t.Helper()
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now, Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, v, clock
}

// team registers claude-code, cursor and bob in one group, so that each
// reads (and may confirm) the others' internal memories.
func team(t *testing.T, s *app.Service) (claude, cursor, bob app.Request) {
	t.Helper()
	return register(t, s, app.AgentSpec{Name: "claude-code", Group: "team"}), register(t, s, app.AgentSpec{Name: "cursor", Group: "team"}),
		register(t, s, app.AgentSpec{Name: "bob", Group: "team"})
}

// stored stores in as req at the clock's next minute and returns the memory.
func stored(t *testing.T, s *app.Service, clock *vaulttest.Clock, req app.Request, in app.StoreInput) *app.Memory {
	t.Helper()
	clock.Advance(time.Minute)
	return mustStore(t, s, req, in)
}

// reevaluate runs a re-evaluation and fails t unless it answers ok.
func reevaluate(t *testing.T, s *app.Service, in app.ReevaluateInput) app.ReevaluateResponse {
	t.Helper()
	r := s.Reevaluate(ctx, operator, in)
	if !r.OK() {
		t.Fatalf("Reevaluate(%+v) = %+v", in, r.Response)
	}
	return r
}

// whys maps the ids of rs to why each was listed.
func whys(rs []app.Reevaluated) map[string]string {
	out := map[string]string{}
	for _, r := range rs {
		out[r.ID] = r.Why
	}
	return out
}

// wantWhys fails t unless got lists exactly the ids of want, each with a
// reason that begins as want says.
func wantWhys(t *testing.T, what string, got []app.Reevaluated, want map[string]string) {
	t.Helper()
	g := whys(got)
	for id, w := range want {
		if !strings.HasPrefix(g[id], w) {
			t.Errorf("%s: %s is listed with %q, want %q", what, id, g[id], w)
		}
	}
	for id, w := range g {
		if _, ok := want[id]; !ok {
			t.Errorf("%s: %s is listed (%q), want it not", what, id, w)
		}
	}
}

// clau2 is claude-code in another session.
var clau2 = app.Request{Caller: app.Caller{Agent: "claude-code", Session: "s2"}, Authorized: true}

// TestReevaluateWrittenBy: everything an agent wrote is selected, nothing
// of another agent's or the user's, and the dry run changes no byte of
// the vault file.
func TestReevaluateWrittenBy(t *testing.T) {
	s, v, clock := newReevalService(t)
	a := stored(t, s, clock, claude, app.StoreInput{Content: "deploys go through ops/deploy.sh"})
	b := stored(t, s, clock, clau2, app.StoreInput{Content: "the staging cluster is called falcon"})
	stored(t, s, clock, cursor, app.StoreInput{Content: "cursor prefers tabs"})
	stored(t, s, clock, operator, app.StoreInput{Content: "the office closes at six"})

	sum := func() [32]byte {
		raw, err := os.ReadFile(v.Path())
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(raw)
	}
	head, _ := v.AuditHead()
	before := sum()
	r := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code", DryRun: true})
	wantWhys(t, "dry run", r.Selected, map[string]string{a.ID: "written by claude-code", b.ID: "written by claude-code"})
	if r.Held != 0 || len(r.LeftAlone) != 0 || !strings.Contains(r.Message, "2 live memories would be held for your review (2 written by it)") {
		t.Fatalf("dry run = %+v", r)
	}
	if after, _ := v.AuditHead(); after != head || sum() != before {
		t.Fatal("the dry run changed the vault file")
	}
	if l := s.List(ctx, operator, app.ListInput{}); len(l.Memories) != 4 {
		t.Fatalf("after the dry run %d live memories, want 4", len(l.Memories))
	}
	for _, in := range []app.ReevaluateInput{{}, {Agent: "operator"}, {Agent: "claude code"}, {Agent: "claude-code", Session: "s 1"}} {
		if r := s.Reevaluate(ctx, operator, in); r.Status != app.StatusInvalid {
			t.Errorf("Reevaluate(%+v) = %+v, want invalid", in, r.Response)
		}
	}
	// Only the user re-evaluates: an agent is refused, whatever it names.
	if r := s.Reevaluate(ctx, cursor, app.ReevaluateInput{Agent: "claude-code"}); r.Status != app.StatusUnauthorized || len(r.Selected) != 0 {
		t.Fatalf("an agent's Reevaluate = %+v, want unauthorized", r)
	}
}

// TestReevaluateSession: a session's review selects what the agent wrote
// or changed in that session, also when the agent named another session
// as the source of its write (the audit log names the channel's), and
// nothing of its other sessions.
func TestReevaluateSession(t *testing.T) {
	s, _, clock := newReevalService(t)
	in1 := stored(t, s, clock, claude, app.StoreInput{Content: "the build cache lives in s3"})
	in2 := stored(t, s, clock, clau2, app.StoreInput{Content: "releases are tagged on mondays"})
	hidden := stored(t, s, clock, clau2, app.StoreInput{Content: "the ci runners are in frankfurt", Source: app.Source{SessionID: "s9"}})
	changed := stored(t, s, clock, claude, app.StoreInput{Content: "the wiki moved to notion"})
	clock.Advance(time.Minute)
	text := "the wiki moved to confluence"
	if r := s.Update(ctx, clau2, changed.ID, app.UpdateInput{Content: &text}); !r.OK() {
		t.Fatal(r.Response)
	}
	r := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code", Session: "s2", DryRun: true})
	wantWhys(t, "session s2", r.Selected, map[string]string{
		in2.ID: "written by claude-code in session s2", hidden.ID: "written by claude-code in session s2", changed.ID: "changed by claude-code in session s2",
	})
	r = reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code", Session: "s1", DryRun: true})
	wantWhys(t, "session s1", r.Selected, map[string]string{in1.ID: "written by claude-code in session s1", changed.ID: "written by claude-code in session s1"})
	if r.Source != "claude-code (session s1)" {
		t.Errorf("source = %q", r.Source)
	}
}

// TestReevaluateImportRun: the review of one import run selects what it
// stored and the memories whose only support is its repeated entries,
// nothing of another run of the same importer.
func TestReevaluateImportRun(t *testing.T) {
	s, _, clock := newReevalService(t)
	// Public, as the imports ask, so that an import finds its entry a
	// duplicate (duplicates are found within one partition).
	theirs := makePublic(t, s, stored(t, s, clock, cursor, app.StoreInput{Content: "Run make test before pushing", Field: vault.Conventions}))
	imp := func(text string) app.ImportEntriesResponse {
		t.Helper()
		clock.Advance(time.Minute)
		entries, _, err := importer.Parse(importer.Claude, "CLAUDE.md", []byte("# Conventions\n\n- "+text+"\n- Run make test before pushing\n"))
		if err != nil {
			t.Fatal(err)
		}
		r := s.ImportEntries(ctx, operator, entries, app.ImportOptions{Format: importer.Claude, Partition: vault.Public})
		if !r.OK() || r.Stored != 1 || r.Merged != 1 {
			t.Fatalf("import = %+v", r)
		}
		return r
	}
	first := imp("Use tabs for indentation")
	second := imp("Commit messages are in English")
	idOf := func(r app.ImportEntriesResponse) string {
		for _, res := range r.Results {
			if res.Outcome == app.ImportStored {
				return res.ID
			}
		}
		t.Fatal("nothing stored")
		return ""
	}
	firstID, secondID := idOf(first), idOf(second)
	session := s.Get(ctx, operator, firstID).Memory.Source.SessionID
	if !app.IsImportSession(session) {
		t.Fatalf("an imported memory's session is %q, not an import run's", session)
	}
	r := reevaluate(t, s, app.ReevaluateInput{Agent: "import:claude", Session: session, DryRun: true})
	// The duplicate line was merged into cursor's memory by both runs:
	// its support is two runs of one importer, the same agent, so it
	// rests on the importer, and on this run.
	wantWhys(t, "the first import", r.Selected, map[string]string{firstID: "written by import:claude in session " + session, theirs.ID: "repeated only by import:claude"})
	r = reevaluate(t, s, app.ReevaluateInput{Agent: "import:claude", DryRun: true})
	wantWhys(t, "every import", r.Selected, map[string]string{firstID: "written by", secondID: "written by", theirs.ID: "repeated only by"})
}

// TestReevaluateMergedFrom: a merge result that holds the text of a
// memory the agent wrote rests on it, through a second merge too, also
// when the user's memory was the oldest source (the result is then the
// user's); one that kept the user's text does not.
func TestReevaluateMergedFrom(t *testing.T) {
	s, _, clock := newReevalService(t)
	x := stored(t, s, clock, claude, app.StoreInput{Content: "the api rate limit is 100 per minute"})
	mine := stored(t, s, clock, operator, app.StoreInput{Content: "the api has a rate limit"})
	other := stored(t, s, clock, operator, app.StoreInput{Content: "quotas reset at midnight"})
	mine2 := stored(t, s, clock, operator, app.StoreInput{Content: "the queue is kafka"})
	y := stored(t, s, clock, claude, app.StoreInput{Content: "the queue is rabbitmq"})
	merge := func(strategy app.MergeStrategy, ids ...string) *app.Memory {
		t.Helper()
		clock.Advance(time.Minute)
		r := s.Merge(ctx, operator, app.MergeInput{IDs: ids, Strategy: strategy})
		if !r.OK() {
			t.Fatal(r.Response)
		}
		return r.Memory
	}
	union := merge(app.MergeUnion, x.ID, mine.ID)        // claude's memory is the oldest source: claude owns it
	chained := merge(app.MergeUnion, other.ID, union.ID) // the user's is the oldest: the user owns it, with claude's text
	kept := merge(app.MergePrioritize, mine2.ID, y.ID)   // the user's text wins: nothing of claude's stays
	if union.Owner != "claude-code" || chained.Owner != "operator" || kept.Owner != "operator" || kept.Content != mine2.Content {
		t.Fatalf("merges: union owner %q, chained owner %q, kept %q by %q", union.Owner, chained.Owner, kept.Content, kept.Owner)
	}
	// It came from x through union, which claude-code owns too: either
	// names a memory claude-code wrote.
	r := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code", DryRun: true})
	fromX, fromUnion := "merged from memory "+x.ID+", which was written by claude-code", "merged from memory "+union.ID+", which was written by claude-code"
	if got := whys(r.Selected); len(got) != 1 || (got[chained.ID] != fromX && got[chained.ID] != fromUnion) {
		t.Fatalf("merges: selected %v, want %s %q", got, chained.ID, fromX)
	}
	if w := whys(r.LeftAlone); w[kept.ID] != "" || w[chained.ID] != "" {
		t.Errorf("left alone: %v", w)
	}
	// The user's confirmation of the merge result is a verdict on it.
	clock.Advance(time.Minute)
	if c := s.Confirm(ctx, operator, chained.ID, ""); !c.OK() {
		t.Fatal(c.Response)
	}
	r = reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code", DryRun: true})
	if got := whys(r.LeftAlone)[chained.ID]; !strings.HasSuffix(got, "; left alone: you confirmed it since") {
		t.Errorf("after the user's confirmation: %q", got)
	}
	if len(r.Selected) != 0 {
		t.Errorf("selected after the user's confirmation: %+v", r.Selected)
	}
}

// TestReevaluateMergedFromOthers: a merge of another agent's memory with
// one the agent wrote, whose oldest source is the other agent's, is
// selected as merged from the agent's memory.
func TestReevaluateMergedFromOthers(t *testing.T) {
	s, _, clock := newReevalService(t)
	c := stored(t, s, clock, cursor, app.StoreInput{Content: "the cdn is cloudfront"})
	x := stored(t, s, clock, claude, app.StoreInput{Content: "the cdn caches for an hour"})
	clock.Advance(time.Minute)
	m := s.Merge(ctx, operator, app.MergeInput{IDs: []string{c.ID, x.ID}})
	if !m.OK() || m.Memory.Owner != "cursor" {
		t.Fatalf("merge = %+v", m)
	}
	r := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code", DryRun: true})
	wantWhys(t, "merge", r.Selected, map[string]string{m.Memory.ID: "merged from memory " + x.ID + ", which was written by claude-code"})
	r = reevaluate(t, s, app.ReevaluateInput{Agent: "cursor", DryRun: true})
	wantWhys(t, "merge, for cursor", r.Selected, map[string]string{m.Memory.ID: "written by cursor"})
}

// TestReevaluateUsersVerdictStands: the user's own memories the agent
// confirmed, and its memories the user confirmed, approved or edited
// since, are left alone and counted; another agent's memory confirmed
// only by it is selected, one confirmed by two agents is not; a memory
// the agent changed after the user's confirmation is selected again.
func TestReevaluateUsersVerdictStands(t *testing.T) {
	s, _, clock := newReevalService(t)
	claude, cursor, bob := team(t, s)
	confirm := func(req app.Request, id string) {
		t.Helper()
		clock.Advance(time.Minute)
		if r := s.Confirm(ctx, req, id, ""); !r.OK() {
			t.Fatal(r.Response)
		}
	}
	onlyByClaude := stored(t, s, clock, cursor, app.StoreInput{Content: "the linter is golangci-lint"})
	confirm(claude, onlyByClaude.ID)
	byTwo := stored(t, s, clock, cursor, app.StoreInput{Content: "the formatter is gofumpt"})
	confirm(claude, byTwo.ID)
	confirm(bob, byTwo.ID)
	userToo := stored(t, s, clock, cursor, app.StoreInput{Content: "the editor is neovim"})
	confirm(claude, userToo.ID)
	confirm(operator, userToo.ID)
	users := stored(t, s, clock, operator, app.StoreInput{Content: "my manager is dana"})
	confirm(claude, users.ID)
	confirmedByUser := stored(t, s, clock, claude, app.StoreInput{Content: "the db is postgres 16"})
	confirm(operator, confirmedByUser.ID)
	changedSince := stored(t, s, clock, claude, app.StoreInput{Content: "the cache is redis 6"})
	confirm(operator, changedSince.ID)
	clock.Advance(time.Minute)
	text := "the cache is redis 7"
	if r := s.Update(ctx, claude, changedSince.ID, app.UpdateInput{Content: &text}); !r.OK() {
		t.Fatal(r.Response)
	}
	editedByUser := stored(t, s, clock, claude, app.StoreInput{Content: "the broker is nats"})
	clock.Advance(time.Minute)
	text2 := "the broker is nats jetstream"
	if r := s.Update(ctx, operator, editedByUser.ID, app.UpdateInput{Content: &text2}); !r.OK() {
		t.Fatal(r.Response)
	}
	clock.Advance(time.Minute)
	q := s.Store(ctx, claude, app.StoreInput{Content: "the status page is at status.example.com", Source: app.Source{Type: "web_fetch"}})
	if q.Status != app.StatusQuarantined {
		t.Fatalf("web write = %s", q.Status)
	}
	approved := s.Approve(ctx, operator, q.QueueID, nil)
	if !approved.OK() {
		t.Fatal(approved.Response)
	}

	r := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code", DryRun: true})
	wantWhys(t, "selected", r.Selected, map[string]string{
		onlyByClaude.ID: "confirmed only by claude-code", changedSince.ID: "written by claude-code",
	})
	wantWhys(t, "left alone", r.LeftAlone, map[string]string{
		userToo.ID:         "confirmed only by claude-code; left alone: you confirmed it since",
		users.ID:           "your own memory, which claude-code confirmed",
		confirmedByUser.ID: "written by claude-code; left alone: you confirmed it since",
		editedByUser.ID:    "written by claude-code; left alone: you edited it since",
		approved.Memory.ID: "written by claude-code; left alone: you approved it from the quarantine",
	})
	for _, want := range []string{"1 of your own memories that it confirmed or wrote again was left alone", "4 memories resting on it were left alone because you confirmed, approved or edited them since"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message %q lacks %q", r.Message, want)
		}
	}
}

// TestReevaluateLocked: while the vault is locked, sealed memories are
// counted and left where they are, the rest is held; once unlocked, a
// second run holds the sealed ones, in sealed review items.
func TestReevaluateLocked(t *testing.T) {
	s, v, clock := newReevalService(t)
	plain := stored(t, s, clock, claude, app.StoreInput{Content: "the vpn is wireguard"})
	sealed := stored(t, s, clock, claude, app.StoreInput{Content: "the contractor Alice Smith is reached at alice.smith@example.com"})
	if sealed.Partition != vault.Sensitive {
		t.Fatalf("personal data went to %s", sealed.Partition)
	}
	v.Lock()
	r := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code"})
	wantWhys(t, "locked", r.Selected, map[string]string{plain.ID: "written by"})
	if r.Held != 1 || r.Locked != 1 || !strings.Contains(r.Message, "1 sealed memory could not be examined while the vault is locked") {
		t.Fatalf("locked run = %+v", r)
	}
	if err := v.Unlock(ctx, []byte(vaulttest.Passphrase)); err != nil {
		t.Fatal(err)
	}
	r = reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code"})
	wantWhys(t, "unlocked", r.Selected, map[string]string{sealed.ID: "written by"})
	if r.Held != 1 || r.Locked != 0 {
		t.Fatalf("unlocked run = %+v", r)
	}
	v.Lock()
	recs, hidden, err := v.QueueList()
	if err != nil || len(recs) != 1 || hidden != 1 {
		t.Fatalf("queue while locked: %d shown, %d hidden, %v; want the sealed item hidden", len(recs), hidden, err)
	}
	if strings.Contains(string(recs[0].Data), "alice") {
		t.Fatal("the plain item holds the sealed memory")
	}
}

// snapshot is a memory and its kept versions, as the user sees them.
type snapshot struct {
	m        app.Memory
	versions []app.Version
}

func snap(t *testing.T, s *app.Service, id string) snapshot {
	t.Helper()
	h := s.History(ctx, operator, id)
	if !h.OK() {
		t.Fatalf("History(%s) = %+v", id, h.Response)
	}
	return snapshot{*h.Memory, h.Versions}
}

// TestReevaluateHoldThenApproveRestoresExactly: holding takes a memory out
// of every agent's reach (recall and get) into the quarantine, with its
// reason; approving brings it back exactly as it was (the same id, state,
// provenance and every earlier version), with the user's confirmation and
// the hold and restore as two more versions; agents recall it again.
func TestReevaluateHoldThenApproveRestoresExactly(t *testing.T) {
	s, v, clock := newReevalService(t)
	claude, cursor, _ := team(t, s)
	m := stored(t, s, clock, claude, app.StoreInput{Content: "the kiwi deploy runs at noon", Tags: []string{"ops"}})
	clock.Advance(time.Minute)
	text := "the kiwi deploy runs at one"
	if r := s.Update(ctx, claude, m.ID, app.UpdateInput{Content: &text}); !r.OK() {
		t.Fatal(r.Response)
	}
	clock.Advance(time.Minute)
	if r := s.Confirm(ctx, cursor, m.ID, "seen in the runbook"); !r.OK() {
		t.Fatal(r.Response)
	}
	before := snap(t, s, m.ID)
	if got := recallIDs(t, s, cursor, app.RecallInput{Query: "kiwi deploy"}); !slices.Contains(got, text) {
		t.Fatalf("before: cursor recalls %q", got)
	}

	clock.Advance(time.Minute)
	r := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code"})
	if r.Held != 1 || len(r.Selected) != 1 || r.Selected[0].QueueID == "" || !strings.Contains(r.Message, "1 memory held for your review") {
		t.Fatalf("hold = %+v", r)
	}
	for _, req := range []app.Request{claude, cursor} {
		if got := s.Get(ctx, req, m.ID); got.OK() {
			t.Errorf("%s reads the held memory", req.Caller.Agent)
		}
		if got := recallIDs(t, s, req, app.RecallInput{Query: "kiwi deploy"}); len(got) != 0 {
			t.Errorf("%s recalls the held memory: %q", req.Caller.Agent, got)
		}
	}
	if l := s.List(ctx, operator, app.ListInput{}); len(l.Memories) != 0 {
		t.Fatalf("%d live memories after the hold", len(l.Memories))
	}
	q := s.Quarantine(ctx, operator)
	if len(q.Items) != 1 {
		t.Fatalf("queue = %+v", q)
	}
	it := q.Items[0]
	if it.Kind != quarantine.KindReevaluation || it.Memory.ID != m.ID || it.Memory.Content != text || it.ID != r.Selected[0].QueueID ||
		it.Reason != "held for review: claude-code found unreliable; written by it" || it.Proposal == quarantine.ProposeSafe {
		t.Fatalf("item = %+v", it)
	}
	log, _ := v.AuditLog(vault.AuditFilter{Action: vault.ActionQuarantine})
	if len(log) != 1 || log[0].Reason != "re-evaluate claude-code" || log[0].MemoryID != m.ID || log[0].Agent != "operator" {
		t.Fatalf("quarantine:add entries = %+v", log)
	}
	// Nothing more rests on it while it is held: a second run holds nothing.
	if again := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code"}); len(again.Selected) != 0 || again.Held != 0 {
		t.Fatalf("second run = %+v", again)
	}
	if e := s.Approve(ctx, operator, it.ID, &text); e.Status != app.StatusInvalid {
		t.Fatalf("approve with an edit = %+v, want invalid", e.Response)
	}

	clock.Advance(time.Minute)
	got := s.Approve(ctx, operator, it.ID, nil)
	if !got.OK() {
		t.Fatal(got.Response)
	}
	after := snap(t, s, m.ID)
	b, a := before.m, after.m
	if a.ID != b.ID || a.Content != b.Content || a.Partition != b.Partition || a.Field != b.Field || a.Kind != b.Kind || a.Tier != b.Tier ||
		!slices.Equal(a.Tags, b.Tags) || a.Source != b.Source || a.Owner != b.Owner || a.Product != b.Product || a.Trust != b.Trust ||
		a.Confidence != b.Confidence || !a.Created.Equal(b.Created) || a.Pinned != b.Pinned || a.ContentHash != b.ContentHash || a.Archive != nil {
		t.Fatalf("after approval the memory differs:\n%+v\nwant\n%+v", a, b)
	}
	if a.StateHash() != b.StateHash() {
		t.Fatal("the restored state differs from the held one")
	}
	if a.Version != b.Version+2 {
		t.Errorf("version %d after the hold and restore of version %d, want two more", a.Version, b.Version)
	}
	gb, _ := json.Marshal(b.Provenance.Genesis)
	ga, _ := json.Marshal(a.Provenance.Genesis)
	if !bytes.Equal(ga, gb) || !slices.EqualFunc(a.Provenance.Modifications[:len(b.Provenance.Modifications)], b.Provenance.Modifications, sameModification) {
		t.Fatal("the provenance before the hold was not kept")
	}
	ops := []vault.Operation{}
	for _, mod := range a.Provenance.Modifications[len(b.Provenance.Modifications):] {
		ops = append(ops, mod.Operation)
	}
	if !slices.Equal(ops, []vault.Operation{vault.OpArchive, vault.OpRestore}) {
		t.Errorf("modifications added = %v, want ARCHIVE, RESTORE", ops)
	}
	vs := a.Provenance.Verifications
	if len(vs) != len(b.Provenance.Verifications)+1 || vs[len(vs)-1].Agent != "operator" || vs[len(vs)-1].Verdict != vault.Confirmed {
		t.Errorf("verifications after approval = %+v, want the earlier ones and the user's confirmation", vs)
	}
	for i, ver := range before.versions {
		if i >= len(after.versions) || after.versions[i].Version != ver.Version || after.versions[i].StateHash != ver.StateHash || after.versions[i].Memory.Content != ver.Memory.Content {
			t.Fatalf("version %d was not kept as it was", ver.Version)
		}
	}
	if q := s.Quarantine(ctx, operator); len(q.Items) != 0 {
		t.Fatalf("%d items left after approval", len(q.Items))
	}
	if got := recallIDs(t, s, cursor, app.RecallInput{Query: "kiwi deploy"}); !slices.Contains(got, text) {
		t.Fatalf("after approval cursor recalls %q", got)
	}
	// The user's verdict stands now: a new review leaves it alone.
	if again := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code", DryRun: true}); len(again.Selected) != 0 || len(again.LeftAlone) != 1 {
		t.Fatalf("review after approval = %+v", again)
	}
	log, _ = v.AuditLog(vault.AuditFilter{Action: vault.ActionApprove})
	if len(log) != 1 || log[0].MemoryID != m.ID || !strings.HasPrefix(log[0].Reason, "re-evaluate claude-code") {
		t.Fatalf("quarantine:approve entries = %+v", log)
	}
}

func sameModification(x, y vault.Modification) bool {
	return x.Agent == y.Agent && x.Operation == y.Operation && x.Reason == y.Reason && x.Time.Equal(y.Time) && x.PrevHash == y.PrevHash && x.Version == y.Version
}

// TestReevaluateRejectRemovesEveryByte: rejecting a held memory deletes
// it with its versions and its review item; once the free pages are
// scrubbed, no byte of its text is left in the vault file, and the audit
// log never held it.
func TestReevaluateRejectRemovesEveryByte(t *testing.T) {
	s, v, clock := newReevalService(t)
	// Words, not a random string: the guard holds a long random string
	// (or one a sentence names as a password) for the user's confirmation.
	const marker = "reevaluation marker Quillon Vantabridge Ostermark"
	m := stored(t, s, clock, claude, app.StoreInput{Content: "the deploy hint is " + marker})
	clock.Advance(time.Minute)
	text := "the deploy hint is " + marker + " (rotated)"
	if r := s.Update(ctx, claude, m.ID, app.UpdateInput{Content: &text}); !r.OK() {
		t.Fatal(r.Response)
	}
	keep := stored(t, s, clock, cursor, app.StoreInput{Content: "the wiki is at wiki.example.com"})
	r := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code"})
	if r.Held != 1 {
		t.Fatalf("hold = %+v", r)
	}
	if res := s.Reject(ctx, operator, r.Selected[0].QueueID); !res.OK() {
		t.Fatal(res)
	}
	if got := s.Get(ctx, operator, m.ID); got.Status != app.StatusNotFound {
		t.Fatalf("after reject Get = %+v, want not found", got.Response)
	}
	if q := s.Quarantine(ctx, operator); len(q.Items) != 0 {
		t.Fatalf("%d items after reject", len(q.Items))
	}
	if _, err := v.Scrub(ctx); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(v.Path())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(marker)) {
		t.Fatal("the rejected memory's text is still in the vault file")
	}
	log, _ := v.AuditLog(vault.AuditFilter{})
	for _, e := range log {
		if b, _ := json.Marshal(e); bytes.Contains(b, []byte(marker)) {
			t.Fatalf("audit entry %d holds the text", e.Seq)
		}
	}
	if got := s.Get(ctx, operator, keep.ID); !got.OK() {
		t.Fatal("another agent's memory went too")
	}
	dismissed, _ := v.AuditLog(vault.AuditFilter{Action: vault.ActionDismiss})
	if len(dismissed) != 1 || dismissed[0].MemoryID != m.ID || dismissed[0].Reason != "re-evaluate claude-code: deleted" {
		t.Fatalf("quarantine:reject entries = %+v", dismissed)
	}
}

// TestReevaluateBulk: approving and rejecting held items one after the
// other, as the review screen's bulk actions do, keeps and deletes them.
func TestReevaluateBulk(t *testing.T) {
	s, _, clock := newReevalService(t)
	var ids []string
	for _, c := range []string{"alpha runs on port 8080", "beta runs on port 8081", "gamma runs on port 8082", "delta runs on port 8083"} {
		ids = append(ids, stored(t, s, clock, claude, app.StoreInput{Content: c}).ID)
	}
	r := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code"})
	if r.Held != 4 {
		t.Fatalf("hold = %+v", r)
	}
	for i, x := range r.Selected {
		var res app.Response
		if i%2 == 0 {
			res = s.Approve(ctx, operator, x.QueueID, nil).Response
		} else {
			res = s.Reject(ctx, operator, x.QueueID)
		}
		if !res.OK() {
			t.Fatalf("decide %d: %+v", i, res)
		}
	}
	for i, id := range ids {
		got := s.Get(ctx, operator, id)
		if (i%2 == 0) != got.OK() {
			t.Errorf("memory %d after bulk decisions: %s", i, got.Status)
		}
	}
}

// TestReevaluateInterruptedOrChanged: a run stopped after queuing an item
// but before archiving its memory is completed by the next run without a
// second item; a held memory the user restored by hand is not deleted by
// a later reject (the user's later act stands), and approving the item
// drops it.
func TestReevaluateInterruptedOrChanged(t *testing.T) {
	s, v, clock := newReevalService(t)
	m := stored(t, s, clock, claude, app.StoreInput{Content: "the backup bucket is in eu-west-1"})
	// What a run leaves when it stops between the item and the archive.
	it := quarantine.Item{ID: "7d0c4c34-7b0e-4b8a-9d7e-1f2a3b4c5d6e", State: quarantine.Pending, Kind: quarantine.KindReevaluation, Memory: *m,
		Agent: "claude-code", Reason: "held for review: claude-code found unreliable; written by it", Created: clock.Now()}
	data, _ := it.Encode()
	if err := v.QueuePut(it.ID, data, false, vault.AuditEntry{Action: vault.ActionQuarantine, Result: vault.ResultOK}); err != nil {
		t.Fatal(err)
	}
	r := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code"})
	if r.Held != 1 || r.Selected[0].QueueID != it.ID {
		t.Fatalf("completing run = %+v", r)
	}
	if q := s.Quarantine(ctx, operator); len(q.Items) != 1 {
		t.Fatalf("%d items, want the one left by the stopped run", len(q.Items))
	}
	clock.Advance(time.Minute)
	if res := s.Restore(ctx, operator, m.ID); !res.OK() {
		t.Fatal(res.Response)
	}
	if res := s.Reject(ctx, operator, it.ID); res.Status != app.StatusConflict {
		t.Fatalf("reject after a restore = %+v, want conflict", res)
	}
	if got := s.Get(ctx, operator, m.ID); !got.OK() || got.Memory.Partition != vault.Internal {
		t.Fatalf("the restored memory after the refused reject: %+v", got.Response)
	}
	if res := s.Approve(ctx, operator, it.ID, nil); !res.OK() {
		t.Fatal(res.Response)
	}
	if q := s.Quarantine(ctx, operator); len(q.Items) != 0 {
		t.Fatalf("%d items after approval", len(q.Items))
	}
}

// TestReevaluateDisplaced: memories the agent's word put in the archive
// (a conflict its write won, its refutation) are named, and stay there.
func TestReevaluateDisplaced(t *testing.T) {
	s, _, clock := newReevalService(t)
	claude, cursor, _ := team(t, s)
	old := stored(t, s, clock, cursor, app.StoreInput{Content: "the release branch is main"})
	clock.Advance(time.Minute)
	w := s.Store(ctx, claude, app.StoreInput{Content: "the release branch is trunk", Supersedes: old.ID})
	if !w.OK() {
		t.Fatal(w.Response)
	}
	wrong := stored(t, s, clock, cursor, app.StoreInput{Content: "the on-call rota changes on mondays"})
	clock.Advance(time.Minute)
	if r := s.Refute(ctx, claude, wrong.ID, "the rota changes on tuesdays"); !r.OK() || r.Message != "" {
		t.Fatalf("refute = %+v", r)
	}
	clock.Advance(time.Minute)
	sweepNow(t, s, clock)
	if got := s.Get(ctx, operator, wrong.ID); !got.OK() || got.Memory.Partition != vault.Archive {
		t.Fatalf("the refuted memory after the sweep: %+v", got.Response)
	}
	r := reevaluate(t, s, app.ReevaluateInput{Agent: "claude-code"})
	wantWhys(t, "displaced", r.Displaced, map[string]string{
		old.ID:   "archived when memory " + w.Memory.ID + ", which rests on it, superseded it",
		wrong.ID: "archived after claude-code refuted it",
	})
	if !strings.Contains(r.Message, "2 memories that its word put in the archive (a conflict it won, a refutation) stay there for you to restore") {
		t.Errorf("message %q", r.Message)
	}
	for _, id := range []string{old.ID, wrong.ID} {
		if got := s.Get(ctx, operator, id); got.Memory.Partition != vault.Archive {
			t.Errorf("%s left the archive", id)
		}
	}
}
