package ui

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/engram-app/engram/app"
)

// typeKey types key into c as the window does: to the focused widget,
// or with nothing focused to the window's own handler.
func typeKey(c fyne.Canvas, key fyne.KeyName) {
	ev := &fyne.KeyEvent{Name: key}
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
		return
	}
	c.OnTypedKey()(ev)
}

// TestEscapeClosesDialogsWhateverHasFocus clicks a check box, a list or
// a drop-down inside a dialog, or its background, and types Escape: the
// dialog closes, as if cancelled.
func TestEscapeClosesDialogsWhateverHasFocus(t *testing.T) {
	for _, tc := range []struct {
		name string
		// open opens a dialog and puts the focus somewhere in it.
		open func(t *testing.T, u *UI, dlg func() fyne.CanvasObject)
	}{
		{"pairing pop-up, a check box clicked", func(t *testing.T, u *UI, dlg func() fyne.CanvasObject) {
			if p := u.h.Service().RequestPairing(t.Context(), "cursor"); p.Secret == "" {
				t.Fatal(p.Message)
			}
			u.agents.refresh()
			box, ok := find(dlg(), func(c *keyCheck) bool { return c.Text == "sensitive" })
			if !ok {
				t.Fatal("no 'sensitive' box in the pairing pop-up")
			}
			test.Tap(box)
		}},
		{"Connect a client, the list clicked", func(t *testing.T, u *UI, dlg func() fyne.CanvasObject) {
			u.secrets = &memSecrets{m: map[string]string{}}
			test.Tap(button(t, u.agents.content, "Connect a client…"))
			l, ok := find(dlg(), func(*keyList) bool { return true })
			if !ok {
				t.Fatal("no list of clients")
			}
			u.win.Canvas().Focus(l) // as a click on a row does
			l.Select(1)
		}},
		{"Grants, the may-confirm box clicked", func(t *testing.T, u *UI, dlg func() fyne.CanvasObject) {
			u.agents.grantsDialog(app.Agent{Name: "cursor"}, false, 0)
			box, ok := find(dlg(), func(c *keyCheck) bool { return c.Text != "" && c.Text[0] == 'I' })
			if !ok {
				t.Fatal("no may-confirm box in the grants")
			}
			test.Tap(box)
		}},
		{"New memory, the partition drop-down focused", func(t *testing.T, u *UI, dlg func() fyne.CanvasObject) {
			u.memories.add()
			sel, ok := find(dlg(), func(*keySelect) bool { return true })
			if !ok {
				t.Fatal("no partition drop-down")
			}
			u.win.Canvas().Focus(sel)
		}},
		{"the one-time token, its text clicked", func(t *testing.T, u *UI, dlg func() fyne.CanvasObject) {
			u.agents.showToken("cursor", "engram_a_token_shown_once")
			f, ok := find(dlg(), func(*secretField) bool { return true })
			if !ok {
				t.Fatal("no token field")
			}
			u.win.Canvas().Focus(f) // as a click in it does
			f.TypedKey(&fyne.KeyEvent{Name: fyne.KeyRight})
		}},
		{"Change passphrase, its background clicked", func(t *testing.T, u *UI, dlg func() fyne.CanvasObject) {
			u.changePassphrase()
			u.win.Canvas().Unfocus()
		}},
		{"a confirmation, the risky button focused", func(t *testing.T, u *UI, dlg func() fyne.CanvasObject) {
			u.askSafe("Forget?", wrapped("For good."), "Keep it", "Forget", nil, func() { t.Error("Escape chose the risky answer") })
			u.win.Canvas().Focus(buttonWidget(t, dlg(), "Forget"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := openUI(t)
			c := u.win.Canvas()
			top := func() fyne.CanvasObject {
				o := c.Overlays().Top()
				if o == nil {
					t.Fatal("no dialog open")
				}
				return o
			}
			tc.open(t, u, top)
			if len(c.Overlays().List()) != 1 {
				t.Fatalf("%d dialogs open, want 1", len(c.Overlays().List()))
			}
			focused := "nothing"
			if f := c.Focused(); f != nil {
				focused = typeName(f)
			}
			typeKey(c, fyne.KeyEscape)
			if n := len(c.Overlays().List()); n != 0 {
				t.Fatalf("Escape with %s focused left the dialog open", focused)
			}
		})
	}
}

// TestEnterConfirmsFromACheckBox ticks a box in the backup passphrase
// dialog and types Enter: the dialog does its default action (OK).
func TestEnterConfirmsFromACheckBox(t *testing.T) {
	u, _ := openUI(t)
	var got string
	u.askBackupPassphrase(func(pass []byte) { got = string(pass) })
	dlg := u.win.Canvas().Overlays().Top()
	entries := passwordEntries(dlg)
	test.Type(entries[0], "backup words")
	test.Type(entries[1], "backup words")
	box, ok := find(dlg, func(c *keyCheck) bool { return true })
	if !ok {
		t.Fatal("no remember box")
	}
	test.Tap(box) // unticks: the tray will ask again
	typeKey(u.win.Canvas(), fyne.KeyReturn)
	if got != "backup words" || len(u.win.Canvas().Overlays().List()) != 0 {
		t.Fatalf("Enter on the box: passphrase %q, %d dialogs open", got, len(u.win.Canvas().Overlays().List()))
	}
}

// buttonWidget is the widget a button with label is (a dialog's are
// their own types), to focus it.
func buttonWidget(t *testing.T, o fyne.CanvasObject, label string) fyne.Focusable {
	t.Helper()
	b, ok := find(o, func(o fyne.CanvasObject) bool { b := buttonOf(o); return b != nil && b.Text == label })
	if !ok {
		t.Fatalf("no %q button", label)
	}
	return b.(fyne.Focusable)
}

func typeName(o any) string {
	switch o.(type) {
	case *keyCheck:
		return "a check box"
	case *keyList:
		return "a list"
	case *keySelect:
		return "a drop-down"
	case *keyButton, *defaultButton:
		return "a button"
	case *shortcutEntry:
		return "a text field"
	}
	return "a widget"
}
