package ui

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
)

// changePassphrase asks for the current passphrase and a new one typed
// twice, rated as at the vault's creation (below minScore it needs "use
// it anyway"), and re-wraps the vault's key as 'engram passphrase change'
// does. A wrong current passphrase is said in the dialog, which stays
// open; Escape or Cancel change nothing.
func (u *UI) changePassphrase() {
	entry := func(placeholder string) *shortcutEntry {
		e := newShortcutEntry(u)
		e.Password = true
		e.SetPlaceHolder(placeholder)
		return e
	}
	old, pass, again := entry("Current passphrase"), entry("New passphrase (four or more random words)"), entry("The new passphrase again")
	var meter *strengthMeter
	problem := wrapped("")
	problem.Importance = widget.DangerImportance
	progress := wrapped("")
	progress.Hide()
	// Empty, they take no room.
	say := func(l *widget.Label, text string) {
		l.Hidden = text == ""
		l.SetText(text)
	}
	var change *keyButton
	busy := false
	check := func() {
		meter.set(pass.Text)
		switch {
		case again.Text != "" && again.Text != pass.Text:
			say(problem, "The two new passphrases differ.")
		case pass.Text != "" && pass.Text == old.Text:
			say(problem, "The new passphrase is the current one.")
		default:
			say(problem, "")
		}
		if busy || old.Text == "" || pass.Text == "" || again.Text != pass.Text || pass.Text == old.Text || !meter.acceptable() {
			change.Disable()
		} else {
			change.Enable()
		}
	}
	meter = newStrengthMeter(u, func() { check() })
	content := container.NewVBox(
		wrapped("The vault's key is wrapped again under the new passphrase; the memories are not re-encrypted. A backup keeps the passphrase it was made with."),
		old, pass, meter, again, problem, progress,
	)
	d := dialog.NewCustomWithoutButtons("Change the passphrase", content, u.win)
	cancel := newKeyButton(u, "Cancel", theme.CancelIcon(), d.Hide)
	change = newKeyButton(u, "Change passphrase", theme.ConfirmIcon(), func() {
		if change.Disabled() {
			return
		}
		busy = true
		check()
		say(progress, "Deriving the new key (about a second)…")
		o, n := []byte(old.Text), []byte(pass.Text)
		h := u.h
		var kerr error
		u.background(func() error {
			var err error
			kerr, err = h.ChangePassphrase(u.ctx, o, n)
			clear(o)
			clear(n)
			return err
		}, func(err error) {
			busy = false
			say(progress, "")
			if err != nil {
				check()
				if errors.Is(err, app.ErrWrongPassphrase) {
					say(problem, "The current passphrase is wrong. Nothing was changed.")
					u.win.Canvas().Focus(old)
					return
				}
				say(problem, fmt.Sprintf("The passphrase could not be changed: %v", err))
				return
			}
			d.Hide()
			msg := "Passphrase changed."
			if kerr != nil {
				msg = fmt.Sprintf("Passphrase changed. The OS keyring could not keep the new key (%v): Engram will ask for the passphrase at the next start.", kerr)
			}
			u.setStatus(msg)
		})
	})
	change.Importance = widget.HighImportance
	for _, e := range []*shortcutEntry{old, pass, again} {
		e.OnChanged = func(string) { check() }
	}
	old.OnSubmitted = func(string) { u.win.Canvas().Focus(pass) }
	pass.OnSubmitted = func(string) { u.win.Canvas().Focus(again) }
	again.OnSubmitted = func(string) { change.OnTapped() }
	check()
	d.SetButtons([]fyne.CanvasObject{cancel, change})
	d.Resize(fyne.NewSize(520, 0))
	d.Show()
	u.keyed(d.Hide, change.OnTapped)
	u.win.Canvas().Focus(old)
}
