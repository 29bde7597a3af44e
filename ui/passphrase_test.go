package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
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
	if !strings.Contains(boxText(dlg()), "current passphrase is wrong") {
		t.Fatalf("a wrong current passphrase: dialog says %q", boxText(dlg()))
	}
	entries[0].SetText(passphrase)
	test.Tap(change)
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

// TestBackupPassphraseIsRated: the backup passphrase is rated as the
// vault's is: "a" shows a red, very weak meter and OK (or Enter) does
// nothing until "use it anyway" is ticked; a strong one shows green and
// needs no tick.
func TestBackupPassphraseIsRated(t *testing.T) {
	u, _ := openUI(t)
	var got []string
	u.askBackupPassphrase(func(pass []byte) { got = append(got, string(pass)) })
	dlg := u.win.Canvas().Overlays().Top()
	entries := passwordEntries(dlg)
	if len(entries) != 2 {
		t.Fatalf("%d passphrase fields, want 2", len(entries))
	}
	test.Type(entries[0], "a")
	test.Type(entries[1], "a")
	m, ok := find(dlg, func(*strengthMeter) bool { return true })
	if !ok || !m.Visible() {
		t.Fatal("the backup passphrase dialog shows no strength meter")
	}
	if !strings.Contains(boxText(dlg), "Very weak") || m.fill.FillColor != theme.Color(theme.ColorNameError) {
		t.Fatalf("'a' is not rated very weak in red: dialog says %q", boxText(dlg))
	}
	ok1 := button(t, dlg, "OK")
	enter := &fyne.KeyEvent{Name: fyne.KeyReturn}
	entries[1].TypedKey(enter)
	test.Tap(ok1)
	if len(got) != 0 || u.win.Canvas().Overlays().Top() != dlg || !ok1.Disabled() {
		t.Fatalf("a weak backup passphrase was accepted without 'use it anyway': %q", got)
	}
	anyway, found := find(dlg, func(c *keyCheck) bool { return strings.Contains(c.Text, "anyway") })
	if !found || !anyway.Visible() {
		t.Fatal("no 'use it anyway' for a weak backup passphrase")
	}
	test.Tap(anyway)
	entries[1].TypedKey(enter)
	if len(got) != 1 || got[0] != "a" {
		t.Fatalf("'use it anyway' then Enter: passphrases %q", got)
	}

	u.askBackupPassphrase(func(pass []byte) { got = append(got, string(pass)) })
	dlg = u.win.Canvas().Overlays().Top()
	entries = passwordEntries(dlg)
	const strong = "correct horse battery staple wombat"
	test.Type(entries[0], strong)
	test.Type(entries[1], strong)
	m, _ = find(dlg, func(*strengthMeter) bool { return true })
	anyway, _ = find(dlg, func(c *keyCheck) bool { return strings.Contains(c.Text, "anyway") })
	if m.fill.FillColor != theme.Color(theme.ColorNameSuccess) || anyway.Visible() {
		t.Fatalf("a strong passphrase: meter colour %v, 'anyway' shown %v", m.fill.FillColor, anyway.Visible())
	}
	entries[1].TypedKey(enter)
	if len(got) != 2 || got[1] != strong {
		t.Fatalf("a strong passphrase then Enter: passphrases %q", got)
	}
}
