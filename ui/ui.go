package ui

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/connect"
	"github.com/engram-app/engram/app/host"
)

// UI is the desktop app's window and tray over one host.
type UI struct {
	fa  fyne.App
	win fyne.Window
	cfg host.Config
	now func() time.Time

	h      *host.Host
	ctx    context.Context
	cancel context.CancelFunc
	unsub  func()

	// run takes work off the UI goroutine and back (see runner).
	run runner
	// focus is the entry a screen wants focused once it is shown.
	focus *widget.Entry

	// started is set once the host's background work runs.
	started bool
	// status is the main window's status line; baseStatus what it says
	// when no message is shown (where agents connect).
	status     *statusLine
	baseStatus string

	// lastTab is the tab shown when the vault was last locked.
	lastTab int
	// tip shows tooltips over the main screens.
	tip *tipLayer

	tabs       *container.AppTabs
	qTab       *container.TabItem
	agentsTab  *container.TabItem
	memories   *memoriesScreen
	quarantine *quarantineScreen
	agents     *agentsScreen
	audit      *auditScreen
	settings   *settingsScreen
	tray       *tray

	// shownPairing remembers pairing requests already put to the user;
	// shownHeld the agents Engram paused that the user was told about.
	shownPairing map[string]bool
	shownHeld    map[string]bool
	// notify sends a desktop notification; tests record them.
	notify func(title, body string)
	// dialogs is what Escape and Enter do in each open dialog, by the
	// overlay that shows it (see keyed).
	dialogs map[fyne.CanvasObject]dialogKeys
	// clipped is the secret last copied to the clipboard, until cleared.
	clipped string
	// secrets keeps the tokens of the agents of connected clients (the
	// OS keyring); tests keep them in memory.
	secrets connect.Secrets
}

// clipClear is how long a copied secret stays in the clipboard.
const clipClear = 30 * time.Second

// copySecret puts secret in the clipboard and clears it clipClear later
// (or at a lock) if it still holds it.
func (u *UI) copySecret(secret string) {
	u.fa.Clipboard().SetContent(secret)
	u.clipped = secret
	u.run.after(clipClear, func() { u.clearClipboard(secret) })
}

// clearClipboard empties the clipboard if it still holds secret.
func (u *UI) clearClipboard(secret string) {
	if secret == "" || u.clipped != secret {
		return
	}
	u.clipped = ""
	if u.fa.Clipboard().Content() == secret {
		u.fa.Clipboard().SetContent("")
	}
}

// New returns the UI of fa for the vault cfg describes. Nothing is opened
// until Start.
func New(fa fyne.App, cfg host.Config) *UI {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	u := &UI{
		fa: fa, cfg: cfg, now: cfg.Now,
		shownPairing: map[string]bool{},
		dialogs:      map[fyne.CanvasObject]dialogKeys{},
		shownHeld:    map[string]bool{},
		secrets:      app.OSSecrets{},
		run:          fyneRunner{},
	}
	u.status = newStatusLine(u)
	u.notify = func(title, body string) { fa.SendNotification(fyne.NewNotification(title, body)) }
	fa.Settings().SetTheme(newTheme(fa.Settings().Theme()))
	u.win = fa.NewWindow("Engram")
	u.win.Resize(fyne.NewSize(1100, 720))
	u.win.SetMaster()
	return u
}

// Window is the main window.
func (u *UI) Window() fyne.Window { return u.win }

// Start opens the vault and shows the first screen: create on first run,
// otherwise unlock (silently from the keyring when it can).
func (u *UI) Start() {
	u.ctx, u.cancel = context.WithCancel(context.Background())
	u.tray = newTray(u)
	u.shortcuts()
	if !host.Exists(u.cfg.DataDir) {
		u.setScreen(u.createScreen())
		return
	}
	h, err := host.Open(u.ctx, u.cfg)
	if err != nil {
		u.win.SetContent(u.fatalScreen(openError(err)))
		return
	}
	u.attach(h)
	ok, kerr := h.TryKeyring()
	if ok {
		u.showMain()
		return
	}
	// Agents work while the window waits for the passphrase.
	u.startHost()
	u.showLocked(kerr)
}

// attach makes h the UI's host and subscribes to its events.
func (u *UI) attach(h *host.Host) {
	u.h = h
	u.unsub = h.Subscribe(u.onEvent)
}

// startHost starts the host's background work (agent API, watchers,
// auto-lock) once.
func (u *UI) startHost() {
	if u.started {
		return
	}
	u.started = true
	u.run.service(func() { u.h.Start(u.ctx) })
}

// setScreen shows a full-window screen and focuses its first field.
func (u *UI) setScreen(c fyne.CanvasObject) {
	u.win.SetContent(c)
	if u.focus != nil {
		u.win.Canvas().Focus(u.focus)
		u.focus = nil
	}
}

// openError explains why the vault could not be opened.
func openError(err error) string {
	switch {
	case errors.Is(err, app.ErrInUse):
		return "Engram is already running: another Engram window or 'engram serve' has the vault open. Close it first, or use the window that is open."
	case slices.ContainsFunc(app.ErrDamaged, func(target error) bool { return errors.Is(err, target) }):
		return fmt.Sprintf("The vault file is damaged (%v). Nothing was changed. Run 'engram doctor', and restore from a backup with 'engram import' if needed.", err)
	}
	return fmt.Sprintf("The vault could not be opened: %v", err)
}

func unlockReason(kerr error) string {
	if kerr == nil {
		return "Agents keep working, without the sensitive partition. Enter the passphrase to open the window."
	}
	return fmt.Sprintf("The OS keyring could not be used (%v), so Engram needs the passphrase. Agents keep working meanwhile, without the sensitive partition.", kerr)
}

func (u *UI) fatalScreen(msg string) fyne.CanvasObject {
	l := widget.NewLabel(msg)
	l.Wrapping = fyne.TextWrapWord
	quit := widget.NewButtonWithIcon("Quit", theme.LogoutIcon(), func() { u.Quit() })
	return container.NewPadded(container.NewVBox(widget.NewLabelWithStyle("Engram cannot start", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), l, quit))
}

// showMain builds the main tabs once the vault is unlocked (or created),
// and fills them. The screens are built anew at every unlock, so nothing
// shown before a lock survives it.
func (u *UI) showMain() {
	if u.tabs != nil {
		return
	}
	u.memories = newMemoriesScreen(u)
	u.quarantine = newQuarantineScreen(u)
	u.agents = newAgentsScreen(u)
	u.audit = newAuditScreen(u)
	u.settings = newSettingsScreen(u)
	u.qTab = container.NewTabItemWithIcon("Quarantine", theme.WarningIcon(), u.quarantine.content)
	u.agentsTab = container.NewTabItemWithIcon("Agents", theme.ComputerIcon(), u.agents.content)
	u.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Memories", theme.DocumentIcon(), u.memories.content),
		u.qTab,
		u.agentsTab,
		container.NewTabItemWithIcon("Audit log", theme.ListIcon(), u.audit.content),
		container.NewTabItemWithIcon("Settings", theme.SettingsIcon(), u.settings.content),
	)
	u.tabs.OnSelected = func(t *container.TabItem) { u.h.Touch(); u.refreshTab(t) }
	// An unlock comes back to the tab shown at the lock (the screens in
	// it start afresh).
	if u.lastTab > 0 && u.lastTab < len(u.tabs.Items) {
		u.tabs.SelectIndex(u.lastTab)
	}
	u.tip = newTipLayer()
	u.setScreen(container.NewStack(topThen(u.banner(), newTabStrip(u.tabs)), u.tip.layer))
	u.tray.update()
	for _, w := range u.h.Warnings {
		u.setStatus(w)
	}
	u.refreshAll()
}

// topThen is center under top, as container.NewBorder(top, nil, nil,
// nil, center) lays them out, but with top first in the Tab order
// (NewBorder puts the center first: Tab went to the list before the
// search box above it).
func topThen(top, center fyne.CanvasObject) *fyne.Container {
	return container.New(layout.NewBorderLayout(top, nil, nil, nil), top, center)
}

// banner shows the lock button and the status line.
func (u *UI) banner() fyne.CanvasObject {
	u.status = newStatusLine(u)
	lock := widget.NewButtonWithIcon("Lock", lockIcon, u.lockNow)
	return container.NewBorder(nil, nil, lock, nil, u.status)
}

// lockNow locks the vault and the window.
func (u *UI) lockNow() {
	u.h.Lock()
	u.showLocked(nil)
}

// showLocked shows the unlock screen and nothing else: every dialog is
// closed and the main screens are dropped, with whatever they showed.
// kerr is why the keyring did not unlock at start, or nil.
func (u *UI) showLocked(kerr error) {
	ov := u.win.Canvas().Overlays()
	for top := ov.Top(); top != nil; top = ov.Top() {
		ov.Remove(top)
	}
	if u.tabs != nil {
		u.lastTab = u.tabs.SelectedIndex()
	}
	u.tabs, u.qTab, u.agentsTab, u.tip = nil, nil, nil, nil
	u.memories, u.quarantine, u.agents, u.audit, u.settings = nil, nil, nil, nil, nil
	u.status = newStatusLine(u)
	// Pairing requests are asked again after the unlock.
	u.shownPairing = map[string]bool{}
	u.clearClipboard(u.clipped)
	u.setScreen(u.unlockScreen(kerr))
	u.tray.update()
}

// isOpen reports whether the main screens are shown (the vault is
// unlocked).
func (u *UI) isOpen() bool { return u.tabs != nil }

// setQuarantineCount shows the review queue's length on its tab and in
// the tray.
func (u *UI) setQuarantineCount(n int) {
	if !u.isOpen() {
		return
	}
	u.qTab.Text = "Quarantine"
	if n > 0 {
		u.qTab.Text = fmt.Sprintf("Quarantine (%d)", n)
	}
	u.tabs.Refresh()
	u.tray.setQuarantine(n)
}

// unlockMessage is what the unlock screen says about a failed unlock.
func unlockMessage(err error) string {
	if errors.Is(err, app.ErrWrongPassphrase) {
		return "Wrong passphrase. Nothing was changed; try again."
	}
	return err.Error()
}

// onEvent receives host events on a background goroutine. It must not
// block (see runner.post).
func (u *UI) onEvent(e host.Event) {
	u.run.post(func() {
		if u.h == nil {
			return // closed
		}
		if e.Lock {
			switch locked := u.h.Locked(); {
			case locked && u.isOpen():
				u.showLocked(nil)
			case !locked && !u.isOpen():
				u.showMain()
			}
		}
		for _, ref := range e.Rejected {
			u.sessionSummary(ref) // a notification, said while locked too
		}
		if !u.isOpen() {
			return // locked: nothing else is shown
		}
		if e.Memories {
			u.memories.changed()
		}
		if e.Quarantine {
			u.quarantine.refresh()
		}
		if e.Agents {
			u.agents.refresh()
		}
		if e.Audit && u.tabs.Selected() != nil && u.tabs.Selected().Text == "Audit log" {
			u.audit.refresh()
		}
		if e.Sync {
			u.settings.sync.refresh()
		}
		if e.Server {
			u.serverStatus()
			if u.memories.empty.Visible() {
				u.memories.showEmpty(true) // with the address now known
			}
		}
		if p := e.Embedding; p != nil {
			u.setStatus(embeddingStatus(*p))
		}
		if e.Swept != nil {
			u.checkL3() // the sweep proposes removing old L3 access records
		}
		if e.Swept != nil && (e.Swept.Archived+e.Swept.Purged > 0 || e.Swept.Err != "") {
			u.setStatus(fmt.Sprintf("Sweep: %d archived, %d purged %s", e.Swept.Archived, e.Swept.Purged, e.Swept.Err))
		}
	})
}

// embeddingStatus says how far the background embedding has come.
func embeddingStatus(p app.EmbedProgress) string {
	switch {
	case p.Running:
		return fmt.Sprintf("Preparing semantic recall: %d of %d memories embedded; keyword recall works meanwhile", p.Done, p.Total)
	case p.Err != "":
		return fmt.Sprintf("Semantic recall is incomplete (%s); it resumes at the next start. Keyword recall works.", p.Err)
	}
	return fmt.Sprintf("Semantic recall ready: %d memories embedded", p.Done)
}

func (u *UI) serverStatus() {
	addr, err := u.h.ServerStatus()
	if err != nil {
		u.baseStatus = fmt.Sprintf("The agent API is not running: %v", err)
	} else if addr == "" {
		u.baseStatus = "Starting the agent API…"
	} else {
		u.baseStatus = fmt.Sprintf("Agents connect at http://%s (MCP at /mcp)", addr)
	}
	u.status.SetText(u.baseStatus)
}

// sessionSummary tells the user of an agent session's refused writes,
// in a notification and the status line: which agent, how many, and
// why the latest was refused, in the user's words (the service's
// summary is written for the agent). A click on the status line offers
// the refusal in the audit log.
func (u *UI) sessionSummary(ref host.SessionRef) {
	req := app.Request{Caller: app.Caller{Agent: ref.Agent, Session: ref.Session}, Authorized: true}
	s := u.h.Service().SessionSummary(u.ctx, req)
	if len(s.Rejected) == 0 {
		return
	}
	title, text := refusalText(ref.Agent, s.Rejected)
	u.notify(title, text)
	u.setStatusAction(title+": "+text, "Show it in the audit log", func() { u.showAuditEntry(ref.Agent, ref.Seq) })
}

// refusalText says for the user that agent had writes refused this
// session: a title naming the agent, and the count with the first
// sentence of the latest refusal's reason (the rest is advice to the
// agent).
func refusalText(agent string, rejected []string) (title, text string) {
	title = "Engram refused a write from " + agent
	why := rejected[len(rejected)-1]
	if i := strings.Index(why, ". "); i > 0 {
		why = why[:i]
	}
	why = strings.TrimSuffix(why, ".")
	text = capitalise(why) + "."
	if n := len(rejected); n > 1 {
		title = fmt.Sprintf("Engram refused %d writes from %s", n, agent)
		text = "The latest: " + why + "."
	}
	return title, text
}

// showAuditEntry shows the audit log filtered to agent with entry seq
// selected (when it is among the entries shown).
func (u *UI) showAuditEntry(agent string, seq uint64) {
	if !u.isOpen() {
		return
	}
	u.audit.agent.SetText(agent)
	u.audit.sel = app.AuditEntry{Seq: seq}
	u.tabs.SelectIndex(3) // refreshes the log
}

// refreshAll fills every screen; once the memories are listed the host
// starts its background work (index build, agent API, watchers).
func (u *UI) refreshAll() {
	u.memories.loaded = u.startHost
	u.memories.refresh()
	u.quarantine.refresh()
	u.agents.refresh()
	u.serverStatus()
	u.checkL3()
}

func (u *UI) refreshTab(t *container.TabItem) {
	switch t.Text {
	case "Agents":
		u.agents.refresh()
	case "Audit log":
		u.audit.refresh()
	case "Settings", "Settings (unsaved)":
		u.settings.sync.refresh()
	}
	if t == u.qTab {
		u.quarantine.refresh()
	}
}

// statusFor is how long a status message stays before the status line
// goes back to where agents connect.
const statusFor = 15 * time.Second

// setStatus shows a message in the status line for statusFor.
func (u *UI) setStatus(s string) { u.setStatusAction(s, "", nil) }

// setStatusAction shows a message in the status line for statusFor; a
// click on it shows the message whole with a button labelled label that
// runs action (none when action is nil).
func (u *UI) setStatusAction(s, label string, action func()) {
	u.status.SetText(s)
	u.status.label, u.status.action = label, action
	line := u.status
	u.run.after(statusFor, func() {
		if line.Text == s {
			line.SetText(u.baseStatus)
		}
	})
}

// async runs work off the UI goroutine; then (if set) runs back on it, or
// an error dialog explains a failure. Slow work (key derivation, export,
// recall over a large vault) never freezes the window.
func (u *UI) async(work func() error, then func()) {
	u.background(work, func(err error) {
		if err != nil {
			u.showError(err)
			return
		}
		if then != nil {
			then()
		}
	})
}

// background runs work off the UI goroutine and done with its error back
// on it.
func (u *UI) background(work func() error, done func(error)) { u.run.spawn(work, done) }

// showResponse reports a failed service response; it returns r.OK().
func (u *UI) showResponse(r app.Response) bool {
	if r.OK() {
		return true
	}
	u.showError(errors.New(r.Message))
	return false
}

// Quit closes the host (stopping the agent API) and the app.
func (u *UI) Quit() {
	u.Close()
	u.fa.Quit()
}

// Close ends the host and background work; the window stays.
//
// It does not wait for background work: that work finishes on the UI
// goroutine, which is the one calling Close (from Quit) or has stopped (after
// ShowAndRun), so waiting could never end. Work still running finds the
// vault closed and gives up.
func (u *UI) Close() {
	if u.unsub != nil {
		u.unsub()
	}
	if u.cancel != nil {
		u.cancel()
	}
	if u.h != nil {
		u.h.Close()
		u.h = nil
	}
}

// HasDisplay reports whether a graphical session is available, so that
// the command line can say so instead of failing inside the GUI toolkit.
// On macOS and Windows there always is one.
func HasDisplay(getenv func(string) string) bool {
	switch runtime.GOOS {
	case "darwin", "windows", "ios", "android":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}
