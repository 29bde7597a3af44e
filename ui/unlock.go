package ui

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/host"
)

// createScreen is the first run: a new vault with a passphrase typed
// twice. A strength meter (zxcvbn) rates the passphrase; below minScore
// the user must tick "use it anyway". What is wrong is said as it is
// typed and disappears as soon as it is no longer true.
func (u *UI) createScreen() fyne.CanvasObject {
	pass, again := widget.NewPasswordEntry(), widget.NewPasswordEntry()
	pass.SetPlaceHolder("Passphrase (four or more random words)")
	again.SetPlaceHolder("The same passphrase again")
	var meter *strengthMeter
	remember := widget.NewCheck("Remember the key in the OS keyring (unlock without typing)", nil)
	remember.SetChecked(true)
	if _, none := u.cfg.KeyStore.(app.NoKeyring); none {
		remember.SetChecked(false)
		remember.Hide()
	}
	errLabel := widget.NewLabel("")
	errLabel.Importance = widget.DangerImportance
	errLabel.Wrapping = fyne.TextWrapWord
	progress := widget.NewLabel("")
	progress.Wrapping = fyne.TextWrapWord
	var create *widget.Button
	busy := false
	// check says what stands in the way of creating, and enables Create
	// when nothing does.
	check := func() {
		meter.set(pass.Text)
		var problem string
		switch {
		case again.Text != "" && again.Text != pass.Text:
			problem = "The two passphrases differ."
		}
		errLabel.SetText(problem)
		if busy || pass.Text == "" || again.Text != pass.Text || !meter.acceptable() {
			create.Disable()
		} else {
			create.Enable()
		}
	}
	create = widget.NewButtonWithIcon("Create vault", theme.ConfirmIcon(), func() {
		if create.Disabled() {
			return
		}
		busy = true
		create.Disable()
		progress.SetText("Creating the vault and tuning the key derivation to this machine (about a second)…")
		p := []byte(pass.Text)
		var h *host.Host
		u.background(func() error {
			var err error
			h, err = host.Create(u.ctx, u.cfg, p, remember.Checked)
			clear(p)
			return err
		}, func(err error) {
			busy = false
			progress.SetText("")
			if err != nil {
				check()
				errLabel.SetText(fmt.Sprintf("The vault could not be created: %v", err))
				return
			}
			u.attach(h)
			u.showMain()
		})
	})
	create.Importance = widget.HighImportance
	meter = newStrengthMeter(u, func() { check() })
	pass.OnChanged = func(string) { check() }
	again.OnChanged = func(string) { check() }
	again.OnSubmitted = func(string) { create.OnTapped() }
	pass.OnSubmitted = func(string) { u.win.Canvas().Focus(again) }
	check()
	intro := widget.NewLabel("Welcome to Engram. Your agents' memories are kept in an encrypted vault on this computer. Choose the passphrase that protects its sensitive partition: Engram cannot recover it if it is lost.")
	intro.Wrapping = fyne.TextWrapWord
	path := widget.NewLabel("Vault file: " + host.VaultPath(u.cfg.DataDir))
	path.Wrapping = fyne.TextWrapBreak
	path.Importance = widget.LowImportance
	form := container.NewVBox(
		widget.NewLabelWithStyle("Create your Engram vault", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		intro, pass, meter, again, remember, create, errLabel, progress, path,
	)
	u.focus = pass
	return container.NewCenter(container.NewGridWrap(fyne.NewSize(560, 540), form))
}

// unlockScreen is the one screen shown while Engram is locked, at start
// and after a lock: it asks for the passphrase, saying why (kerr is why
// the keyring was not used, or nil), and shows nothing of the vault but
// its path.
func (u *UI) unlockScreen(kerr error) fyne.CanvasObject {
	pass := widget.NewPasswordEntry()
	pass.SetPlaceHolder("Passphrase")
	remember := widget.NewCheck("Remember the key in the OS keyring", nil)
	if errors.Is(kerr, app.ErrKeyringUnavailable) {
		remember.Hide() // nowhere to remember it
	}
	if _, none := u.cfg.KeyStore.(app.NoKeyring); none {
		remember.Hide()
	}
	why := widget.NewLabel(unlockReason(kerr))
	why.Wrapping = fyne.TextWrapWord
	errLabel := widget.NewLabel("")
	errLabel.Importance = widget.DangerImportance
	errLabel.Wrapping = fyne.TextWrapWord
	errLabel.Hide()
	busy := widget.NewProgressBarInfinite()
	busy.Stop()
	busy.Hide()
	// An error stops being true as soon as the passphrase changes.
	pass.OnChanged = func(string) { errLabel.Hide() }
	var unlock *widget.Button
	submit := func() {
		if unlock.Disabled() {
			return // already checking
		}
		if pass.Text == "" {
			errLabel.SetText("Enter the passphrase.")
			errLabel.Show()
			return
		}
		unlock.Disable()
		errLabel.Hide()
		busy.Show()
		busy.Start()
		p := []byte(pass.Text)
		var kerr error
		u.background(func() (err error) {
			kerr, err = u.h.Unlock(u.ctx, p, remember.Checked)
			clear(p)
			return err
		}, func(err error) {
			busy.Stop()
			busy.Hide()
			unlock.Enable()
			if err != nil {
				pass.SetText("")
				errLabel.SetText(unlockMessage(err))
				errLabel.Show()
				u.win.Canvas().Focus(pass)
				return
			}
			u.showMain()
			if kerr != nil {
				u.setStatus(fmt.Sprintf("The key could not be kept in the OS keyring: %v", kerr))
			}
		})
	}
	pass.OnSubmitted = func(string) { submit() }
	unlock = widget.NewButtonWithIcon("Unlock", theme.ConfirmIcon(), submit)
	unlock.Importance = widget.HighImportance
	path := widget.NewLabel("Vault: " + host.VaultPath(u.cfg.DataDir))
	path.Wrapping = fyne.TextWrapBreak
	path.Importance = widget.LowImportance
	form := container.NewVBox(
		container.NewHBox(widget.NewIcon(lockIcon), widget.NewLabelWithStyle("Engram is locked", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})),
		why, pass, remember, unlock, busy, errLabel, path,
	)
	u.focus = pass
	return container.NewCenter(container.NewGridWrap(fyne.NewSize(520, 380), form))
}
