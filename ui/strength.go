package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/trustelem/zxcvbn"
)

// strength is zxcvbn's estimate of a passphrase: a score from 0 (guessed
// at once) to 4 (out of reach), and what to tell the user.
type strength struct {
	Score int
	Label string
}

// minScore is the score below which creating a vault or changing the
// passphrase needs an explicit "use it anyway". zxcvbn's 3 means about
// 10^10 guesses; the vault's Argon2id makes each guess cost a fraction of
// a second, so that is years of one machine's work.
const minScore = 3

// maxEstimated bounds the text zxcvbn looks at: its matching is
// quadratic in the length, and beyond this any passphrase is long
// enough.
const maxEstimated = 64

var strengthLabels = [...]string{
	"Very weak: guessed almost at once. Use four or more random words.",
	"Weak: guessed within hours. Use four or more random words.",
	"Fair: a determined attacker could guess it. Add a word or two.",
	"Good.",
	"Strong.",
}

// estimate returns the strength of p; inputs are words a guesser would
// try first (the user's name, "engram").
func estimate(p string, inputs ...string) strength {
	if p == "" {
		return strength{}
	}
	if r := []rune(p); len(r) > maxEstimated {
		p = string(r[:maxEstimated])
	}
	s := zxcvbn.PasswordStrength(p, append(inputs, "engram", "vault", "memory", "passphrase")).Score
	s = min(max(s, 0), 4)
	return strength{Score: s, Label: strengthLabels[s]}
}

// strengthWords name the scores on the meter.
var strengthWords = [...]string{"Very weak", "Weak", "Fair", "Good", "Strong"}

// strengthColors colour the meter's bar by score: red below Fair,
// orange at Fair, green from Good (minScore).
var strengthColors = [...]fyne.ThemeColorName{theme.ColorNameError, theme.ColorNameError, theme.ColorNameWarning, theme.ColorNameSuccess, theme.ColorNameSuccess}

// strengthMeter rates a passphrase as it is typed: a bar that fills a
// fifth per score and turns from red to green, the score's word beside
// it, and a hint below. Below minScore it shows "use it anyway", which
// the caller reads through acceptable. Empty, it takes no room.
type strengthMeter struct {
	widget.BaseWidget
	fill, track *canvas.Rectangle
	word, hint  *widget.Label
	anyway      *keyCheck
	score       int
	weak        bool
	box         *fyne.Container
}

// newStrengthMeter returns an empty meter; changed runs when "use it
// anyway" is ticked or unticked. u may be nil outside a dialog.
func newStrengthMeter(u *UI, changed func()) *strengthMeter {
	m := &strengthMeter{
		fill:  canvas.NewRectangle(theme.Color(theme.ColorNameError)),
		track: canvas.NewRectangle(theme.Color(theme.ColorNameInputBorder)),
		word:  widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		hint:  wrapped(""),
	}
	m.fill.CornerRadius, m.track.CornerRadius = 3, 3
	m.anyway = newKeyCheck(u, "Use this weak passphrase anyway", func(bool) {
		if changed != nil {
			changed()
		}
	})
	bar := container.New(&meterLayout{m: m}, m.track, m.fill)
	m.box = container.NewVBox(container.NewBorder(nil, nil, nil, m.word, bar), m.hint, m.anyway)
	m.ExtendBaseWidget(m)
	m.set("")
	return m
}

// set rates p and shows it.
func (m *strengthMeter) set(p string, inputs ...string) {
	st := estimate(p, inputs...)
	m.score, m.weak = st.Score, p != "" && st.Score < minScore
	m.fill.FillColor = theme.Color(strengthColors[st.Score])
	m.word.SetText(strengthWords[st.Score])
	m.hint.SetText(st.Label)
	m.anyway.Hidden = !m.weak
	if !m.weak && m.anyway.Checked {
		m.anyway.SetChecked(false)
	}
	m.Hidden = p == ""
	m.box.Refresh()
	m.Refresh()
}

// acceptable reports whether the rated passphrase may be used: strong
// enough, or weak with "use it anyway" ticked.
func (m *strengthMeter) acceptable() bool { return !m.weak || m.anyway.Checked }

func (m *strengthMeter) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(m.box)
}

// meterLayout draws the meter's track across its width and the fill
// over the score's share of it, as a thin bar centred in the height.
type meterLayout struct{ m *strengthMeter }

const meterHeight = 8

func (l *meterLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(120, meterHeight) }

func (l *meterLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	y := (size.Height - meterHeight) / 2
	objs[0].Move(fyne.NewPos(0, y))
	objs[0].Resize(fyne.NewSize(size.Width, meterHeight))
	objs[1].Move(fyne.NewPos(0, y))
	objs[1].Resize(fyne.NewSize(size.Width*float32(l.m.score+1)/float32(len(strengthWords)), meterHeight))
}
