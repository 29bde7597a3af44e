package ui

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
)

// agentsScreen lists the agents and pairing requests, and manages them.
type agentsScreen struct {
	u       *UI
	content fyne.CanvasObject
	agents  *rows[app.Agent]
	list    *widget.List
	box     *fyne.Container
	sel     string
	// open holds the pairing dialogs on screen, by agent name; rivals
	// the text each says about other processes' refused requests under
	// its name, and refused those requests as last loaded.
	open    map[string]dialog.Dialog
	rivals  map[string]binding.String
	refused map[string]app.RefusedPairing
	// origins holds, by agent, the process whose pairing request made
	// it, as loaded once (it never changes; the screen is built anew at
	// every unlock).
	origins map[originKey]app.PairingOriginResponse
}

// originKey names one agent record: a name may be paired again after a
// request expired, or added by hand.
type originKey struct {
	name    string
	created time.Time
}

func newAgentsScreen(u *UI) *agentsScreen {
	s := &agentsScreen{u: u, open: map[string]dialog.Dialog{}, rivals: map[string]binding.String{}, refused: map[string]app.RefusedPairing{},
		origins: map[originKey]app.PairingOriginResponse{}}
	s.box = container.NewVBox(widget.NewLabel("Select an agent."))
	s.agents = newRows(
		func() fyne.CanvasObject {
			status := widget.NewLabel("pending")
			return container.NewBorder(nil, nil, status, nil, widget.NewLabel(""))
		},
		func(a app.Agent, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			st := c.Objects[1].(*widget.Label)
			st.SetText(app.StatusText(a))
			st.Importance = statusImportance(a.Status)
			st.Refresh()
			c.Objects[0].(*widget.Label).SetText(fmt.Sprintf("%s · last seen %s", a.Name, when(a.LastSeen)))
		})
	s.list = s.agents.list
	s.list.OnSelected = func(id widget.ListItemID) {
		u.h.Touch()
		if a, ok := s.agents.at(id); ok {
			s.sel = a.Name
			s.show(a)
		}
	}
	// Two rows, so that the list keeps its share of the window.
	top := container.NewVBox(
		container.NewHBox(
			widget.NewButtonWithIcon("Add agent…", theme.ContentAddIcon(), s.add),
			widget.NewButtonWithIcon("Connect a client…", theme.ComputerIcon(), s.connectClient),
		),
		container.NewHBox(
			widget.NewButtonWithIcon("Pause all", theme.MediaPauseIcon(), func() { s.pauseAll(true) }),
			widget.NewButtonWithIcon("Resume all", theme.MediaPlayIcon(), func() { s.pauseAll(false) }),
		),
	)
	split := container.NewHSplit(container.NewBorder(top, nil, nil, nil, s.list), pane(s.box))
	split.Offset = 0.45
	s.content = split
	return s
}

func statusImportance(st app.AgentStatus) widget.Importance {
	switch st {
	case app.AgentPending:
		return widget.WarningImportance
	case app.AgentActive:
		return widget.SuccessImportance
	case app.AgentRevoked:
		return widget.DangerImportance
	}
	return widget.LowImportance
}

// refresh reloads the agents and puts new pairing requests to the user.
func (s *agentsScreen) refresh() {
	if s.u.h == nil {
		return
	}
	h := s.u.h
	var r app.AgentsResponse
	var refused app.RefusedPairingsResponse
	s.u.background(func() error {
		r = h.Service().Agents(s.u.ctx, h.Operator())
		refused = h.Service().RefusedPairings(s.u.ctx, h.Operator())
		return nil
	}, func(error) {
		if !r.OK() {
			return
		}
		s.refused = map[string]app.RefusedPairing{}
		for _, rp := range refused.Refused {
			s.refused[rp.Name] = rp
		}
		for name, b := range s.rivals {
			_ = b.Set(rivalsText(s.refused[name]))
		}
		s.agents.set(r.Agents)
		var held []string
		for _, a := range r.Agents {
			if a.Status == app.AgentPaused && a.Note != "" {
				held = append(held, a.Name)
			}
		}
		s.u.tray.setHeld(held)
		var waiting []app.Agent
		for _, a := range r.Agents {
			if a.Name == s.sel {
				s.show(a)
			}
			if a.Status == app.AgentPending {
				waiting = append(waiting, a)
			}
			// Decided elsewhere (the CLI, another click): close the question.
			if d := s.open[a.Name]; d != nil && a.Status != app.AgentPending {
				s.closed(a.Name) // first: Hide answers "no" to the dialog's callback
				d.Hide()
			}
		}
		// One pairing question at a time, saying how many wait.
		if len(s.open) > 0 {
			return
		}
		for _, a := range waiting {
			if !s.u.shownPairing[a.Name] {
				s.u.shownPairing[a.Name] = true
				s.grantsDialog(a, true, len(waiting))
				return
			}
		}
	})
}

func (s *agentsScreen) show(a app.Agent) {
	grants := widget.NewForm(
		widget.NewFormItem("Status", widget.NewLabel(app.StatusText(a))),
		widget.NewFormItem("Writes", wrapped(joinAny(a.Fields))),
		widget.NewFormItem("Reads", wrapped(joinAny(a.Read))),
		widget.NewFormItem("Shares with", wrapped(sharesText(a))),
		widget.NewFormItem("May confirm", widget.NewLabel(mayConfirmText(a.MayConfirm))),
		widget.NewFormItem("Added", widget.NewLabel(when(a.Created))),
		widget.NewFormItem("Last seen", widget.NewLabel(when(a.LastSeen))),
	)
	key := originKey{a.Name, a.Created}
	origin, loaded := s.origins[key]
	if a.Status != app.AgentPending && origin.Origin != nil {
		label := "Paired from"
		if app.StatusText(a) == "denied" {
			label = "Asked by"
		}
		grants.Append(label, wrapped(originText(origin)))
	}
	if a.Status == app.AgentPending {
		grants.Append("Asked by", wrapped(askedByText(a)))
		if t := rivalsText(s.refused[a.Name]); t != "" {
			also := wrapped(t)
			also.Importance = widget.DangerImportance
			grants.Append("Also asked", also)
		}
	}
	var buttons []fyne.CanvasObject
	switch a.Status {
	case app.AgentPending:
		buttons = append(buttons, widget.NewButtonWithIcon("Review pairing…", theme.ConfirmIcon(), func() { s.pairingDialog(a) }))
	case app.AgentActive:
		buttons = append(buttons, widget.NewButtonWithIcon("Pause", theme.MediaPauseIcon(), func() { s.setStatus(a.Name, app.AgentPaused) }))
	case app.AgentPaused:
		buttons = append(buttons, widget.NewButtonWithIcon("Resume", theme.MediaPlayIcon(), func() { s.setStatus(a.Name, app.AgentActive) }))
	}
	if a.Status == app.AgentActive || a.Status == app.AgentPaused {
		buttons = append(buttons,
			widget.NewButtonWithIcon("Grants…", theme.SettingsIcon(), func() { s.grantsDialog(a, false, 0) }),
			widget.NewButtonWithIcon("Rotate token", theme.ViewRefreshIcon(), func() { s.rotate(a.Name) }),
			widget.NewButtonWithIcon("Revoke", theme.DeleteIcon(), func() { s.revoke(a.Name) }))
	}
	// A row of its own, so that the pane keeps its width.
	var review fyne.CanvasObject = layout.NewSpacer()
	if a.Status != app.AgentPending {
		review = widget.NewButtonWithIcon("Review its memories…", theme.WarningIcon(), func() {
			s.u.reviewSource("Review what "+a.Name+" wrote?", app.ReevaluateInput{Agent: a.Name})
		})
	}
	objs := []fyne.CanvasObject{heading("Agent " + a.Name)}
	if a.Note != "" {
		text := capitalise(strings.TrimSuffix(a.Note, ".")) + "."
		if a.Status == app.AgentPaused {
			text += " Resume it when you have looked at its refused writes in the audit log."
		}
		note := widget.NewLabel(text)
		note.Importance, note.Wrapping = widget.WarningImportance, fyne.TextWrapWord
		objs = append(objs, note)
	}
	// The actions first: they stay in place whatever the details say (a
	// process's path may take several lines).
	s.box.Objects = append(objs, container.NewHBox(buttons...), container.NewHBox(review), grants)
	s.box.Refresh()
	if a.Status != app.AgentPending && !loaded {
		s.loadOrigin(a)
	}
}

// loadOrigin loads which process asked to pair as a (none for an agent
// added by hand) and shows a again if it is still selected.
func (s *agentsScreen) loadOrigin(a app.Agent) {
	h := s.u.h
	var r app.PairingOriginResponse
	s.u.background(func() error {
		r = h.Service().PairingOrigin(s.u.ctx, h.Operator(), a.Name)
		return nil
	}, func(error) {
		if !r.OK() {
			r = app.PairingOriginResponse{} // not asked again until the next unlock
		}
		s.origins[originKey{a.Name, a.Created}] = r
		if s.sel == a.Name && r.Origin != nil {
			s.show(a)
		}
	})
}

// originText says which process asked to pair, as the pairing pop-up
// said it (without the command line, which is not kept): its name, id and
// executable.
func originText(r app.PairingOriginResponse) string {
	p := r.Origin
	who := p.String()
	if p.PID > 0 && p.Exe != "" {
		who = fmt.Sprintf("%s (process %d, %s)", filepath.Base(p.Exe), p.PID, p.Exe)
	}
	return fmt.Sprintf("%s, as the operating system reported the connection's owner when it asked to pair on %s.", who, when(r.Asked))
}

// revoke asks before revoking an agent, saying how many live memories
// rest on it, with a box (off by default) that also holds them for review.
// Off, because revoking is also how a client is removed or replaced: its
// memories are not judged wrong by it, and a hundred review items the
// user did not ask for would bury the ones that matter. The count tells
// the user there is something to decide; "Review its memories…" does it
// later.
func (s *agentsScreen) revoke(name string) {
	h := s.u.h
	var r app.ReevaluateResponse
	s.u.background(func() error {
		r = h.Service().Reevaluate(s.u.ctx, h.Operator(), app.ReevaluateInput{Agent: name, DryRun: true})
		return nil
	}, func(error) {
		body := container.NewVBox(wrapped("Its token stops working at once; it must pair again to come back. Revoking leaves what it wrote as it is."))
		also := newKeyCheck(s.u, "", nil)
		if n := len(r.Selected); r.OK() && n > 0 {
			also.Text = fmt.Sprintf("Also move its %s to the review (Quarantine)", count(n, "live memory", "live memories"))
			body.Add(also)
			body.Add(wrapped(r.Message + "."))
		}
		s.u.askSafe("Revoke "+name+"?", body, "Cancel", "Revoke", theme.DeleteIcon(), func() {
			hold := also.Checked
			var st app.AgentResponse
			s.u.background(func() error {
				st = h.Service().SetAgentStatus(s.u.ctx, h.Operator(), name, app.AgentRevoked)
				return nil
			}, func(error) {
				if !s.u.showResponse(st.Response) {
					return
				}
				s.refresh()
				if hold {
					s.u.holdSource(app.ReevaluateInput{Agent: name})
				}
			})
		})
	})
}

// reviewSource asks whether to hold for review what rests on a source the
// user found unreliable (an agent, an import run): the service's dry run
// first, its count and list in a question whose default is Cancel, then
// the hold.
func (u *UI) reviewSource(title string, in app.ReevaluateInput) {
	h := u.h
	in.DryRun = true
	var r app.ReevaluateResponse
	u.background(func() error { r = h.Service().Reevaluate(u.ctx, h.Operator(), in); return nil }, func(error) {
		if !u.showResponse(r.Response) {
			return
		}
		if len(r.Selected) == 0 {
			u.inform(title, r.Message+".")
			return
		}
		var lines []string
		for i, m := range r.Selected {
			if i == maxInQuestion {
				lines = append(lines, fmt.Sprintf("and %d more", len(r.Selected)-maxInQuestion))
				break
			}
			text := "(sensitive: not shown)"
			if m.Text != "" {
				text = preview(m.Text)
			}
			lines = append(lines, fmt.Sprintf("• %s: %s", m.Why, text))
		}
		body := container.NewVBox(wrapped(r.Message+"."),
			wrapped("Held memories leave every agent's reach and wait in Quarantine: Approve keeps one as it was, Reject deletes it."),
			wrapped(strings.Join(lines, "\n")))
		d := u.askSafe(title, body, "Cancel", fmt.Sprintf("Hold %d for review", len(r.Selected)), theme.WarningIcon(), func() { u.holdSource(in) })
		d.Resize(fyne.NewSize(680, 420))
	})
}

// holdSource holds what rests on a source for review, and says so.
func (u *UI) holdSource(in app.ReevaluateInput) {
	h := u.h
	in.DryRun = false
	var r app.ReevaluateResponse
	u.background(func() error { r = h.Service().Reevaluate(u.ctx, h.Operator(), in); return nil }, func(error) {
		if !u.showResponse(r.Response) {
			return
		}
		u.setStatus(r.Message)
		u.quarantine.refresh()
		u.memories.changed()
	})
}

func mayConfirmText(may bool) string {
	if may {
		return "yes: its \"the user confirmed\" counts as yours"
	}
	return "no: what it says you confirmed waits for you in Quarantine"
}

func joinAny[T ~string](vals []T) string {
	var out []string
	for _, v := range vals {
		out = append(out, string(v))
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}

// pairingDialog asks the user to approve a pairing request with chosen
// grants, or deny it.
func (s *agentsScreen) pairingDialog(a app.Agent) {
	s.grantsDialog(a, true, 1)
}

// grantsDialog edits what an agent may write and read; for a pairing
// request it also approves (or denies) the agent.
//
// A pairing question says that the name is the program's own claim, how
// many requests wait, and has three answers: Approve, Deny, and the
// default (Enter, Escape) Decide later, which leaves the request pending
// in the list.
func (s *agentsScreen) grantsDialog(a app.Agent, pairing bool, waiting int) {
	fieldChecks := newChecks(s.u, choices(app.Fields)[1:])
	fields := a.Fields
	if len(fields) == 0 {
		fields = app.DefaultAgentFields
	}
	fieldChecks.set(strs(fields))
	readChecks := newChecks(s.u, []string{"public", "internal", "sensitive"})
	read := a.Read
	if len(read) == 0 {
		read = []app.Partition{"public", "internal"}
	}
	readChecks.set(strs(read))
	mayConfirm := newKeyCheck(s.u, "Its \"the user confirmed\" counts as my confirmation", nil)
	mayConfirm.SetChecked(a.MayConfirm)
	items := []*widget.FormItem{
		widget.NewFormItem("May write", fieldChecks.box),
		widget.NewFormItem("May read", readChecks.box),
		widget.NewFormItem("", wrapped("Reading 'sensitive' shows this agent personal data; every such read is audited.")),
		widget.NewFormItem("May confirm", mayConfirm),
		widget.NewFormItem("", wrapped("Off: when this agent says you confirmed a lasting memory or a possible secret, it waits for you in Quarantine.")),
	}
	if !pairing {
		s.u.formDialog("Grants for "+a.Name, "Save", items, fyne.NewSize(620, 380), nil, func() {
			fs, rs := typed[app.Field](fieldChecks.selected()), typed[app.Partition](readChecks.selected())
			s.decide(a.Name, false, true, fs, rs, mayConfirm.Checked)
		})
		return
	}
	title := fmt.Sprintf("%q asks to pair with Engram", a.Name)
	if waiting > 1 {
		title += fmt.Sprintf(" (1 of %d requests waiting)", waiting)
	}
	who := wrapped(fmt.Sprintf("A program on this computer asked at %s to pair under the name %q. The name is what the program says about itself: Engram cannot check it. Approve only if you have just set up this agent.", when(a.Created), a.Name))
	who.Importance = widget.WarningImportance
	// Other processes that asked under this name since: updated while
	// the question is open.
	rivals := binding.NewString()
	_ = rivals.Set(rivalsText(s.refused[a.Name]))
	also := widget.NewLabelWithData(rivals)
	also.Wrapping, also.Importance = fyne.TextWrapWord, widget.DangerImportance
	rivals.AddListener(binding.NewDataListener(func() {
		if t, _ := rivals.Get(); t == "" {
			also.Hide()
		} else {
			also.Show()
		}
	}))
	d := dialog.NewCustomWithoutButtons(title, container.NewVBox(who, wrapped(askedByText(a)), also, widget.NewForm(items...)), s.u.win)
	answer := func(approve bool) func() {
		return func() {
			if _, asking := s.open[a.Name]; !asking {
				return // closed because the pairing was decided elsewhere
			}
			s.closed(a.Name)
			d.Hide()
			fs, rs := typed[app.Field](fieldChecks.selected()), typed[app.Partition](readChecks.selected())
			s.decide(a.Name, true, approve, fs, rs, mayConfirm.Checked)
		}
	}
	later := newDefaultButton("Decide later", theme.HistoryIcon(), func() {
		s.closed(a.Name)
		d.Hide()
		s.u.setStatus(fmt.Sprintf("The pairing request of %s waits in Agents.", a.Name))
	})
	later.Importance = widget.MediumImportance
	deny := newKeyButton(s.u, "Deny", theme.CancelIcon(), answer(false))
	approve := newKeyButton(s.u, "Approve", theme.ConfirmIcon(), answer(true))
	approve.Importance = widget.HighImportance
	d.SetButtons([]fyne.CanvasObject{later, deny, approve})
	d.Resize(fyne.NewSize(660, 460))
	s.open[a.Name], s.rivals[a.Name] = d, rivals
	d.Show()
	s.u.keyed(later.OnTapped, later.OnTapped)
	s.u.win.Canvas().Focus(later)
}

// closed forgets the pairing question about name.
func (s *agentsScreen) closed(name string) {
	delete(s.open, name)
	delete(s.rivals, name)
}

// rivalsText says which other processes asked to pair under a pending
// name and were refused (only the request that asked first can receive
// the token), or is empty when none did.
func rivalsText(r app.RefusedPairing) string {
	if r.Count == 0 {
		return ""
	}
	who := make([]string, len(r.By))
	for i, b := range r.By {
		who[i] = cmp.Or(b, "the operating system did not say which")
	}
	requests := "its request was"
	if r.Count > 1 {
		requests = fmt.Sprintf("%d requests were", r.Count)
	}
	subject := "Another process"
	if len(r.By) > 1 {
		subject = "Other processes"
	}
	return fmt.Sprintf("%s (%s) also asked to pair under this name; %s refused, last at %s. Only the request that asked first, from the process named above, can receive the token: approve only if that process is the program you set up.",
		subject, strings.Join(who, "; "), requests, r.Last.Local().Format("15:04:05"))
}

// askedByText says which process sent a pairing request, as the
// operating system reports the connection's owner (unlike the name, not
// the program's own claim), or that it did not say.
// sharesText says which other agents' memories an agent's group and
// product let it read, beside its own and the public ones.
func sharesText(a app.Agent) string {
	switch {
	case a.Group == "" && a.Product == "":
		return "no group or product: it reads its own memories and the public ones"
	case a.Product == "":
		return "group " + a.Group
	case a.Group == "":
		return "product " + a.Product
	}
	return "group " + a.Group + ", product " + a.Product
}

func askedByText(a app.Agent) string {
	if p := app.AskedBy(a); p != "" {
		return "Sent by " + p + ", as the operating system reports the connection's owner."
	}
	return "The operating system did not say which process sent it."
}

func strs[T ~string](vals []T) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = string(v)
	}
	return out
}

func typed[T ~string](vals []string) []T {
	out := make([]T, 0, len(vals))
	for _, v := range vals {
		out = append(out, T(v))
	}
	return out
}

// decide approves or denies a pairing (pairing set) or saves grants.
func (s *agentsScreen) decide(name string, pairing, approve bool, fields []app.Field, read []app.Partition, mayConfirm bool) {
	h := s.u.h
	var r app.AgentResponse
	s.u.background(func() error {
		svc, req := h.Service(), h.Operator()
		if pairing {
			if r = svc.DecidePairing(s.u.ctx, req, name, approve); !r.OK() || !approve {
				return nil
			}
		}
		if r = svc.SetAgentGrants(s.u.ctx, req, name, fields, read); !r.OK() {
			return nil
		}
		r = svc.SetAgentMayConfirm(s.u.ctx, req, name, mayConfirm)
		return nil
	}, func(error) {
		if s.u.showResponse(r.Response) {
			switch {
			case pairing && approve:
				s.u.setStatus(fmt.Sprintf("%s is paired: it receives its token on its next poll.", name))
			case pairing:
				s.u.setStatus(fmt.Sprintf("The pairing request of %s was denied.", name))
			}
			s.refresh()
		}
	})
}

func (s *agentsScreen) setStatus(name string, st app.AgentStatus) {
	h := s.u.h
	var r app.AgentResponse
	s.u.background(func() error { r = h.Service().SetAgentStatus(s.u.ctx, h.Operator(), name, st); return nil }, func(error) {
		if s.u.showResponse(r.Response) {
			s.refresh()
		}
	})
}

func (s *agentsScreen) pauseAll(pause bool) {
	h := s.u.h
	var n int
	s.u.async(func() (err error) { n, err = h.PauseAgents(s.u.ctx, pause); return err }, func() {
		verb := "resumed"
		if pause {
			verb = "paused"
		}
		s.u.setStatus(fmt.Sprintf("%d agents %s", n, verb))
		s.u.tray.setPaused(pause)
		s.refresh()
	})
}

func (s *agentsScreen) rotate(name string) {
	h := s.u.h
	var r app.AgentResponse
	s.u.background(func() error { r = h.Service().RotateToken(s.u.ctx, h.Operator(), name); return nil }, func(error) {
		if s.u.showResponse(r.Response) {
			s.showToken(name, r.Token)
		}
	})
}

// showToken shows a new token once, in full in a read-only field, with a
// Copy button (or Ctrl+C in the field) that says it copied; the clipboard
// is cleared clipClear later if it still holds the token (and at a lock).
func (s *agentsScreen) showToken(name, token string) {
	copied := widget.NewLabel("")
	copied.Importance = widget.SuccessImportance
	copyButton := newKeyButton(s.u, "Copy", theme.ContentCopyIcon(), nil)
	sayCopied := func() {
		copyButton.SetText("Copied")
		copyButton.SetIcon(theme.ConfirmIcon())
		copied.SetText(fmt.Sprintf("Copied. Engram clears the clipboard in %d seconds if it still holds the token.", int(clipClear/time.Second)))
	}
	copyButton.OnTapped = func() {
		s.u.copySecret(token)
		sayCopied()
	}
	tok := newSecretField(s.u, token, sayCopied)
	d := dialog.NewCustomWithoutButtons("Token for "+name, container.NewVBox(
		wrapped("Give this token to the agent (ENGRAM_TOKEN, or the Authorization header). Engram shows it only now; it keeps only its hash."),
		container.NewBorder(nil, nil, nil, copyButton, tok),
		copied), s.u.win)
	done := newDefaultButton("Done", theme.ConfirmIcon(), d.Hide)
	d.SetButtons([]fyne.CanvasObject{done})
	d.Resize(fyne.NewSize(760, 240))
	d.Show()
	s.u.keyed(d.Hide, d.Hide)
	s.u.win.Canvas().Focus(done)
}

// add asks for a new agent's name; an empty name is said in the form,
// which stays open. The new agent is shown once added.
func (s *agentsScreen) add() {
	name := newShortcutEntry(s.u)
	name.SetPlaceHolder("claude-code")
	check := func() string {
		if strings.TrimSpace(name.Text) == "" {
			return "Give the agent a name, such as the program's (claude-code, cursor)."
		}
		return ""
	}
	s.u.checkedFormDialog("Add an agent", "Add", []*widget.FormItem{widget.NewFormItem("Name", name)}, fyne.NewSize(420, 160), name, check, func() {
		h := s.u.h
		var r app.AgentResponse
		n := strings.TrimSpace(name.Text)
		s.u.background(func() error { r = h.Service().AddAgent(s.u.ctx, h.Operator(), app.AgentSpec{Name: n}); return nil }, func(error) {
			if s.u.showResponse(r.Response) {
				s.sel = n
				s.showToken(n, r.Token)
				s.refresh()
			}
		})
	})
}
