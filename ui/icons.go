package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// padlockSVG is a closed padlock: a shackle over a body, in one path.
const padlockSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M7 10V7a5 5 0 0 1 10 0v3h1a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1V11a1 1 0 0 1 1-1zm2 0h6V7a3 3 0 0 0-6 0z"/></svg>`

// lockIcon is the padlock of the Lock button and the unlock screen, in
// the theme's foreground colour (Fyne's theme has no padlock).
var lockIcon = theme.NewThemedResource(fyne.NewStaticResource("padlock.svg", []byte(padlockSVG)))
