package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// statusLine is the main window's one-line status: a message too long
// for the line ends in an ellipsis, and a click shows it whole. (Wrapping
// it instead would push the tabs down while it is shown.)
type statusLine struct {
	widget.Label
	u *UI
}

func newStatusLine(u *UI) *statusLine {
	l := &statusLine{u: u}
	l.Truncation = fyne.TextTruncateEllipsis
	l.ExtendBaseWidget(l)
	return l
}

// Tapped shows the whole message.
func (l *statusLine) Tapped(*fyne.PointEvent) {
	if l.u == nil || l.Text == "" {
		return
	}
	l.u.inform("Status", l.Text)
}
