package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// engramTheme is a theme (Fyne's default in the app) with a focus
// highlight that can be seen: the default's is the primary colour at a
// sixth of its opacity in the light variant, too faint to follow with
// the keyboard alone.
type engramTheme struct{ fyne.Theme }

// newTheme is base with the stronger focus highlight; nil means Fyne's
// default theme.
func newTheme(base fyne.Theme) fyne.Theme {
	if base == nil {
		base = theme.DefaultTheme()
	}
	if t, ok := base.(engramTheme); ok {
		return t
	}
	return engramTheme{base}
}

// focusAlpha is the focus highlight's opacity (of 255).
const focusAlpha = 0x80

func (t engramTheme) Color(name fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if name == theme.ColorNameFocus {
		r, g, b, _ := t.Theme.Color(theme.ColorNamePrimary, v).RGBA()
		return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: focusAlpha}
	}
	return t.Theme.Color(name, v)
}
