package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// statusLine is the main window's one-line status: a message too long
// for the line ends in an ellipsis, and a click shows it whole. (Wrapping
// it instead would push the tabs down while it is shown.)
type statusLine struct {
	widget.Label
	u *UI
	// action, if set, is offered with the whole message under the
	// button label (such as a refusal's audit entry).
	label  string
	action func()
}

func newStatusLine(u *UI) *statusLine {
	l := &statusLine{u: u}
	l.Truncation = fyne.TextTruncateEllipsis
	l.ExtendBaseWidget(l)
	return l
}

// Tapped shows the whole message, with the message's action if it has
// one.
func (l *statusLine) Tapped(*fyne.PointEvent) {
	if l.u == nil || l.Text == "" {
		return
	}
	if l.action == nil {
		l.u.inform("Status", l.Text)
		return
	}
	d := dialog.NewCustomWithoutButtons("Status", wrapped(l.Text), l.u.win)
	closeIt := newDefaultButton("Close", theme.CancelIcon(), d.Hide)
	action := l.action
	do := newKeyButton(l.u, l.label, theme.ListIcon(), func() {
		d.Hide()
		action()
	})
	d.SetButtons([]fyne.CanvasObject{closeIt, do})
	d.Resize(fyne.NewSize(520, 0))
	d.Show()
	l.u.keyed(d.Hide, d.Hide)
	l.u.win.Canvas().Focus(closeIt)
}

// SetText shows text; a message set without an action has none.
func (l *statusLine) SetText(text string) {
	l.label, l.action = "", nil
	l.Label.SetText(text)
}
