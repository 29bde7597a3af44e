// Package host runs Engram inside a long-lived process, the desktop app:
// it creates or opens the vault, unlocks it from the OS keyring or a
// passphrase, serves the loopback API and MCP for agents, sweeps on a
// schedule, locks after the user has been idle, exports backups into the
// backup folder, keeps the settings (inside the vault file) and tells its
// owner what changed by following the audit chain.
//
// Host never imports Fyne; the desktop UI drives it, and tests drive it
// directly. All goroutines it starts end on Close.
package host
