// Package assets holds Engram's embedded resources: the application icon
// as PNG (window, tray, packaging) and SVG (its source).
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.png
var iconPNG []byte

//go:embed icon.svg
var iconSVG []byte

// Icon is the application icon (PNG, 256×256).
var Icon = fyne.NewStaticResource("engram.png", iconPNG)

// IconSVG is the icon's vector source.
var IconSVG = fyne.NewStaticResource("engram.svg", iconSVG)

//go:embed icon-locked.png
var iconLockedPNG []byte

//go:embed icon-waiting.png
var iconWaitingPNG []byte

// IconLocked is the tray icon while Engram is locked (a padlock on grey);
// icon-locked.svg is its source.
var IconLocked = fyne.NewStaticResource("engram-locked.png", iconLockedPNG)

// IconWaiting is the tray icon while memories wait for review (the icon
// with an orange badge); icon-waiting.svg is its source.
var IconWaiting = fyne.NewStaticResource("engram-waiting.png", iconWaitingPNG)
