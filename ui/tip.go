package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// tipLayer shows a tooltip: a box of wrapped text drawn over the main
// screen near the pointer. It lies in the window's content above the
// screens, not among the overlays: nothing in it takes the mouse, so the
// row under the pointer keeps it (an overlay would take it, and the row
// would hide its own tip at once).
type tipLayer struct {
	layer *fyne.Container
	box   *fyne.Container
	text  *widget.Label
}

// tipWidth is the widest a tip gets; its text wraps within.
const tipWidth = 480

func newTipLayer() *tipLayer {
	t := &tipLayer{text: wrapped("")}
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	bg.StrokeColor = theme.Color(theme.ColorNameInputBorder)
	bg.StrokeWidth = 1
	bg.CornerRadius = theme.InputRadiusSize()
	t.box = container.NewStack(bg, t.text)
	t.box.Hide()
	t.layer = container.NewWithoutLayout(t.box)
	return t
}

// show shows text below and right of at (a position in the window),
// kept inside the window's size.
func (t *tipLayer) show(text string, at fyne.Position, window fyne.Size) {
	t.text.SetText(text)
	w := min(tipWidth, fyne.MeasureText(text, theme.TextSize(), fyne.TextStyle{}).Width+2*theme.InnerPadding()+2)
	t.text.Resize(fyne.NewSize(w, 0))
	size := fyne.NewSize(w, t.text.MinSize().Height)
	pos := at.Add(fyne.NewPos(12, 20))
	if pos.X+size.Width > window.Width {
		pos.X = max(0, window.Width-size.Width)
	}
	if pos.Y+size.Height > window.Height {
		pos.Y = max(0, at.Y-size.Height-4)
	}
	t.box.Resize(size)
	t.box.Move(pos)
	t.box.Show()
	t.layer.Refresh()
}

// hide removes the tip.
func (t *tipLayer) hide() {
	t.box.Hide()
	t.layer.Refresh()
}

// tipCell is a cell that shows its whole text (tip) as a tooltip while
// the pointer is over it; an empty tip shows none.
type tipCell struct {
	widget.BaseWidget
	u       *UI
	content fyne.CanvasObject
	tip     string
}

func newTipCell(u *UI, content fyne.CanvasObject) *tipCell {
	c := &tipCell{u: u, content: content}
	c.ExtendBaseWidget(c)
	return c
}

func (c *tipCell) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(c.content)
}

// MouseIn shows the tip at the pointer.
func (c *tipCell) MouseIn(ev *desktop.MouseEvent) { c.MouseMoved(ev) }

// MouseMoved keeps the tip beside the pointer.
func (c *tipCell) MouseMoved(ev *desktop.MouseEvent) {
	if c.tip == "" || c.u.tip == nil {
		return
	}
	c.u.tip.show(c.tip, ev.AbsolutePosition, c.u.win.Canvas().Size())
}

// MouseOut hides the tip.
func (c *tipCell) MouseOut() {
	if c.u.tip != nil {
		c.u.tip.hide()
	}
}
