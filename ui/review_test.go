package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/importer"
	"github.com/engram-app/engram/vault"
)

// liveTexts lists the texts of the live memories.
func liveTexts(t *testing.T, u *UI) []string {
	t.Helper()
	l := u.h.Service().List(t.Context(), u.h.Operator(), app.ListInput{})
	if !l.OK() {
		t.Fatal(l.Response)
	}
	var out []string
	for _, m := range l.Memories {
		out = append(out, m.Content)
	}
	slices.Sort(out)
	return out
}

// selectAgent shows the agent named name in the Agents screen.
func selectAgent(t *testing.T, u *UI, name string) {
	t.Helper()
	u.agents.refresh()
	for i, a := range u.agents.agents.data {
		if a.Name == name {
			u.agents.list.Select(i)
			return
		}
	}
	t.Fatalf("agent %s is not listed", name)
}

// overlay is the dialog on top, or fails t.
func overlay(t *testing.T, u *UI) fyne.CanvasObject {
	t.Helper()
	top := u.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog is open")
	}
	return top
}

// TestAgentsReviewItsMemories: "Review its memories…" shows the count and
// the list first, in a question whose default (Enter, Escape) is Cancel;
// holding takes the agent's memories out of the live ones into the
// Quarantine, which shows each with its reason; Approve brings one back,
// Reject deletes the other.
func TestAgentsReviewItsMemories(t *testing.T) {
	u, _ := openUI(t)
	if r := u.h.Service().AddAgent(t.Context(), u.h.Operator(), app.AgentSpec{Name: "cursor"}); !r.OK() {
		t.Fatal(r.Response)
	}
	cursor := app.Request{Caller: app.Caller{Agent: "cursor", Session: "c1"}, Authorized: true}
	store(t, u, cursor, app.StoreInput{Content: "the kiwi deploy runs at noon"})
	store(t, u, cursor, app.StoreInput{Content: "the kiwi cluster has three nodes"})
	store(t, u, u.h.Operator(), app.StoreInput{Content: "the office closes at six"})
	u.tabs.SelectIndex(2)
	selectAgent(t, u, "cursor")
	if w := u.win.Content().MinSize().Width; w > 1100 {
		t.Errorf("the Agents screen with an agent shown needs %.0f pixels, more than the window's 1100", w)
	}
	test.Tap(button(t, u.agents.box, "Review its memories…"))
	dlg := overlay(t, u)
	if !hasLabel(dlg, "cursor: 2 live memories would be held for your review (2 written by it)") || !hasLabel(dlg, "written by cursor: the kiwi deploy runs at noon") {
		t.Fatalf("the question does not give the count and the list: %q", textsOf(dlg))
	}
	def, ok := u.win.Canvas().Focused().(*defaultButton)
	if !ok || def.Text != "Cancel" {
		t.Fatalf("the question's default is %v, want Cancel", u.win.Canvas().Focused())
	}
	def.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if u.win.Canvas().Overlays().Top() != nil || len(liveTexts(t, u)) != 3 {
		t.Fatal("Enter on the question moved something, or left it open")
	}

	test.Tap(button(t, u.agents.box, "Review its memories…"))
	test.Tap(button(t, overlay(t, u), "Hold 2 for review"))
	if got := liveTexts(t, u); !slices.Equal(got, []string{"the office closes at six"}) {
		t.Fatalf("live memories after the hold: %q", got)
	}
	if u.qTab.Text != "Quarantine (2)" {
		t.Fatalf("quarantine tab %q after the hold", u.qTab.Text)
	}
	s := u.quarantine
	u.tabs.Select(u.qTab)
	if !slices.ContainsFunc(textsOf(s.list), func(x string) bool { return x == "held for review" }) {
		t.Fatalf("the queue does not say the items are held for review: %q", textsOf(s.list))
	}
	idx := func(text string) int {
		for i, it := range s.items.data {
			if it.Memory.Content == text {
				return i
			}
		}
		t.Fatalf("%q is not in the queue", text)
		return -1
	}
	s.list.Select(idx("the kiwi deploy runs at noon"))
	if !hasLabel(s.box, "Held for review: you found cursor unreliable") || !hasLabel(s.box, "held for review: cursor found unreliable; written by it") {
		t.Fatalf("the held item does not say why it is held: %q", textsOf(s.box))
	}
	if b := button(t, s.box, "Reject"); b.Importance != widget.HighImportance {
		t.Error("Reject is not the primary button of a held memory")
	}
	if _, ok := find(s.box, func(o fyne.CanvasObject) bool { b := buttonOf(o); return b != nil && strings.HasPrefix(b.Text, "Edit") }); ok {
		t.Error("a held memory offers to be edited before approval")
	}
	test.Tap(button(t, s.box, "Approve"))
	test.Tap(button(t, overlay(t, u), "Approve anyway"))
	s.list.Select(idx("the kiwi cluster has three nodes"))
	test.Tap(button(t, s.box, "Reject"))
	if got := liveTexts(t, u); !slices.Equal(got, []string{"the kiwi deploy runs at noon", "the office closes at six"}) {
		t.Fatalf("live memories after approve and reject: %q", got)
	}
	if len(s.items.data) != 0 || u.qTab.Text != "Quarantine" {
		t.Fatalf("%d items left, tab %q", len(s.items.data), u.qTab.Text)
	}
}

// TestRevokeOffersReview: the revoke question counts the agent's live
// memories and offers to hold them too, unticked by default; ticked, the
// agent is revoked and its memories held.
func TestRevokeOffersReview(t *testing.T) {
	u, _ := openUI(t)
	for _, name := range []string{"cursor", "helper"} {
		if r := u.h.Service().AddAgent(t.Context(), u.h.Operator(), app.AgentSpec{Name: name}); !r.OK() {
			t.Fatal(r.Response)
		}
		req := app.Request{Caller: app.Caller{Agent: name, Session: "x"}, Authorized: true}
		store(t, u, req, app.StoreInput{Content: "the " + name + " note about ports"})
	}
	check := func() *keyCheck {
		t.Helper()
		c, ok := find(overlay(t, u), func(c *keyCheck) bool { return strings.HasPrefix(c.Text, "Also move its") })
		if !ok {
			t.Fatalf("the revoke question offers no review: %q", textsOf(overlay(t, u)))
		}
		return c
	}
	selectAgent(t, u, "cursor")
	test.Tap(button(t, u.agents.box, "Revoke"))
	if c := check(); c.Checked || c.Text != "Also move its 1 live memory to the review (Quarantine)" {
		t.Fatalf("the review box is %q, ticked %v; want it unticked with the count", c.Text, c.Checked)
	}
	test.Tap(button(t, overlay(t, u), "Revoke"))
	selectAgent(t, u, "helper")
	test.Tap(button(t, u.agents.box, "Revoke"))
	test.Tap(check())
	test.Tap(button(t, overlay(t, u), "Revoke"))
	for _, a := range u.h.Service().Agents(t.Context(), u.h.Operator()).Agents {
		if a.Status != app.AgentRevoked {
			t.Errorf("%s is %s after revoke", a.Name, a.Status)
		}
	}
	if got := liveTexts(t, u); !slices.Equal(got, []string{"the cursor note about ports"}) {
		t.Fatalf("live memories = %q; want cursor's kept (box unticked), helper's held", got)
	}
	if u.qTab.Text != "Quarantine (1)" {
		t.Fatalf("quarantine tab %q", u.qTab.Text)
	}
}

// TestAuditReviewImport: an import's entry in the Audit log offers "Review
// what this import wrote…", another entry does not; it holds that run's
// memories and nothing else.
func TestAuditReviewImport(t *testing.T) {
	u, _ := openUI(t)
	run := func(text string) {
		entries, _, err := importer.Parse(importer.Claude, "CLAUDE.md", []byte("# Conventions\n\n- "+text+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if r := u.h.Service().ImportEntries(t.Context(), u.h.Operator(), entries, app.ImportOptions{Format: importer.Claude}); !r.OK() || r.Stored != 1 {
			t.Fatalf("import = %+v", r)
		}
	}
	run("Use tabs for indentation")
	run("Commit messages are in English")
	s := u.audit
	u.tabs.SelectIndex(3)
	s.refresh()
	review := button(t, s.content, "Review what this import wrote…")
	first, other := -1, -1
	for i, e := range s.entries.data { // newest first: the first run is the last
		switch {
		case e.Action == "memory:write" && strings.HasPrefix(e.Session, "import-"):
			first = i
		case !strings.HasPrefix(e.Session, "import-"):
			other = i
		}
	}
	if first < 0 || other < 0 {
		t.Fatalf("no import write or other entry among %d", len(s.entries.data))
	}
	s.entries.list.Select(other)
	if !review.Disabled() {
		t.Fatal("the review is offered on an entry that is not an import's")
	}
	s.entries.list.Select(first)
	if review.Disabled() {
		t.Fatal("the review is not offered on an import's entry")
	}
	// New entries (an agent at work) refresh the log: the selection
	// stays with its entry, and so does the offer.
	want := s.entries.data[first].Seq
	store(t, u, agent, app.StoreInput{Content: "the ci cache lives in s3"})
	s.refresh()
	if review.Disabled() || s.sel.Seq != want {
		t.Fatalf("after a refresh the selection is entry %d, review disabled %v; want entry %d, enabled", s.sel.Seq, review.Disabled(), want)
	}
	test.Tap(review)
	dlg := overlay(t, u)
	if !hasLabel(dlg, "1 live memory would be held for your review (1 written by it)") {
		t.Fatalf("the question = %q", textsOf(dlg))
	}
	test.Tap(button(t, dlg, "Hold 1 for review"))
	if got := liveTexts(t, u); !slices.Equal(got, []string{"Commit messages are in English", "the ci cache lives in s3"}) {
		t.Fatalf("live memories after reviewing the first import: %q", got)
	}
}

// questionIndex is the row of the questioned memory whose text is
// content in the review, or fails t.
func questionIndex(t *testing.T, s *quarantineScreen, content string) int {
	t.Helper()
	for i, m := range s.questions.data {
		if m.Content == content {
			return i
		}
	}
	t.Fatalf("%q is not among the questioned memories in the review", content)
	return -1
}

// TestReviewShowsQuestionedMemories: a memory the user or an agent
// questioned is in the review with who questioned it and why, counted
// on the tab, until the user confirms or refutes it there; Refute asks
// for the evidence and refuses none; Open shows the memory.
func TestReviewShowsQuestionedMemories(t *testing.T) {
	u, _ := openUI(t)
	ctx, svc, op := t.Context(), u.h.Service(), u.h.Operator()
	const mine, theirs = "the office is on the fourth floor", "the release train leaves on tuesdays"
	m1 := store(t, u, op, app.StoreInput{Content: mine}).Memory
	m2 := store(t, u, agent, app.StoreInput{Content: theirs}).Memory
	if r := svc.Question(ctx, op, m1.ID, "the office moved in May"); !r.OK() {
		t.Fatal(r.Response)
	}
	if r := svc.Question(ctx, agent, m2.ID, "the team calendar says thursdays"); !r.OK() {
		t.Fatal(r.Response)
	}
	s := u.quarantine
	u.tabs.Select(u.qTab)
	if n := len(s.questions.data); n != 2 || u.qTab.Text != "Quarantine (2)" {
		t.Fatalf("the review lists %d questioned memories, tab %q; want 2, Quarantine (2)", n, u.qTab.Text)
	}
	if !slices.Contains(textsOf(s.qlist), "questioned") {
		t.Fatalf("the rows do not say the memories are questioned: %q", textsOf(s.qlist))
	}

	s.qlist.Select(questionIndex(t, s, mine))
	if !hasLabel(s.box, "Questioned by you") || !hasLabel(s.box, "you: the office moved in May") || !hasLabel(s.box, mine) {
		t.Fatalf("the user's question does not say who and why: %q", textsOf(s.box))
	}
	test.Tap(button(t, s.box, "Open…"))
	open := overlay(t, u)
	if !hasLabel(open, mine) {
		t.Fatal("Open does not show the memory")
	}
	test.Tap(button(t, open, "Close"))
	test.Tap(button(t, s.box, "Confirm"))
	if _, ok := app.QuestionedBy(get(t, u, m1.ID)); ok {
		t.Fatal("Confirm left the user's question standing")
	}
	if n := len(s.questions.data); n != 1 || u.qTab.Text != "Quarantine (1)" {
		t.Fatalf("after Confirm the review lists %d questioned memories, tab %q; want 1", n, u.qTab.Text)
	}

	s.qlist.Select(questionIndex(t, s, theirs))
	if !hasLabel(s.box, "claude-code: the team calendar says thursdays") {
		t.Fatalf("the agent's question does not say who and why: %q", textsOf(s.box))
	}
	test.Tap(button(t, s.box, "Refute…"))
	dlg := overlay(t, u)
	test.Tap(button(t, dlg, "Refute"))
	if u.win.Canvas().Overlays().Top() != dlg || len(app.OpenQuestions(get(t, u, m2.ID))) != 1 {
		t.Fatal("Refute without evidence closed the question or changed the memory")
	}
	e, ok := find(dlg, func(*shortcutEntry) bool { return true })
	if !ok {
		t.Fatal("the refutation asks for no evidence")
	}
	e.SetText("the release calendar for this quarter")
	test.Tap(button(t, dlg, "Refute"))
	vs := get(t, u, m2.ID).Provenance.Verifications
	if last := vs[len(vs)-1]; last.Agent != vault.AgentOperator || last.Verdict != vault.Refuted || last.Evidence != "the release calendar for this quarter" {
		t.Fatalf("after Refute the last verification is %+v, want the user's refutation with the evidence", last)
	}
	if n := len(s.questions.data); n != 0 || u.qTab.Text != "Quarantine" {
		t.Fatalf("after Refute the review lists %d questioned memories, tab %q; want none", n, u.qTab.Text)
	}
	if q := svc.Questions(ctx, op); len(q.Memories) != 0 {
		t.Fatalf("the service still lists %d questioned memories", len(q.Memories))
	}
}

// get reads memory id as the user, or fails t.
func get(t *testing.T, u *UI, id string) *app.Memory {
	t.Helper()
	r := u.h.Service().Get(t.Context(), u.h.Operator(), id)
	if !r.OK() || r.Memory == nil {
		t.Fatalf("get %s: %+v", id, r.Response)
	}
	return r.Memory
}
