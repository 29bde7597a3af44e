package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/engram-app/engram/app"
)

// TestDetailSetsExpiryAndQuestion: the detail pane sets a memory's expiry
// and questions it; the expiry date and "questioned: REASON" are shown.
func TestDetailSetsExpiryAndQuestion(t *testing.T) {
	u, _ := openUI(t)
	m := store(t, u, u.h.Operator(), app.StoreInput{Content: "the office is closed in the first week of January", Tier: "semantic"}).Memory
	s := u.memories
	s.refresh()
	s.list.Select(0)
	d := s.detail
	if d.mem == nil || d.mem.ID != m.ID || !hasLabel(d.box, "no expiry") {
		t.Fatal("the detail pane does not show the memory without expiry")
	}
	fill := func(title, text, ok string) {
		t.Helper()
		test.Tap(button(t, d.box, title))
		dlg := u.win.Canvas().Overlays().Top()
		if dlg == nil {
			t.Fatalf("%s opened no dialog", title)
		}
		e, found := find(dlg, func(*shortcutEntry) bool { return true })
		if !found {
			t.Fatalf("%s: no entry in the dialog", title)
		}
		e.SetText(text)
		test.Tap(button(t, dlg, ok))
	}
	fill("Expiry…", "2099-01-31", "Save")
	if d.mem.Expires == nil || d.mem.Expires.Year() != 2099 || !hasLabel(d.box, "2099-01-3") {
		t.Fatalf("after setting the expiry: %v; want it set and its date shown", d.mem.Expires)
	}
	fill("Question…", "the office opens on the 2nd this year", "Question")
	if !hasLabel(d.box, "questioned: the office opens on the 2nd this year") {
		t.Fatal("the detail pane does not show questioned: REASON")
	}
}
