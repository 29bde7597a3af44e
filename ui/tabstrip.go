package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// tabStrip makes the main window's tabs one stop in the Tab order, as
// KeePassXC's tab bar is: Fyne's tab buttons cannot take the focus, so
// without it the keyboard never reached them. Focused, it rings the tab
// bar; Left and Right (Home, End) choose the tab.
type tabStrip struct {
	widget.BaseWidget
	tabs    *container.AppTabs
	ring    *canvas.Rectangle
	focused bool
}

func newTabStrip(tabs *container.AppTabs) *tabStrip {
	t := &tabStrip{tabs: tabs, ring: canvas.NewRectangle(nil)}
	t.ring.StrokeWidth = 2
	t.ring.CornerRadius = theme.SelectionRadiusSize()
	t.ring.Hide()
	t.ExtendBaseWidget(t)
	return t
}

// FocusGained rings the tab bar.
func (t *tabStrip) FocusGained() {
	t.focused = true
	t.Refresh()
}

// FocusLost removes the ring.
func (t *tabStrip) FocusLost() {
	t.focused = false
	t.Refresh()
}

// TypedRune ignores typing.
func (t *tabStrip) TypedRune(rune) {}

// TypedKey moves between the tabs: Left and Right wrap around, Home and
// End go to the first and last.
func (t *tabStrip) TypedKey(ev *fyne.KeyEvent) {
	n, i := len(t.tabs.Items), t.tabs.SelectedIndex()
	if n == 0 {
		return
	}
	switch ev.Name {
	case fyne.KeyLeft:
		t.tabs.SelectIndex((i + n - 1) % n)
	case fyne.KeyRight:
		t.tabs.SelectIndex((i + 1) % n)
	case fyne.KeyHome:
		t.tabs.SelectIndex(0)
	case fyne.KeyEnd:
		t.tabs.SelectIndex(n - 1)
	}
}

func (t *tabStrip) CreateRenderer() fyne.WidgetRenderer {
	return &tabStripRenderer{t: t}
}

// barHeight is the height of the tab bar of AppTabs on the desktop: a
// bold label beside an inline icon, with inner padding around (as
// Fyne's tab buttons measure themselves).
func barHeight() float32 {
	text := fyne.MeasureText("Memories", theme.TextSize(), fyne.TextStyle{Bold: true}).Height
	return max(text, theme.IconInlineSize()) + 2*theme.InnerPadding()
}

type tabStripRenderer struct{ t *tabStrip }

func (r *tabStripRenderer) Layout(size fyne.Size) {
	r.t.tabs.Resize(size)
	r.t.tabs.Move(fyne.NewPos(0, 0))
	r.t.ring.Resize(fyne.NewSize(size.Width, barHeight()))
	r.t.ring.Move(fyne.NewPos(0, 0))
}

func (r *tabStripRenderer) MinSize() fyne.Size { return r.t.tabs.MinSize() }

func (r *tabStripRenderer) Refresh() {
	r.t.ring.StrokeColor = theme.Color(theme.ColorNamePrimary)
	r.t.ring.Hidden = !r.t.focused
	r.t.ring.Refresh()
	r.t.tabs.Refresh()
}

func (r *tabStripRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.t.tabs, r.t.ring}
}

func (r *tabStripRenderer) Destroy() {}
