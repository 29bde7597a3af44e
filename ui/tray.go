package ui

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/engram-app/engram/app/host"
	"github.com/engram-app/engram/assets"
)

// tray is the system tray: its icon shows the state (locked, open, items
// waiting for review) and its menu offers only Unlock and Quit while
// Engram is locked. Without a tray (no D-Bus session bus on Linux, or a
// driver without one) the menus are kept but never shown.
type tray struct {
	u  *UI
	da desktop.App
	// menu is the menu in use: locked or open.
	menu, locked, open  *fyne.Menu
	unlock              *fyne.MenuItem
	pause, review, held *fyne.MenuItem
	// icon is the icon in use.
	icon    fyne.Resource
	paused  bool
	waiting int
	// l3Item proposes the removal of old L3 access records (see l3.go);
	// it is in the open menu only while l3 has some due, and l3Told
	// says the user was notified of it.
	l3Item *fyne.MenuItem
	l3     l3Proposal
	l3Told bool
}

// trayAvailable reports whether a tray may be registered: on Linux the
// StatusNotifier tray needs a session bus (without one, systray panics
// inside godbus when it quits).
func trayAvailable(getenv func(string) string) bool {
	if runtime.GOOS == "linux" || runtime.GOOS == "freebsd" {
		return getenv("DBUS_SESSION_BUS_ADDRESS") != ""
	}
	return true
}

// newTray builds the menus and registers the tray. Fyne starts the tray
// when the app starts running, so this happens in Start, before the
// window is shown.
func newTray(u *UI) *tray {
	t := &tray{u: u}
	show := func() { u.win.Show(); u.win.RequestFocus() }
	// whenOpen guards the open menu's entries: a click that arrives
	// after a lock only shows the window, where the unlock screen is.
	whenOpen := func(fn func()) func() {
		return func() {
			if !u.isOpen() {
				show()
				return
			}
			fn()
		}
	}
	quit := fyne.NewMenuItem("Quit", u.Quit)
	quit.IsQuit = true
	t.unlock = fyne.NewMenuItem("Unlock…", show)
	t.locked = fyne.NewMenu("Engram", t.unlock, fyne.NewMenuItemSeparator(), quit)

	t.pause = fyne.NewMenuItem("Pause agents", whenOpen(t.togglePause))
	t.review = fyne.NewMenuItem("Quarantine: none waiting", whenOpen(func() {
		show()
		u.tabs.Select(u.qTab)
	}))
	t.held = fyne.NewMenuItem("Agents: none paused by Engram", whenOpen(func() {
		show()
		u.tabs.Select(u.agentsTab)
	}))
	t.l3Item = fyne.NewMenuItem("", whenOpen(func() {
		show()
		u.askL3(t.l3)
	}))
	t.open = fyne.NewMenu("Engram",
		fyne.NewMenuItem("Open Engram", show),
		fyne.NewMenuItem("Lock", whenOpen(u.lockNow)),
		t.pause,
		fyne.NewMenuItem("Export backup", whenOpen(u.exportBackup)),
		t.review, t.held, fyne.NewMenuItemSeparator(), quit)
	if da, ok := u.fa.(desktop.App); ok && trayAvailable(os.Getenv) {
		t.da = da
	}
	t.update()
	if t.da == nil {
		return t
	}
	// With a tray, closing the window hides it: Engram keeps serving agents.
	u.win.SetCloseIntercept(func() { u.win.Hide() })
	return t
}

// update sets the menu and icon for the UI's state.
func (t *tray) update() {
	if t == nil {
		return
	}
	menu, icon := t.locked, assets.IconLocked
	t.unlock.Label = "Unlock…"
	switch {
	case t.u.h == nil:
		t.unlock.Label = "Open Engram" // first run, or the vault failed to open
		icon = assets.Icon
	case t.u.isOpen():
		menu, icon = t.open, assets.Icon
		if t.waiting > 0 {
			icon = assets.IconWaiting
		}
	}
	t.menu = menu
	if t.da == nil {
		t.icon = icon
		return
	}
	if icon != t.icon {
		t.icon = icon
		t.da.SetSystemTrayIcon(icon)
	}
	t.da.SetSystemTrayMenu(menu)
}

func (t *tray) togglePause() { t.u.agents.pauseAll(!t.paused) }

// setPaused records the pause state for the menu label.
func (t *tray) setPaused(p bool) {
	if t == nil {
		return
	}
	t.paused = p
	t.pause.Label = "Pause agents"
	if p {
		t.pause.Label = "Resume agents"
	}
	t.update()
}

// setQuarantine shows the review queue's count in the menu and the icon.
func (t *tray) setQuarantine(n int) {
	if t == nil {
		return
	}
	t.waiting = n
	t.review.Label = "Quarantine: none waiting"
	if n > 0 {
		t.review.Label = fmt.Sprintf("Quarantine: %d waiting", n)
	}
	t.update()
}

// setHeld shows in the menu the agents Engram paused after their refused
// writes, and tells the user once when one is newly held.
func (t *tray) setHeld(names []string) {
	if t == nil {
		return
	}
	for _, n := range names {
		if !t.u.shownHeld[n] {
			t.u.shownHeld[n] = true
			t.u.notify("Engram paused "+n, n+" kept writing what Engram refused. It stays paused until you resume it in Agents.")
		}
	}
	for n := range t.u.shownHeld {
		if !slices.Contains(names, n) {
			delete(t.u.shownHeld, n) // resumed: tell again next time
		}
	}
	t.held.Label = "Agents: none paused by Engram"
	if len(names) > 0 {
		t.held.Label = "Agents held after refused writes: " + strings.Join(names, ", ")
	}
	t.update()
}

// exportBackup writes a backup into the backup folder and notifies the
// user; without a stored backup passphrase it asks for one first.
func (u *UI) exportBackup() {
	pass, err := u.h.BackupPassphrase()
	if errors.Is(err, host.ErrNoBackupPassphrase) {
		u.win.Show()
		u.askBackupPassphrase(u.exportWith)
		return
	}
	if err != nil {
		u.notify("Engram backup failed", err.Error())
		return
	}
	u.exportWith(pass)
}

func (u *UI) exportWith(pass []byte) {
	var path string
	var n int
	h := u.h
	u.background(func() (err error) {
		path, n, err = h.ExportBackup(u.ctx, pass)
		clear(pass)
		return err
	}, func(err error) {
		if err != nil {
			u.notify("Engram backup failed", err.Error())
			u.setStatus("Backup failed: " + err.Error())
			return
		}
		msg := fmt.Sprintf("%s saved to %s", count(n, "memory", "memories"), path)
		u.notify("Engram backup saved", msg)
		u.setStatus("Backup: " + msg)
	})
}
