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

// tray is the system tray menu. Its methods do nothing when there is no
// tray (no D-Bus session bus on Linux, or a driver without one).
type tray struct {
	u                                 *UI
	da                                desktop.App
	menu                              *fyne.Menu
	open, lock, pause, export, review *fyne.MenuItem
	// held names the agents Engram paused after their refused writes.
	held   *fyne.MenuItem
	paused bool
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

// newTray registers the tray. Fyne starts the tray when the app starts
// running, so this happens in Start, before the window is shown.
func newTray(u *UI) *tray {
	t := &tray{u: u}
	da, ok := u.fa.(desktop.App)
	if !ok || !trayAvailable(os.Getenv) {
		return t
	}
	t.da = da
	show := func() { u.win.Show(); u.win.RequestFocus() }
	// Until the vault is open (first run, unlock screen) every entry
	// just shows the window, where the user is being asked.
	whenOpen := func(fn func()) func() {
		return func() {
			if u.tabs == nil {
				show()
				return
			}
			fn()
		}
	}
	t.open = fyne.NewMenuItem("Open Engram", show)
	t.lock = fyne.NewMenuItem("Lock", whenOpen(t.toggleLock))
	t.pause = fyne.NewMenuItem("Pause agents", whenOpen(t.togglePause))
	t.export = fyne.NewMenuItem("Export backup", whenOpen(u.exportBackup))
	t.review = fyne.NewMenuItem("Quarantine: none waiting", whenOpen(func() {
		show()
		u.tabs.Select(u.qTab)
	}))
	t.held = fyne.NewMenuItem("Agents: none held", whenOpen(func() {
		show()
		u.tabs.Select(u.agentsTab)
	}))
	quit := fyne.NewMenuItem("Quit", u.Quit)
	quit.IsQuit = true
	t.menu = fyne.NewMenu("Engram", t.open, t.lock, t.pause, t.export, t.review, t.held, fyne.NewMenuItemSeparator(), quit)
	da.SetSystemTrayIcon(assets.Icon)
	da.SetSystemTrayMenu(t.menu)
	// With a tray, closing the window hides it: Engram keeps serving agents.
	u.win.SetCloseIntercept(func() { u.win.Hide() })
	return t
}

func (t *tray) refresh() {
	if t.da != nil {
		t.menu.Refresh()
	}
}

func (t *tray) updateLock() {
	if t == nil || t.da == nil {
		return
	}
	if t.u.h != nil && t.u.h.Locked() {
		t.lock.Label = "Unlock…"
	} else {
		t.lock.Label = "Lock"
	}
	t.refresh()
}

func (t *tray) toggleLock() {
	if t.u.h.Locked() {
		t.u.win.Show()
		t.u.askUnlock()
		return
	}
	t.u.h.Lock()
}

func (t *tray) togglePause() { t.u.agents.pauseAll(!t.paused) }

// setPaused records the pause state for the menu label.
func (t *tray) setPaused(p bool) {
	if t == nil {
		return
	}
	t.paused = p
	if t.da == nil {
		return
	}
	t.pause.Label = "Pause agents"
	if p {
		t.pause.Label = "Resume agents"
	}
	t.refresh()
}

// setQuarantine shows the review queue's count in the menu.
func (t *tray) setQuarantine(n int) {
	if t == nil || t.da == nil {
		return
	}
	t.review.Label = "Quarantine: none waiting"
	if n > 0 {
		t.review.Label = fmt.Sprintf("Quarantine: %d waiting", n)
	}
	t.refresh()
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
	if t.da == nil {
		return
	}
	t.held.Label = "Agents: none held"
	if len(names) > 0 {
		t.held.Label = "Agents held after refused writes: " + strings.Join(names, ", ")
	}
	t.refresh()
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
		msg := fmt.Sprintf("%d memories saved to %s", n, path)
		u.notify("Engram backup saved", msg)
		u.setStatus("Backup: " + msg)
	})
}
