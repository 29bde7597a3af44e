// Package ui is Engram's desktop app: a Fyne window with screens for
// unlocking, memories, quarantine review, agents, the audit log and
// settings, and a system tray. It talks only to package app (through an
// app/host.Host), never to the vault; updates from other goroutines reach
// the widgets through a runner (fyne.Do on the desktop).
package ui
