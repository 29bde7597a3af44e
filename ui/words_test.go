package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
)

// TestDetailSaysItInWords: a memory's detail says "you", "inferred by
// the agent", "edited"; no session UUID, source or operation code, or
// state hash; a memory id in the history is a link that opens it.
func TestDetailSaysItInWords(t *testing.T) {
	u, _ := openUI(t)
	const session = "6f1d3c2a-9b8e-4f7a-a1b2-c3d4e5f6a7b8"
	bot := app.Request{Caller: app.Caller{Agent: "claude-code", Session: session}, Authorized: true}
	theirs := store(t, u, bot, app.StoreInput{Content: "the build cache lives in /var/cache/ci"})
	mine := store(t, u, u.h.Operator(), app.StoreInput{Content: "the team indents with tabs"})
	text := "the team indents with tabs, not spaces"
	if r := u.h.Service().Update(t.Context(), u.h.Operator(), mine.Memory.ID, app.UpdateInput{Content: &text, IfVersion: 1}); !r.OK() {
		t.Fatal(r.Message)
	}
	d := u.memories.detail
	shown := func(id string) string {
		t.Helper()
		d.show(id)
		return boxText(d.box)
	}
	agentText := shown(theirs.Memory.ID)
	mineText := shown(mine.Memory.ID)
	for _, bad := range []string{session, "ai_inference", "explicit_save", "operator", "UPDATE", "state before"} {
		if strings.Contains(agentText+mineText, bad) {
			t.Errorf("the detail says %q:\n%s\n%s", bad, agentText, mineText)
		}
	}
	for _, want := range []string{"inferred by the agent claude-code", "created by claude-code"} {
		if !strings.Contains(agentText, want) {
			t.Errorf("the agent's memory does not say %q:\n%s", want, agentText)
		}
	}
	for _, want := range []string{"saved by you", "created by you", "edited by you", "yours"} {
		if !strings.Contains(mineText, want) {
			t.Errorf("the user's memory does not say %q:\n%s", want, mineText)
		}
	}
	// A merged memory's archive note names the memory it went into.
	a := store(t, u, u.h.Operator(), app.StoreInput{Content: "deploys run on thursdays"})
	b := store(t, u, u.h.Operator(), app.StoreInput{Content: "deploys happen thursday afternoons"})
	merged := u.h.Service().Merge(t.Context(), u.h.Operator(), app.MergeInput{IDs: []string{a.Memory.ID, b.Memory.ID}})
	if !merged.OK() {
		t.Fatal(merged.Message)
	}
	shown(a.Memory.ID)
	var link *widget.Hyperlink
	find(d.box, func(h *widget.Hyperlink) bool {
		if h.Text == merged.Memory.ID[:8] {
			link = h
		}
		return false
	})
	if link == nil {
		t.Fatalf("the merged memory's id is no link:\n%s", boxText(d.box))
	}
	link.OnTapped() // as a click on its text does
	if d.id != merged.Memory.ID {
		t.Fatal("the memory link does not open the memory")
	}
}

// TestUsersMemoryDoesNotExpire: a memory the user adds in the app has no
// expiry and is never archived for being unused, unless the user asks.
func TestUsersMemoryDoesNotExpire(t *testing.T) {
	u, _ := openUI(t)
	for _, keep := range []bool{true, false} {
		shortcut(u, keyNew)
		dlg := u.win.Canvas().Overlays().Top()
		text := u.win.Canvas().Focused().(*shortcutEntry)
		test.Type(text, map[bool]string{true: "the team indents with tabs", false: "the printer on floor 2 jams on mondays"}[keep])
		box, ok := find(dlg, func(c *keyCheck) bool { return strings.HasPrefix(c.Text, "Keep it") })
		if !ok || !box.Checked {
			t.Fatal("the new memory dialog has no 'Keep it until I forget it', ticked")
		}
		box.SetChecked(keep)
		text.TypedShortcut(keySubmit)
		m := u.memories.detail.mem
		if m == nil {
			t.Fatal("the new memory is not shown")
		}
		_, expires := app.ExpiresAt(m, u.h.Settings().DecayPolicy())
		if expires == keep || strings.Contains(boxText(u.memories.detail.box), "unless used") == keep {
			t.Errorf("keep %v: expires %v; detail:\n%s", keep, expires, boxText(u.memories.detail.box))
		}
	}
}

// TestAgentsScreenTexts: Add agent with an empty name says so in the
// form, which stays open; once added, the new agent is shown, with what
// it shares in words; a pending request carries no advice for a paused
// agent; the tray says no agent is paused rather than "none held".
func TestAgentsScreenTexts(t *testing.T) {
	u, _ := openUI(t)
	c := u.win.Canvas()
	if r := u.h.Service().AddAgent(t.Context(), u.h.Operator(), app.AgentSpec{Name: "claude-code"}); !r.OK() {
		t.Fatal(r.Message)
	}
	selectAgent(t, u, "claude-code")
	u.agents.add()
	dlg := c.Overlays().Top()
	name := c.Focused().(*shortcutEntry)
	name.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if c.Overlays().Top() != dlg || !hasLabel(dlg, "Give the agent a name") {
		t.Fatal("an empty name closed the form, or the form does not say what is wrong")
	}
	test.Type(name, "cursor")
	name.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	test.Tap(button(t, c.Overlays().Top(), "Done"))
	text := boxText(u.agents.box)
	if !strings.Contains(text, "Agent cursor") || !strings.Contains(text, "no group or product") || strings.Contains(text, "- / -") {
		t.Fatalf("after adding cursor the detail says:\n%s", text)
	}
	if p := u.h.Service().RequestPairing(t.Context(), "aider"); p.Secret == "" {
		t.Fatal(p.Message)
	}
	u.agents.refresh()
	for top := c.Overlays().Top(); top != nil; top = c.Overlays().Top() {
		c.Overlays().Remove(top) // the pairing pop-up: decided later
	}
	selectAgent(t, u, "aider")
	if text := boxText(u.agents.box); strings.Contains(text, "Resume it") {
		t.Fatalf("a pending request advises resuming:\n%s", text)
	}
	if strings.Contains(u.tray.held.Label, "none held") {
		t.Fatalf("the tray says %q", u.tray.held.Label)
	}
}

// TestAuditCellsShortenIds: an id in an audit entry's reason is shown by
// its first eight characters, as the Memory column shows ids.
func TestAuditCellsShortenIds(t *testing.T) {
	e := app.AuditEntry{Agent: "operator", Action: "quarantine:approve", Reason: "queue item d87bb3ba-fe0c-488d-bfbf-13d64a1b2c3d approved"}
	got := auditCells(e)
	if got[2] != "you" || got[3] != "approved from review" || got[6] != "queue item d87bb3ba approved" {
		t.Fatalf("auditCells = %q", got)
	}
}
