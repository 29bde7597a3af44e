package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// markedLine is one line of text made of segments, some in bold (the
// words a search matched), cut with "…" where it meets its width.
// widget.RichText cuts a line of several styles at the width but drops
// the ellipsis.
type markedLine struct {
	widget.BaseWidget
	segs []*widget.TextSegment
}

func newMarkedLine() *markedLine {
	l := &markedLine{}
	l.ExtendBaseWidget(l)
	return l
}

// set shows segs, which must be *widget.TextSegment (highlight's).
func (l *markedLine) set(segs []widget.RichTextSegment) {
	l.segs = l.segs[:0]
	for _, s := range segs {
		if ts, ok := s.(*widget.TextSegment); ok {
			l.segs = append(l.segs, ts)
		}
	}
	l.Refresh()
}

func (l *markedLine) CreateRenderer() fyne.WidgetRenderer {
	r := &markedRenderer{l: l}
	r.Refresh()
	return r
}

type markedRenderer struct {
	l     *markedLine
	texts []*canvas.Text
	objs  []fyne.CanvasObject
}

func (r *markedRenderer) Destroy()                     {}
func (r *markedRenderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *markedRenderer) MinSize() fyne.Size {
	th := r.l.Theme()
	pad := th.Size(theme.SizeNameInnerPadding)
	size := th.Size(theme.SizeNameText)
	h := fyne.MeasureText("M", size, fyne.TextStyle{}).Height
	return fyne.NewSize(fyne.MeasureText("…", size, fyne.TextStyle{}).Width+2*pad, h+2*pad)
}

// Layout puts the segments side by side from the left; the one that
// crosses the width is cut to what fits before "…", and those after it
// are hidden.
func (r *markedRenderer) Layout(size fyne.Size) {
	th := r.l.Theme()
	pad := th.Size(theme.SizeNameInnerPadding)
	x, limit := pad, size.Width-pad
	full := false
	for i, t := range r.texts {
		t.Text = r.l.segs[i].Text
		if full {
			t.Hide()
			continue
		}
		t.Show()
		w := fyne.MeasureText(t.Text, t.TextSize, t.TextStyle).Width
		if x+w > limit {
			t.Text = cutToFit(t.Text, limit-x, func(s string) float32 { return fyne.MeasureText(s, t.TextSize, t.TextStyle).Width })
			w = fyne.MeasureText(t.Text, t.TextSize, t.TextStyle).Width
			full = true
		}
		h := fyne.MeasureText(t.Text, t.TextSize, t.TextStyle).Height
		t.Move(fyne.NewPos(x, (size.Height-h)/2))
		t.Resize(fyne.NewSize(w, h))
		x += w
	}
}

// cutToFit is the longest start of s that, with "…" after it, measures
// at most width.
func cutToFit(s string, width float32, measure func(string) float32) string {
	runes := []rune(s)
	lo, hi := 0, len(runes) // runes[:lo]+"…" fits; runes[:hi+1]+"…" does not
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if measure(string(runes[:mid])+"…") <= width {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(runes[:lo]) + "…"
}

func (r *markedRenderer) Refresh() {
	th := r.l.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	for len(r.texts) < len(r.l.segs) {
		r.texts = append(r.texts, canvas.NewText("", color.Black))
	}
	r.texts = r.texts[:len(r.l.segs)]
	r.objs = r.objs[:0]
	for i, t := range r.texts {
		seg := r.l.segs[i]
		name := seg.Style.ColorName
		if name == "" {
			name = theme.ColorNameForeground
		}
		t.Color = th.Color(name, v)
		t.TextStyle = seg.Style.TextStyle
		t.TextSize = th.Size(theme.SizeNameText)
		r.objs = append(r.objs, t)
	}
	r.Layout(r.l.Size())
	canvas.Refresh(r.l)
}
