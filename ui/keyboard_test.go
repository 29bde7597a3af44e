package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
)

// TestDeleteOnTheSelectedRowAsksToForget: a click on a row gives the
// list the focus; Delete then asks to forget that memory (Keep it the
// default), and Forget forgets it. The arrows still move in the list.
func TestDeleteOnTheSelectedRowAsksToForget(t *testing.T) {
	u, _ := openUI(t)
	store(t, u, u.h.Operator(), app.StoreInput{Content: "the staging database is pg-stage-2"})
	store(t, u, u.h.Operator(), app.StoreInput{Content: "deploys go through ops/deploy.sh"})
	s := u.memories
	s.refresh()
	c := u.win.Canvas()
	c.Focus(s.rows.view.(fyne.Focusable)) // as a click on a row does
	s.list.Select(1)
	victim := s.detail.id
	if victim == "" {
		t.Fatal("selecting a row shows no memory")
	}
	typeKey(c, fyne.KeyUp)
	typeKey(c, fyne.KeySpace) // selects the row the arrow moved to
	if s.detail.id == victim {
		t.Fatal("the arrows no longer move in the list")
	}
	c.Focus(s.rows.view.(fyne.Focusable))
	s.list.Select(1)
	typeKey(c, fyne.KeyDelete)
	keep, ok := c.Focused().(*defaultButton)
	if !ok || keep.Text != "Keep it" {
		t.Fatalf("Delete on the selected row: focus %T, want the forget question with Keep it", c.Focused())
	}
	test.Tap(button(t, c.Overlays().Top(), "Forget"))
	if r := u.h.Service().Get(t.Context(), u.h.Operator(), victim); r.OK() {
		t.Fatal("Forget after Delete left the memory")
	}
	if len(s.rows.data) != 1 {
		t.Fatalf("%d rows after forgetting one of two", len(s.rows.data))
	}
}

// TestKeyboardFinishesForms: in the New memory and Edit dialogs, Tab
// leaves the multi-line text (it is no tab stop for a tab character)
// and Ctrl+Enter submits from inside it, where Enter starts a line.
func TestKeyboardFinishesForms(t *testing.T) {
	u, _ := openUI(t)
	c := u.win.Canvas()
	shortcut(u, keyNew)
	text, ok := c.Focused().(*shortcutEntry)
	if !ok || !text.MultiLine {
		t.Fatal("Ctrl+N does not focus the new memory's text")
	}
	if text.AcceptsTab() {
		t.Fatal("Tab stays inside the new memory's text")
	}
	test.Type(text, "the release train leaves on thursdays")
	text.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if c.Overlays().Top() == nil || text.Text != "the release train leaves on thursdays\n" {
		t.Fatalf("Enter in the text: dialog closed %v, text %q; want a new line", c.Overlays().Top() == nil, text.Text)
	}
	if _, said := find(c.Overlays().Top(), func(t *canvas.Text) bool { return strings.Contains(t.Text, "Ctrl+Enter") }); !said {
		t.Error("the new memory dialog does not say Ctrl+Enter adds it")
	}
	text.TypedShortcut(keySubmit)
	if c.Overlays().Top() != nil || len(u.memories.rows.data) != 1 {
		t.Fatalf("Ctrl+Enter in the text: dialog open %v, %d memories", c.Overlays().Top() != nil, len(u.memories.rows.data))
	}

	u.memories.detail.edit()
	e, ok := c.Focused().(*shortcutEntry)
	if !ok || !e.MultiLine || e.AcceptsTab() {
		t.Fatal("the edit dialog's text is not focused, or keeps Tab")
	}
	e.SetText("the release train leaves on fridays")
	e.TypedShortcut(keySubmitKeypad)
	if c.Overlays().Top() != nil || u.memories.detail.mem.Content != "the release train leaves on fridays" {
		t.Fatal("Ctrl+Enter (keypad) in the edit dialog did not save")
	}
}

// TestTabReachesTheTabBar: Tab goes from the Lock button to the tab
// bar, ringed while focused, then into the screen from its top (the
// search box); Left and Right on the tab bar change tabs.
func TestTabReachesTheTabBar(t *testing.T) {
	u, _ := openUI(t)
	c := u.win.Canvas()
	c.Unfocus()
	c.FocusNext()
	if b, ok := c.Focused().(*widget.Button); !ok || b.Text != "Lock" {
		t.Fatalf("the first Tab goes to %T, want the Lock button", c.Focused())
	}
	c.FocusNext()
	strip, ok := c.Focused().(*tabStrip)
	if !ok {
		t.Fatalf("the second Tab goes to %T, want the tab bar", c.Focused())
	}
	c.FocusNext()
	if c.Focused() != u.memories.searchBox {
		t.Fatalf("after the tab bar Tab goes to %T, want the search box", c.Focused())
	}
	c.Focus(strip)
	if !strip.ring.Visible() {
		t.Error("the focused tab bar shows no ring")
	}
	typeKey(c, fyne.KeyRight)
	if u.tabs.SelectedIndex() != 1 {
		t.Fatalf("Right on the tab bar selects tab %d, want 1", u.tabs.SelectedIndex())
	}
	typeKey(c, fyne.KeyLeft)
	typeKey(c, fyne.KeyLeft)
	if u.tabs.SelectedIndex() != len(u.tabs.Items)-1 {
		t.Fatalf("Left twice from the second tab selects %d, want the last", u.tabs.SelectedIndex())
	}
	c.FocusNext()
	if strip.ring.Visible() {
		t.Error("the ring stays after the focus moved on")
	}
}

// TestFocusIsVisible: the focus highlight is at least half opaque in
// both variants (Fyne's light one is a sixth).
func TestFocusIsVisible(t *testing.T) {
	th := newTheme(nil)
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		_, _, _, a := th.Color(theme.ColorNameFocus, v).RGBA()
		if a>>8 < 0x80 {
			t.Errorf("variant %d: focus opacity %#x, want at least 0x80", v, a>>8)
		}
	}
}

// TestListRefreshIsNotAudited: refreshing the memories list (as every
// agent write does) adds nothing to the audit log.
func TestListRefreshIsNotAudited(t *testing.T) {
	u, _ := openUI(t)
	store(t, u, u.h.Operator(), app.StoreInput{Content: "the team indents with tabs"})
	store(t, u, u.h.Operator(), app.StoreInput{Content: "my locker combination is left 12 right 30", Partition: "sensitive"})
	n := func() int {
		r := u.h.Service().Audit(t.Context(), u.h.Operator(), app.AuditInput{})
		return len(r.Entries)
	}
	before := n()
	for range 3 {
		u.memories.refresh()
	}
	if len(u.memories.rows.data) != 2 {
		t.Fatalf("%d rows, want 2", len(u.memories.rows.data))
	}
	if after := n(); after != before {
		t.Fatalf("three list refreshes added %d audit entries", after-before)
	}
}

// TestLockShowsAPadlock: the Lock button and the unlock screen show a
// padlock, not the eye-slash of "hide".
func TestLockShowsAPadlock(t *testing.T) {
	u, _ := openUI(t)
	if b := button(t, u.win.Content(), "Lock"); b.Icon != lockIcon {
		t.Fatalf("the Lock button shows %v", b.Icon.Name())
	}
	u.lockNow()
	if _, ok := find(u.win.Content(), func(i *widget.Icon) bool { return i.Resource == lockIcon }); !ok {
		t.Fatal("the unlock screen shows no padlock")
	}
}

// TestUnlockReturnsToTheTab: after a lock and an unlock the tab shown
// before the lock is shown again.
func TestUnlockReturnsToTheTab(t *testing.T) {
	u, _ := openUI(t)
	u.tabs.SelectIndex(3)
	u.lockNow()
	unlockWith(t, u, passphrase)
	if !u.isOpen() || u.tabs.SelectedIndex() != 3 {
		t.Fatalf("after the unlock: open %v, tab %d, want 3 (Audit log)", u.isOpen(), u.tabs.SelectedIndex())
	}
	if len(u.audit.shown) == 0 {
		t.Fatal("the Audit log tab shown after the unlock is empty")
	}
}
