package ui

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Every dialog closes on Escape, and does its default action (if it has
// one) on Enter, whatever has the focus inside it. Fyne gives a key only
// to the focused widget, and its checks, lists, selects and buttons drop
// Escape and Enter; so the dialogs are built of the key* widgets below,
// which hand those two keys to the dialog on top, and with nothing
// focused the window's own key handler does the same (see shortcuts).

// dialogKeys is what Escape (cancel) and Enter (submit, when the dialog
// has a default action) do in one open dialog.
type dialogKeys struct{ cancel, submit func() }

// keyed makes Escape and Enter reach the dialog just shown, which is on
// top of the window's overlays. Call it right after the dialog's Show.
func (u *UI) keyed(cancel, submit func()) {
	if u.tip != nil {
		u.tip.hide() // the pointer is on the dialog now
	}
	ov := u.win.Canvas().Overlays()
	for o := range u.dialogs {
		if !slices.Contains(ov.List(), o) {
			delete(u.dialogs, o) // closed
		}
	}
	if top := ov.Top(); top != nil {
		u.dialogs[top] = dialogKeys{cancel, submit}
	}
}

// dialogKey does what ev asks of the dialog on top: Escape cancels it,
// Enter does its default action. It reports whether it did anything.
func (u *UI) dialogKey(ev *fyne.KeyEvent) bool {
	k, ok := u.dialogs[u.win.Canvas().Overlays().Top()]
	if !ok {
		return false
	}
	switch ev.Name {
	case fyne.KeyEscape:
		k.cancel()
		return true
	case fyne.KeyReturn, fyne.KeyEnter:
		if k.submit != nil {
			k.submit()
			return true
		}
	}
	return false
}

// dialogKeyName reports whether name is a key the dialog on top takes.
func dialogKeyName(name fyne.KeyName) bool {
	return name == fyne.KeyEscape || name == fyne.KeyReturn || name == fyne.KeyEnter
}

// routeKey gives ev to the dialog on top when it is one of its keys and
// the dialog takes it, and to the widget's own handler otherwise.
func (u *UI) routeKey(ev *fyne.KeyEvent, own func(*fyne.KeyEvent)) {
	if dialogKeyName(ev.Name) && u.dialogKey(ev) {
		return
	}
	own(ev)
}

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

// keyButton is a dialog's other button: Enter and Space press it when it
// has the focus; Escape closes the dialog.
type keyButton struct {
	widget.Button
	u *UI
}

func newKeyButton(u *UI, label string, icon fyne.Resource, tapped func()) *keyButton {
	b := &keyButton{u: u}
	b.Text, b.Icon, b.OnTapped = label, icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

func (b *keyButton) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
		if !b.Disabled() && b.OnTapped != nil {
			b.OnTapped()
		}
	case fyne.KeyEscape:
		b.u.dialogKey(ev)
	default:
		b.Button.TypedKey(ev)
	}
}

// keyCheck is a check box in a dialog: Space ticks it, Escape and Enter
// go to the dialog.
type keyCheck struct {
	widget.Check
	u *UI
}

func newKeyCheck(u *UI, label string, changed func(bool)) *keyCheck {
	c := &keyCheck{u: u}
	c.Text, c.OnChanged = label, changed
	c.ExtendBaseWidget(c)
	return c
}

func (c *keyCheck) TypedKey(ev *fyne.KeyEvent) {
	c.u.routeKey(ev, c.Check.TypedKey)
}

// keySelect is a drop-down in a dialog: Space opens it, Escape and Enter
// go to the dialog.
type keySelect struct {
	widget.Select
	u *UI
}

func newKeySelect(u *UI, options []string, changed func(string)) *keySelect {
	s := &keySelect{u: u}
	s.Options, s.OnChanged = options, changed
	s.ExtendBaseWidget(s)
	return s
}

func (s *keySelect) TypedKey(ev *fyne.KeyEvent) {
	s.u.routeKey(ev, s.Select.TypedKey)
}

// keyList is a list in a dialog: the arrows and Space move and select,
// Escape and Enter go to the dialog.
type keyList struct {
	widget.List
	u *UI
}

func newKeyList(u *UI, length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject)) *keyList {
	l := &keyList{u: u}
	l.Length, l.CreateItem, l.UpdateItem = length, create, update
	l.ExtendBaseWidget(l)
	return l
}

func (l *keyList) TypedKey(ev *fyne.KeyEvent) {
	l.u.routeKey(ev, l.List.TypedKey)
}

// checks is a row of check boxes, one per option, as widget.CheckGroup
// (whose own boxes would drop Escape) but of keyChecks.
// Its box is what a form shows.
type checks struct {
	box   *fyne.Container
	boxes []*keyCheck
}

func newChecks(u *UI, options []string) *checks {
	c := &checks{box: &fyne.Container{Layout: rowLayout{}}}
	for _, o := range options {
		b := newKeyCheck(u, o, nil)
		c.boxes = append(c.boxes, b)
		c.box.Add(b)
	}
	return c
}

// selected lists the ticked options in their order.
func (c *checks) selected() []string {
	var out []string
	for _, b := range c.boxes {
		if b.Checked {
			out = append(out, b.Text)
		}
	}
	return out
}

// set ticks exactly the options in sel.
func (c *checks) set(sel []string) {
	for _, b := range c.boxes {
		b.SetChecked(slices.Contains(sel, b.Text))
	}
}

// Disable makes every box read-only.
func (c *checks) Disable() {
	for _, b := range c.boxes {
		b.Disable()
	}
}

// Enable makes every box editable.
func (c *checks) Enable() {
	for _, b := range c.boxes {
		b.Enable()
	}
}

// Disabled reports whether the boxes are read-only.
func (c *checks) Disabled() bool { return len(c.boxes) > 0 && c.boxes[0].Disabled() }

// rowLayout puts objects side by side at their minimum widths, as a
// horizontal CheckGroup does.
type rowLayout struct{}

func (rowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		m := o.MinSize()
		s.Width += m.Width
		s.Height = max(s.Height, m.Height)
	}
	return s
}

func (rowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	x := float32(0)
	for _, o := range objs {
		m := o.MinSize()
		o.Resize(fyne.NewSize(m.Width, size.Height))
		o.Move(fyne.NewPos(x, 0))
		x += m.Width
	}
}

// askSafe shows a dialog whose default button (focused, primary, and
// what Enter and Escape do) is the safe choice, safe; the risky choice
// is a plain button beside it. risky runs after the dialog closes.
func (u *UI) askSafe(title string, content fyne.CanvasObject, safe, riskyLabel string, riskyIcon fyne.Resource, risky func()) *dialog.CustomDialog {
	d := dialog.NewCustomWithoutButtons(title, content, u.win)
	def := newDefaultButton(safe, theme.CancelIcon(), d.Hide)
	other := newKeyButton(u, riskyLabel, riskyIcon, func() {
		d.Hide()
		risky()
	})
	other.Importance = widget.DangerImportance
	d.SetButtons([]fyne.CanvasObject{def, other})
	d.Show()
	u.keyed(d.Hide, d.Hide)
	u.win.Canvas().Focus(def)
	return d
}

// formDialog shows items with Cancel and confirm: Escape cancels; Enter
// in a one-line field, or on a check or a drop-down, confirms, and so do
// Ctrl+Enter anywhere (a multi-line field says so below it) and the
// confirm button; then done runs. focus, if set, has the focus
// when it opens.
func (u *UI) formDialog(title, confirm string, items []*widget.FormItem, size fyne.Size, focus fyne.Focusable, done func()) *dialog.CustomDialog {
	return u.checkedFormDialog(title, confirm, items, size, focus, nil, done)
}

// checkedFormDialog is formDialog whose confirmation first asks check
// (if set) what is wrong: a non-empty answer is said in the dialog, in
// red under the form, and the dialog stays open with what was typed.
func (u *UI) checkedFormDialog(title, confirm string, items []*widget.FormItem, size fyne.Size, focus fyne.Focusable, check func() string, done func()) *dialog.CustomDialog {
	problem := wrapped("")
	problem.Importance = widget.DangerImportance
	problem.Hide()
	d := dialog.NewCustomWithoutButtons(title, container.NewVBox(widget.NewForm(items...), problem), u.win)
	submit := func() {
		if check != nil {
			if why := check(); why != "" {
				problem.SetText(why)
				problem.Show()
				return
			}
		}
		d.Hide()
		done()
	}
	cancel := newKeyButton(u, "Cancel", theme.CancelIcon(), d.Hide)
	ok := newKeyButton(u, confirm, theme.ConfirmIcon(), submit)
	ok.Importance = widget.HighImportance
	for _, it := range items {
		e, is := it.Widget.(*shortcutEntry)
		switch {
		case is && !e.MultiLine && e.OnSubmitted == nil:
			e.OnSubmitted = func(string) { submit() }
		case is && e.MultiLine && it.HintText == "":
			it.HintText = "Enter starts a new line; Ctrl+Enter: " + confirm
		}
	}
	d.SetButtons([]fyne.CanvasObject{cancel, ok})
	d.Resize(size)
	d.Show()
	u.keyed(d.Hide, submit)
	if focus != nil {
		u.win.Canvas().Focus(focus)
	}
	return d
}

// inform shows a message with one default button, OK.
func (u *UI) inform(title, message string) {
	u.oneButton(title, wrapped(message), "OK", fyne.NewSize(520, 0))
}

// oneButton shows content with one default button that closes it, which
// Escape and Enter press too.
func (u *UI) oneButton(title string, content fyne.CanvasObject, label string, size fyne.Size) {
	d := dialog.NewCustomWithoutButtons(title, content, u.win)
	b := newDefaultButton(label, theme.ConfirmIcon(), d.Hide)
	d.SetButtons([]fyne.CanvasObject{b})
	d.Resize(size)
	d.Show()
	u.keyed(d.Hide, d.Hide)
	u.win.Canvas().Focus(b)
}

// showError says what went wrong, in a dialog closed by OK, Enter or
// Escape.
func (u *UI) showError(err error) {
	u.inform("Error", capitalise(err.Error()))
}
