package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestChangePassphrase: Settings changes the passphrase; a wrong current
// one is said in the dialog, which stays open; a weak new one needs "use
// it anyway"; Escape closes it; the next unlock wants the new passphrase.
func TestChangePassphrase(t *testing.T) {
	u, _ := openUI(t)
	c := u.win.Canvas()
	u.tabs.SelectIndex(4)
	test.Tap(button(t, u.settings.content, "Change passphrase…"))
	focused := func() *shortcutEntry {
		t.Helper()
		e, ok := c.Focused().(*shortcutEntry)
		if !ok || !e.Password {
			t.Fatalf("focus is %T, want a passphrase field", c.Focused())
		}
		return e
	}
	dlg := func() fyne.CanvasObject {
		t.Helper()
		top := c.Overlays().Top()
		if top == nil {
			t.Fatal("no passphrase dialog")
		}
		return top
	}
	// Escape closes it, changing nothing.
	focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if c.Overlays().Top() != nil {
		t.Fatal("Escape did not close the dialog")
	}
	u.changePassphrase()
	const newPass = "a quite different passphrase of five words"
	fill := func(old, pass, again string) {
		t.Helper()
		for _, s := range []string{old, pass, again} {
			e := focused()
			e.SetText("")
			test.Type(e, s)
			e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
			u.wait()
		}
	}
	change := button(t, dlg(), "Change passphrase")
	// Weak: Change waits for "use it anyway".
	fill("wrong current words", "abc", "abc")
	if !change.Disabled() || !strings.Contains(boxText(dlg()), "Very weak") {
		t.Fatalf("a weak passphrase: Change enabled %v, dialog says %q", !change.Disabled(), boxText(dlg()))
	}
	c.Focus(nil)
	var entries []*shortcutEntry
	find(dlg(), func(e *shortcutEntry) bool { entries = append(entries, e); return false })
	if len(entries) != 3 {
		t.Fatalf("%d passphrase fields, want 3", len(entries))
	}
	entries[1].SetText(newPass)
	entries[2].SetText(newPass)
	test.Tap(change)
	u.wait()
	if !strings.Contains(boxText(dlg()), "current passphrase is wrong") {
		t.Fatalf("a wrong current passphrase: dialog says %q", boxText(dlg()))
	}
	entries[0].SetText(passphrase)
	test.Tap(change)
	u.wait()
	if c.Overlays().Top() != nil || !strings.HasPrefix(u.status.Text, "Passphrase changed.") {
		t.Fatalf("after the change: dialog open %v, status %q", c.Overlays().Top() != nil, u.status.Text)
	}
	u.lockNow()
	unlockWith(t, u, passphrase)
	if !u.h.Locked() {
		t.Fatal("the old passphrase still unlocks")
	}
	e := c.Focused().(*widget.Entry)
	e.SetText("")
	unlockWith(t, u, newPass)
	if u.h.Locked() {
		t.Fatal("the new passphrase does not unlock")
	}
}
