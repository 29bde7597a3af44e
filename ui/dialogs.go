package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// defaultButton is a dialog's default button: it has the focus when the
// dialog opens, Enter or Space press it, and Escape presses it too, since
// it is always the safe choice.
type defaultButton struct {
	widget.Button
}

func newDefaultButton(label string, icon fyne.Resource, tapped func()) *defaultButton {
	b := &defaultButton{}
	b.Text, b.Icon, b.OnTapped = label, icon, tapped
	b.Importance = widget.HighImportance
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey presses the button on Enter, Return, Space and Escape.
func (b *defaultButton) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeyEscape, fyne.KeySpace:
		if !b.Disabled() && b.OnTapped != nil {
			b.OnTapped()
		}
	}
}

// askSafe shows a dialog whose default button (focused, primary, and
// what Enter and Escape do) is the safe choice, safe; the risky choice
// is a plain button beside it. risky runs after the dialog closes.
func (u *UI) askSafe(title string, content fyne.CanvasObject, safe, riskyLabel string, riskyIcon fyne.Resource, risky func()) *dialog.CustomDialog {
	d := dialog.NewCustomWithoutButtons(title, content, u.win)
	def := newDefaultButton(safe, theme.CancelIcon(), d.Hide)
	other := widget.NewButtonWithIcon(riskyLabel, riskyIcon, func() {
		d.Hide()
		risky()
	})
	other.Importance = widget.DangerImportance
	d.SetButtons([]fyne.CanvasObject{def, other})
	d.Show()
	u.win.Canvas().Focus(def)
	return d
}
