package ui

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/connect"
)

// noSecrets keeps no agent token in a keyring, when the user asked for
// none (ENGRAM_NO_KEYRING): connect.Tokens then uses its 0600 file.
type noSecrets struct{ reason string }

func (n noSecrets) err() error                 { return fmt.Errorf("%w: %s", app.ErrKeyringUnavailable, n.reason) }
func (n noSecrets) Get(string) (string, error) { return "", n.err() }
func (n noSecrets) Set(string, string) error   { return n.err() }
func (n noSecrets) Delete(string) error        { return nil }

// getenv reads the environment the host was configured with.
func (u *UI) getenv(key string) string {
	if u.cfg.Getenv != nil {
		return u.cfg.Getenv(key)
	}
	return os.Getenv(key)
}

// engramCommand is the absolute path of this program, which a connected
// client starts as `engram mcp --agent NAME`.
func engramCommand() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find this program's path: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Abs(exe)
}

// connectDialog is "Connect a client…": the clients with their state, the
// agent a client would run as with its grants, and the change to the
// client's file, shown before anything is written.
type connectDialog struct {
	u   *UI
	d   *dialog.CustomDialog
	env connect.Env
	tk  connect.Tokens
	exe string

	statuses []connect.Status
	list     *keyList
	sel      int

	// What the panel on the right shows for the selected client.
	state, agentNote, planNote, diff, problem binding.String

	name         *shortcutEntry
	fields, read *checks
	mayConfirm   *keyCheck
	// hooks and capture choose the client's lifecycle hooks (a briefing
	// and recall; capture from the transcript), where it has them.
	hooks, capture *keyCheck
	// choosing is set while the dialog sets the checks itself.
	choosing         bool
	connectB, discoB *keyButton
	// grantsEditable is set when the agent would be new; fresh when the
	// grants still have to be filled for the selected client.
	grantsEditable, fresh bool
	// gen counts dry runs: only the latest one's answer is shown.
	gen int
}

// connectClient opens the Connect a client dialog.
func (s *agentsScreen) connectClient() {
	u := s.u
	exe, err := engramCommand()
	if err != nil {
		u.showError(err)
		return
	}
	c := &connectDialog{
		u: u, exe: exe, sel: -1,
		env: connect.Env{Getenv: u.getenv, GOOS: runtime.GOOS, LookPath: exec.LookPath},
		tk:  connect.Tokens{Keyring: u.secrets, DataDir: u.h.DataDir()},
	}
	for _, b := range []*binding.String{&c.state, &c.agentNote, &c.planNote, &c.diff, &c.problem} {
		*b = binding.NewString()
	}
	c.list = newKeyList(u, func() int { return len(c.statuses) },
		func() fyne.CanvasObject {
			state := widget.NewLabel("not installed")
			state.Importance = widget.LowImportance
			return container.NewBorder(nil, nil, nil, state, widget.NewLabel("Claude Desktop"))
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			st := c.statuses[i]
			box := o.(*fyne.Container)
			box.Objects[0].(*widget.Label).SetText(st.Client.Name)
			l := box.Objects[1].(*widget.Label)
			l.SetText(shortState(st))
			switch {
			case st.Err != nil:
				l.Importance = widget.DangerImportance
			case st.Connected:
				l.Importance = widget.SuccessImportance
			case st.Installed:
				l.Importance = widget.MediumImportance
			default:
				l.Importance = widget.LowImportance
			}
			l.Refresh()
		})
	c.list.OnSelected = func(i widget.ListItemID) {
		u.h.Touch()
		c.sel, c.fresh = i, true
		c.choosing = true
		c.name.SetText("") // the agent the client's file names, else the client's ID
		c.showHooks(c.statuses[i])
		c.choosing = false
		c.plan()
	}

	c.name = newShortcutEntry(u)
	c.name.OnChanged = func(string) { c.replan() }
	c.name.OnSubmitted = func(string) { c.connect() }
	c.fields = newChecks(u, choices(app.Fields)[1:])
	c.read = newChecks(u, []string{"public", "internal", "sensitive"})
	c.mayConfirm = newKeyCheck(u, "Its \"the user confirmed\" counts as my confirmation", nil)
	c.hooks = newKeyCheck(u, "Briefing at start, recall with each prompt", func(on bool) {
		if on {
			c.capture.Enable()
		} else {
			c.capture.Disable()
		}
		c.replan()
	})
	c.capture = newKeyCheck(u, "Capture what I say is meant to last", func(bool) { c.replan() })

	diff := widget.NewTextGrid()
	diff.Scroll = fyne.ScrollNone // the scroll below holds it, padded like the labels
	c.diff.AddListener(binding.NewDataListener(func() {
		text, _ := c.diff.Get()
		showDiff(diff, text)
	}))
	diffArea := container.NewScroll(container.NewPadded(diff))
	diffArea.SetMinSize(fyne.NewSize(0, 150)) // the dialog keeps to 640 high with the hooks row
	problem := widget.NewLabelWithData(c.problem)
	problem.Wrapping, problem.Importance = fyne.TextWrapWord, widget.DangerImportance
	problem.Hide()
	c.problem.AddListener(binding.NewDataListener(func() {
		if msg, _ := c.problem.Get(); msg == "" {
			problem.Hide()
		} else {
			problem.Show()
		}
	}))
	stateLabel := widget.NewLabelWithData(c.state)
	stateLabel.Wrapping, stateLabel.TextStyle = fyne.TextWrapWord, fyne.TextStyle{Bold: true}
	agentNote := widget.NewLabelWithData(c.agentNote)
	agentNote.Wrapping = fyne.TextWrapWord
	planNote := widget.NewLabelWithData(c.planNote)
	planNote.Wrapping = fyne.TextWrapWord

	grants := widget.NewForm(
		widget.NewFormItem("Agent", c.name),
		widget.NewFormItem("May write", c.fields.box),
		widget.NewFormItem("May read", c.read.box),
		widget.NewFormItem("May confirm", c.mayConfirm),
		widget.NewFormItem("Hooks", container.NewHBox(c.hooks, c.capture)),
	)
	right := container.NewBorder(container.NewVBox(stateLabel, grants, agentNote, planNote), problem, nil, nil, diffArea)
	split := container.NewHSplit(c.list, right)
	split.Offset = 0.3
	help := wrapped("Engram adds an 'engram' server to the client's own configuration; the agent's token stays in the OS keyring, never in that file.")

	d := dialog.NewCustomWithoutButtons("Connect a client", container.NewBorder(help, nil, nil, nil, split), u.win)
	c.d = d
	cancel := newDefaultButton("Cancel", theme.CancelIcon(), d.Hide)
	cancel.Importance = widget.MediumImportance
	c.discoB = newKeyButton(u, "Disconnect…", theme.DeleteIcon(), c.disconnect)
	c.discoB.Importance = widget.DangerImportance
	c.connectB = newKeyButton(u, "Connect", theme.ConfirmIcon(), c.connect)
	c.connectB.Importance = widget.HighImportance
	d.SetButtons([]fyne.CanvasObject{cancel, c.discoB, c.connectB})
	d.Resize(fyne.NewSize(1040, 640))
	c.reload()
	c.plan()
	d.Show()
	// No default action: Enter connects from the agent's name only.
	u.keyed(d.Hide, nil)
	u.win.Canvas().Focus(cancel)
}

// showDiff puts a unified diff in grid, added lines in the success
// colour, removed ones in the error colour, hunk headers dimmed.
func showDiff(grid *widget.TextGrid, text string) {
	grid.SetText(text)
	added := &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNameSuccess)}
	removed := &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNameError)}
	hunk := &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNamePlaceHolder)}
	for i, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"), strings.HasPrefix(line, "@@"):
			grid.SetRowStyle(i, hunk)
		case strings.HasPrefix(line, "+"):
			grid.SetRowStyle(i, added)
		case strings.HasPrefix(line, "-"):
			grid.SetRowStyle(i, removed)
		}
	}
	grid.Refresh()
}

// shortState is a client's state in the list, in a few words.
func shortState(st connect.Status) string {
	switch {
	case st.Err != nil:
		return "unreadable"
	case st.Connected && st.Agent != "":
		return "connected: " + st.Agent
	case st.Connected:
		return "connected"
	case st.Installed:
		return "installed"
	}
	return "not found"
}

// reload reads every client's file again.
func (c *connectDialog) reload() {
	c.statuses = c.statuses[:0]
	first := -1
	for i, cl := range connect.Clients {
		st := cl.StatusOf(c.env)
		c.statuses = append(c.statuses, st)
		if first < 0 && st.Installed {
			first = i
		}
	}
	c.list.Refresh()
	if c.sel < 0 && first >= 0 {
		c.list.Select(first) // plans it
	}
}

// request is the connection the dialog shows; dry says not to write.
func (c *connectDialog) request(dry bool) connect.Request {
	cl := c.statuses[c.sel].Client
	spec := app.AgentSpec{Name: strings.TrimSpace(c.name.Text)}
	if c.grantsEditable {
		spec.Fields = typed[app.Field](c.fields.selected())
		spec.Read = typed[app.Partition](c.read.selected())
		spec.MayConfirm = c.mayConfirm.Checked
	}
	req := connect.Request{Client: cl, Env: c.env, Agent: spec, Command: c.exe, HookCommand: connect.HookProgram(c.exe), DryRun: dry}
	if cl.Hooks != nil {
		req.NoHooks = !c.hooks.Checked
		if c.hooks.Checked && !c.capture.Checked {
			req.HookArgs = []string{"--no-capture"}
		}
	}
	if h := c.u.getenv("ENGRAM_HOME"); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			h = abs
		}
		req.ExtraEnv = map[string]string{"ENGRAM_HOME": h}
	}
	return req
}

// showHooks sets the hook choices from what the client's hooks file
// holds: a client not yet connected gets hooks with capture (connect's
// default), a connected one keeps what it has.
func (c *connectDialog) showHooks(st connect.Status) {
	h := st.Client.Hooks
	if h == nil {
		c.hooks.SetChecked(false)
		c.capture.SetChecked(false)
		c.hooks.Disable()
		c.capture.Disable()
		return
	}
	c.hooks.Enable()
	state := h.State(c.env, connect.HookProgram(c.exe))
	on := state != connect.HooksAbsent || !st.Connected
	c.hooks.SetChecked(on)
	c.capture.SetChecked(on && state != connect.HooksNoCapture)
	if on {
		c.capture.Enable()
	} else {
		c.capture.Disable()
	}
}

// replan plans again after the user changed a choice.
func (c *connectDialog) replan() {
	if !c.choosing {
		c.plan()
	}
}

func (c *connectDialog) registry() connect.Registry {
	return connect.ForService(c.u.ctx, c.u.h.Service(), c.u.h.Operator())
}

// connectError says in words why connecting or disconnecting failed.
func connectError(st connect.Status, err error) string {
	var re *connect.ResponseError
	switch {
	case errors.As(err, &re):
		return re.Response.Message
	case errors.Is(err, connect.ErrSyntax):
		return fmt.Sprintf("%s: %v. Engram changed nothing; fix the file or move it away, and try again.", st.Path, err)
	}
	return err.Error()
}

// plan shows the selected client's dry run: the agent it would run as
// and the change to its file.
func (c *connectDialog) plan() {
	if c.sel < 0 || c.sel >= len(c.statuses) {
		c.state.Set("Select a client.")
		c.setButtons(false, false)
		return
	}
	st := c.statuses[c.sel]
	c.problem.Set("")
	switch {
	case st.Err != nil:
		c.state.Set(fmt.Sprintf("%s: %s cannot be read", st.Client.Name, st.Path))
	case st.Connected && st.Agent != "":
		c.state.Set(fmt.Sprintf("%s is connected as agent %s", st.Client.Name, st.Agent))
	case st.Connected:
		c.state.Set(fmt.Sprintf("%s has an engram server that Engram did not add", st.Client.Name))
	case st.Installed:
		c.state.Set(st.Client.Name + " is installed and not connected")
	default:
		c.state.Set(st.Client.Name + " was not found on this computer; Engram can still write its configuration")
	}
	c.name.SetPlaceHolder(orDefault(st.Agent, st.Client.ID))
	req := c.request(true)
	reg := c.registry()
	c.gen++
	gen := c.gen
	var res, undo connect.Result
	var tokenErr, undoErr error // no token kept for the agent: Connect gives it one
	c.u.background(func() (err error) {
		if res, err = connect.Connect(reg, c.tk, req); err != nil {
			return err
		}
		_, tokenErr = c.tk.Load(res.Agent.Name)
		if st.Connected && !res.Plan.Changes() && !res.HookPlan.Changes() {
			// Nothing to connect: show what Disconnect would do instead.
			ureq := req
			ureq.Agent = app.AgentSpec{}
			undo, undoErr = connect.Disconnect(reg, c.tk, ureq)
		}
		return nil
	}, func(err error) {
		if gen != c.gen {
			return // the user chose another client or name meanwhile
		}
		if err != nil {
			c.agentNote.Set("")
			c.planNote.Set("")
			c.diff.Set("")
			c.problem.Set(connectError(st, err))
			c.setButtons(false, st.Connected)
			return
		}
		c.showAgent(res)
		switch {
		case res.Plan.Changes():
			c.planNote.Set(fmt.Sprintf("Connect would %s %s:", res.Plan.Action, res.Plan.Path))
			c.diff.Set(strings.TrimRight(res.Plan.Diff()+res.HookPlan.Diff(), "\n"))
		case res.HookPlan.Changes():
			c.planNote.Set(fmt.Sprintf("Connect would %s %s (lifecycle hooks):", res.HookPlan.Action, res.HookPlan.Path))
			c.diff.Set(strings.TrimRight(res.HookPlan.Diff(), "\n"))
		case undoErr == nil && undo.Plan.Changes():
			c.planNote.Set(fmt.Sprintf("Engram is in %s already. Disconnect would %s:", res.Plan.Path, undoText(undo)))
			c.diff.Set(strings.TrimRight(undo.Plan.Diff()+undo.HookPlan.Diff(), "\n"))
		default:
			c.planNote.Set(fmt.Sprintf("%s stays as it is: Engram is in it already.", res.Plan.Path))
			c.diff.Set("")
		}
		c.setButtons(res.Plan.Changes() || res.HookPlan.Changes() || tokenErr != nil, st.Connected)
	})
}

// showAgent fills the grants from the agent the client would run as: a
// new one's are editable, an existing one keeps its own.
func (c *connectDialog) showAgent(res connect.Result) {
	a := res.Agent
	c.grantsEditable = res.New
	if !res.New || c.fresh {
		c.fresh = false
		c.fields.set(strs(a.Fields))
		c.read.set(strs(a.Read))
		c.mayConfirm.SetChecked(a.MayConfirm)
	}
	for _, w := range []fyne.Disableable{c.fields, c.read, c.mayConfirm} {
		if res.New {
			w.Enable()
		} else {
			w.Disable()
		}
	}
	switch {
	case res.New:
		c.agentNote.Set(fmt.Sprintf("Engram would add agent %s with these grants; reading 'sensitive' shows it personal data.", a.Name))
	case a.Status == app.AgentRevoked:
		c.agentNote.Set(fmt.Sprintf("Agent %s is revoked.", a.Name))
	default:
		c.agentNote.Set(fmt.Sprintf("Agent %s exists (%s) and keeps its grants; change them in Agents.", a.Name, app.StatusText(a)))
	}
}

func (c *connectDialog) setButtons(connectOK, disconnectOK bool) {
	if connectOK {
		c.connectB.Enable()
	} else {
		c.connectB.Disable()
	}
	if disconnectOK {
		c.discoB.Enable()
	} else {
		c.discoB.Disable()
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// undoText says what a dry-run Disconnect would do, for "Disconnect
// would ...".
func undoText(res connect.Result) string {
	var what string
	switch res.Plan.Action {
	case connect.Restore:
		what = "restore it as it was before Engram connected"
	case connect.Delete:
		what = "delete it (Engram created it)"
	default:
		what = "take Engram out of it"
	}
	if res.Revoked {
		what += " and revoke agent " + res.Agent.Name
	}
	return what
}

// connect registers the agent, keeps its token and writes the client's
// file, then says to restart the client.
func (c *connectDialog) connect() {
	if c.sel < 0 || c.connectB.Disabled() {
		return
	}
	st, req, reg := c.statuses[c.sel], c.request(false), c.registry()
	c.run(st, func() (connect.Result, error) { return connect.Connect(reg, c.tk, req) }, c.u.connectedDialog)
}

// run does op in the background; on failure it shows the error in the
// dialog, on success it closes the dialog and shows what op did.
func (c *connectDialog) run(st connect.Status, op func() (connect.Result, error), done func(connect.Client, connect.Result)) {
	var res connect.Result
	c.u.background(func() (err error) { res, err = op(); return err }, func(err error) {
		if err != nil {
			c.problem.Set(connectError(st, err))
			c.reload()
			return
		}
		c.d.Hide()
		c.u.agents.refresh()
		done(st.Client, res)
	})
}

// disconnect asks first (the safe answer is to keep the connection), then
// takes Engram out of the client's file and revokes its agent.
func (c *connectDialog) disconnect() {
	if c.sel < 0 {
		return
	}
	st := c.statuses[c.sel]
	req, reg := c.request(false), c.registry()
	req.Agent = app.AgentSpec{} // the agent the file names
	who := "the agent it runs as"
	if st.Agent != "" {
		who = "agent " + st.Agent
	}
	ask := c.u.askSafe("Disconnect "+st.Client.Name,
		wrapped(fmt.Sprintf("Engram takes its server out of %s and revokes %s: its token stops working at once.", st.Path, who)),
		"Keep connected", "Disconnect", theme.DeleteIcon(), func() {
			c.run(st, func() (connect.Result, error) { return connect.Disconnect(reg, c.tk, req) }, c.u.disconnectedDialog)
		})
	ask.Resize(fyne.NewSize(620, 200))
}

// connectedDialog says what Connect did and that the client must restart.
func (u *UI) connectedDialog(cl connect.Client, res connect.Result) {
	name, plan := res.Agent.Name, res.Plan
	var lines []string
	switch {
	case res.New:
		lines = append(lines, fmt.Sprintf("Added agent %s: writes %s; reads %s.", name, joinAny(res.Agent.Fields), joinAny(res.Agent.Read)))
	case res.Rotated:
		lines = append(lines, fmt.Sprintf("Agent %s had no token stored here: it has a new one now, and the old one no longer works.", name))
	default:
		lines = append(lines, fmt.Sprintf("%s runs as agent %s, as before.", cl.Name, name))
	}
	switch plan.Action {
	case connect.Create:
		lines = append(lines, "Created "+plan.Path+".")
	case connect.Update:
		lines = append(lines, fmt.Sprintf("Updated %s%s.", plan.Path, plan.BackupNote()))
	default:
		lines = append(lines, plan.Path+" already had Engram in it.")
	}
	if hp := res.HookPlan; hp.Changes() && hp.Path != plan.Path {
		switch hp.Action {
		case connect.Create:
			lines = append(lines, fmt.Sprintf("Created %s with Engram's lifecycle hooks.", hp.Path))
		case connect.Delete, connect.Restore:
			lines = append(lines, fmt.Sprintf("Took Engram's lifecycle hooks out of %s.", hp.Path))
		default:
			lines = append(lines, fmt.Sprintf("Updated Engram's lifecycle hooks in %s%s.", hp.Path, hp.BackupNote()))
		}
	}
	body := container.NewVBox(heading(fmt.Sprintf("Restart %s to use Engram.", cl.Name)), wrapped(strings.Join(lines, " ")))
	if res.Stored.File != "" {
		note := wrapped(fmt.Sprintf("The OS keyring could not be used (%v), so the agent's token is in %s (readable only by you).", res.Stored.Why, res.Stored.File))
		note.Importance = widget.WarningImportance
		body.Add(note)
	}
	u.doneDialog("Connected "+cl.Name, body)
	u.setStatus(fmt.Sprintf("Connected %s as agent %s; restart it to use Engram.", cl.Name, name))
}

// disconnectedDialog says what Disconnect did.
func (u *UI) disconnectedDialog(cl connect.Client, res connect.Result) {
	var lines []string
	switch res.Plan.Action {
	case connect.Restore:
		lines = append(lines, fmt.Sprintf("Restored %s as it was before Engram connected.", res.Plan.Path))
	case connect.Delete:
		lines = append(lines, fmt.Sprintf("Removed %s, which Engram had created.", res.Plan.Path))
	case connect.Unchanged:
		lines = append(lines, fmt.Sprintf("Engram was not in %s.", res.Plan.Path))
	default:
		lines = append(lines, fmt.Sprintf("Took Engram out of %s, keeping what else changed in it%s.", res.Plan.Path, res.Plan.BackupNote()))
	}
	if hp := res.HookPlan; hp.Changes() && hp.Path != res.Plan.Path {
		lines = append(lines, fmt.Sprintf("Took Engram's lifecycle hooks out of %s.", hp.Path))
	}
	if res.Revoked {
		lines = append(lines, fmt.Sprintf("Agent %s is revoked.", res.Agent.Name))
	}
	lines = append(lines, fmt.Sprintf("Restart %s to let go of Engram.", cl.Name))
	u.doneDialog("Disconnected "+cl.Name, wrapped(strings.Join(lines, " ")))
	u.setStatus("Disconnected " + cl.Name + ".")
}

// doneDialog shows content with one default button, Done.
func (u *UI) doneDialog(title string, content fyne.CanvasObject) {
	u.oneButton(title, content, "Done", fyne.NewSize(640, 220))
}
