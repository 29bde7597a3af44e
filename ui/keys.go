package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// The main window's keyboard shortcuts. Ctrl is Cmd on macOS.
var (
	keySearch = &desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault}
	keyLock   = &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault}
	keyNew    = &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault}
	keyTabs   = []fyne.KeyName{fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4, fyne.Key5}
	// keySubmit (and the keypad's Enter with Ctrl) submits the dialog
	// on top, from a multi-line field too, where Enter starts a line.
	keySubmit       = &desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierShortcutDefault}
	keySubmitKeypad = &desktop.CustomShortcut{KeyName: fyne.KeyEnter, Modifier: fyne.KeyModifierShortcutDefault}
)

// shortcuts registers the window's shortcuts: Ctrl+F search, Ctrl+L
// lock, Ctrl+N new memory, Ctrl+1..5 the tabs, and Delete forgets the
// selected memory (after asking). They do nothing while locked. Ctrl+Enter
// submits the dialog on top, whatever has the focus in it.
func (u *UI) shortcuts() {
	c := u.win.Canvas()
	open := func(fn func()) func(fyne.Shortcut) {
		return func(fyne.Shortcut) {
			if u.isOpen() {
				u.h.Touch()
				fn()
			}
		}
	}
	c.AddShortcut(keySearch, open(func() {
		u.tabs.SelectIndex(0)
		u.win.Canvas().Focus(u.memories.searchBox)
	}))
	c.AddShortcut(keyLock, open(u.lockNow))
	c.AddShortcut(keyNew, open(func() {
		u.tabs.SelectIndex(0)
		u.memories.add()
	}))
	for i, k := range keyTabs {
		c.AddShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}, open(func() { u.tabs.SelectIndex(i) }))
	}
	submit := func(fyne.Shortcut) { u.dialogKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) }
	c.AddShortcut(keySubmit, submit)
	c.AddShortcut(keySubmitKeypad, submit)
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if u.dialogKey(ev) {
			return // nothing in the dialog on top has the focus
		}
		if ev.Name == fyne.KeyDelete {
			u.forgetShown()
		}
	})
}

// forgetShown asks to forget the memory the Memories tab shows, when it
// is the tab on top with no dialog over it (Delete's action, whether the
// list has the focus or nothing has).
func (u *UI) forgetShown() {
	if u.isOpen() && u.tabs.SelectedIndex() == 0 && u.memories.detail.mem != nil && len(u.win.Canvas().Overlays().List()) == 0 {
		u.h.Touch()
		u.memories.detail.forget()
	}
}

// shortcutEntry is an entry that passes the window's shortcuts on: a
// focused entry would otherwise swallow Ctrl+L or Ctrl+N.
type shortcutEntry struct {
	widget.Entry
	u *UI
}

func newShortcutEntry(u *UI) *shortcutEntry {
	e := &shortcutEntry{u: u}
	e.ExtendBaseWidget(e)
	return e
}

// multiLineEntry is a word-wrapped multi-line shortcutEntry: Enter
// starts a new line, Ctrl+Enter submits its dialog, Tab moves on and
// Escape closes its dialog.
func multiLineEntry(u *UI) *shortcutEntry {
	e := newShortcutEntry(u)
	e.MultiLine, e.Wrapping = true, fyne.TextWrapWord
	return e
}

// AcceptsTab reports false: Tab moves the focus on, also out of a
// multi-line field (a tab character has no use in a memory's text, and
// keeping Tab there left keyboard users stuck in the field).
func (e *shortcutEntry) AcceptsTab() bool { return false }

// TypedShortcut handles the entry's own shortcuts (copy, paste, select
// all) and passes the window's to the canvas.
func (e *shortcutEntry) TypedShortcut(s fyne.Shortcut) {
	if !e.u.windowShortcut(s) {
		e.Entry.TypedShortcut(s)
	}
}

// windowShortcut gives s to the window's canvas if it is one of the
// window's own shortcuts (Ctrl+L, Ctrl+N…), which a focused widget would
// otherwise swallow, and reports whether it did.
func (u *UI) windowShortcut(s fyne.Shortcut) bool {
	if _, custom := s.(*desktop.CustomShortcut); custom {
		if c, ok := u.win.Canvas().(fyne.Shortcutable); ok {
			c.TypedShortcut(s)
			return true
		}
	}
	return false
}

// TypedKey gives Escape to the dialog holding the entry, which closes
// as if cancelled; other keys go to the entry.
func (e *shortcutEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && e.u.dialogKey(ev) {
		return
	}
	e.Entry.TypedKey(ev)
}

// secretField shows a secret the user must copy, such as a new token: in
// full, selectable and read-only. Ctrl+C copies the whole secret the way
// the Copy button does (copySecret, so the clipboard is cleared later)
// and calls copied; Escape and Enter go to its dialog, whatever was
// clicked in it. There is no context menu: it would offer Cut and Paste.
type secretField struct {
	widget.Entry
	u      *UI
	secret string
	copied func()
}

func newSecretField(u *UI, secret string, copied func()) *secretField {
	f := &secretField{u: u, secret: secret, copied: copied}
	f.Text = secret
	f.TextStyle = fyne.TextStyle{Monospace: true}
	f.ExtendBaseWidget(f)
	return f
}

// TypedRune ignores typing: the field is read-only.
func (f *secretField) TypedRune(rune) {}

// TypedKey moves the cursor (Shift selects) and gives every other key to
// the dialog.
func (f *secretField) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyLeft, fyne.KeyRight, fyne.KeyHome, fyne.KeyEnd:
		f.Entry.TypedKey(ev)
	default:
		f.u.routeKey(ev, func(*fyne.KeyEvent) {})
	}
}

// TypedShortcut copies the secret on Ctrl+C and selects it all on
// Ctrl+A; the window's own shortcuts go to the canvas; cut and paste do
// nothing.
func (f *secretField) TypedShortcut(s fyne.Shortcut) {
	switch s.(type) {
	case *fyne.ShortcutCopy:
		f.u.copySecret(f.secret)
		if f.copied != nil {
			f.copied()
		}
	case *fyne.ShortcutSelectAll:
		f.Entry.TypedShortcut(s)
	default:
		f.u.windowShortcut(s)
	}
}

// TappedSecondary shows no menu.
func (f *secretField) TappedSecondary(*fyne.PointEvent) {}
