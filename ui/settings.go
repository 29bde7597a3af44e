package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/host"
)

// settingsScreen edits host.Settings.
type settingsScreen struct {
	u       *UI
	content fyne.CanvasObject

	autoLock, episodic, agentTTL, unused, minConf, sweepHours *widget.Entry
	pii, conflicts                                            *widget.RadioGroup
	failOnSecret, screenLock                                  *widget.Check
	embedderBox                                               *widget.SelectEntry
	embedder, embedderModel, addr, backupDir                  *widget.Entry
	result                                                    *widget.Label
	// apply and revert act on the form; unsaved says it differs from the
	// settings in force (saved is the form as they were loaded).
	apply, revert *widget.Button
	unsaved       *widget.Label
	saved         string
	// model says which embedding model recall uses, or why none.
	model binding.String
	// sync shows the sync across devices and acts on it at once.
	sync *syncSection
}

func newSettingsScreen(u *UI) *settingsScreen {
	s := &settingsScreen{u: u}
	num := func() *widget.Entry { e := widget.NewEntry(); return e }
	s.autoLock, s.episodic, s.agentTTL, s.unused, s.minConf, s.sweepHours = num(), num(), num(), num(), num(), num()
	s.pii = widget.NewRadioGroup([]string{"encrypt", "redact"}, nil)
	s.pii.Horizontal = true
	s.conflicts = widget.NewRadioGroup([]string{"trust", "recency", "confidence", "ask"}, nil)
	s.conflicts.Horizontal = true
	s.failOnSecret = widget.NewCheck("Reject writes that contain secrets (instead of redacting them)", nil)
	s.screenLock = widget.NewCheck("Also lock when the screen locks", nil)
	// The embedder: the two built-in choices, or a local
	// OpenAI-compatible server's URL typed in.
	embedder := widget.NewSelectEntry([]string{"builtin", "off"})
	s.embedder = &embedder.Entry
	s.embedderBox = embedder
	s.embedderModel, s.addr, s.backupDir = widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	s.embedder.SetPlaceHolder("builtin, off, or http://127.0.0.1:11434/v1")
	s.result = wrapped("")
	s.model = binding.NewString()
	model := widget.NewLabelWithData(s.model)
	model.Wrapping = fyne.TextWrapWord
	// The groups share one label column, as one form would.
	col := &labelColumn{}
	s.sync = newSyncSection(u, col)
	group := func(title string, items ...*widget.FormItem) fyne.CanvasObject {
		box := container.NewVBox(heading(title))
		for _, it := range items {
			box.Add(col.row(it.Text, it.Widget))
		}
		return box
	}
	form := container.NewVBox(
		group("Security",
			widget.NewFormItem("Auto-lock after (minutes, 'never')", s.autoLock),
			widget.NewFormItem("", s.screenLock),
			widget.NewFormItem("Personal data in agent writes", s.pii),
			widget.NewFormItem("Secrets", s.failOnSecret),
			widget.NewFormItem("Passphrase", container.NewHBox(widget.NewButtonWithIcon("Change passphrase…", theme.AccountIcon(), u.changePassphrase))),
		),
		group("Agents",
			widget.NewFormItem("Contradicting writes: who wins", s.conflicts),
			widget.NewFormItem("Agent API address", s.addr),
		),
		group("Memory lifecycle",
			widget.NewFormItem("Episodic memories live (days)", s.episodic),
			widget.NewFormItem("Agent field memories live (days)", s.agentTTL),
			widget.NewFormItem("Archive when unused for (days)", s.unused),
			widget.NewFormItem("Archive below confidence", s.minConf),
			widget.NewFormItem("Sweep every (hours)", s.sweepHours),
		),
		group("Recall",
			widget.NewFormItem("In use", model),
			widget.NewFormItem("Embedder", s.embedderBox),
			widget.NewFormItem("Embedder model (server only)", s.embedderModel),
		),
		group("Backups",
			widget.NewFormItem("Backup folder", s.backupDir),
		),
	)
	s.apply = widget.NewButtonWithIcon("Apply", theme.DocumentSaveIcon(), s.save)
	s.apply.Importance = widget.HighImportance
	s.revert = widget.NewButtonWithIcon("Revert", theme.ContentUndoIcon(), func() {
		s.load()
		s.result.SetText("")
	})
	s.unsaved = widget.NewLabelWithStyle("Unsaved changes", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.unsaved.Importance = widget.WarningImportance
	buttons := container.NewHBox(
		widget.NewButtonWithIcon("Set backup passphrase…", theme.AccountIcon(), func() { u.askBackupPassphrase(nil) }),
		widget.NewButtonWithIcon("Sweep now", theme.ViewRefreshIcon(), func() {
			var rep host.SweepReport
			u.async(func() error { rep = u.h.Sweep(u.ctx); return nil }, func() {
				s.result.SetText(fmt.Sprintf("Sweep: %d archived, %d purged %s", rep.Archived, rep.Purged, rep.Err))
			})
		}),
	)
	note := wrapped("The guard policy, the embedder and the agent API address take effect when Engram next starts; the rest at once. Settings are stored inside the vault file.")
	// Apply and Revert stay in view below the form, whatever is scrolled,
	// and say whether the form holds changes not yet applied.
	bar := container.NewBorder(nil, nil, container.NewHBox(s.apply, s.revert, s.unsaved), nil, s.result)
	s.content = container.NewBorder(nil, container.NewVBox(widget.NewSeparator(), bar), nil, nil,
		container.NewVScroll(container.NewVBox(form, buttons, s.sync.content, note)))
	for _, e := range []*widget.Entry{s.autoLock, s.episodic, s.agentTTL, s.unused, s.minConf, s.sweepHours, s.embedder, s.embedderModel, s.addr, s.backupDir} {
		e.OnChanged = func(string) { s.changed() }
	}
	s.pii.OnChanged = func(string) { s.changed() }
	s.conflicts.OnChanged = func(string) { s.changed() }
	s.failOnSecret.OnChanged = func(bool) { s.changed() }
	s.screenLock.OnChanged = func(bool) { s.changed() }
	s.load()
	return s
}

// form is the form's state, to tell whether it changed.
func (s *settingsScreen) form() string {
	var b strings.Builder
	for _, e := range []*widget.Entry{s.autoLock, s.episodic, s.agentTTL, s.unused, s.minConf, s.sweepHours, s.embedder, s.embedderModel, s.addr, s.backupDir} {
		b.WriteString(e.Text)
		b.WriteByte(0)
	}
	fmt.Fprintf(&b, "%s\x00%s\x00%v\x00%v", s.pii.Selected, s.conflicts.Selected, s.failOnSecret.Checked, s.screenLock.Checked)
	return b.String()
}

// changed shows whether the form holds unapplied changes: the marker,
// Apply and Revert, and the tab's title.
func (s *settingsScreen) changed() {
	if s.apply == nil {
		return // still being built
	}
	dirty := s.form() != s.saved
	s.unsaved.Hidden = !dirty
	s.unsaved.Refresh()
	if dirty {
		s.apply.Enable()
		s.revert.Enable()
	} else {
		s.apply.Disable()
		s.revert.Disable()
	}
	if s.u.tabs != nil && s.u.settings == s {
		for _, it := range s.u.tabs.Items {
			if strings.HasPrefix(it.Text, "Settings") {
				it.Text = "Settings"
				if dirty {
					it.Text = "Settings (unsaved)"
				}
			}
		}
		s.u.tabs.Refresh()
	}
}

// labelColumn lines up the labels of several groups of fields: each
// row's label, bold and right-aligned as widget.Form's, takes the width
// of the widest label of all the groups.
type labelColumn struct{ labels []*widget.Label }

// row is label beside field.
func (c *labelColumn) row(label string, field fyne.CanvasObject) *fyne.Container {
	l := widget.NewLabelWithStyle(label, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
	c.labels = append(c.labels, l)
	return container.New(labelRow{c}, l, field)
}

func (c *labelColumn) width() float32 {
	w := float32(0)
	for _, l := range c.labels {
		w = max(w, l.MinSize().Width)
	}
	return w
}

// labelRow lays out one row of a labelColumn: the label, then the field
// in the rest of the width.
type labelRow struct{ c *labelColumn }

func (r labelRow) MinSize(objs []fyne.CanvasObject) fyne.Size {
	l, f := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(r.c.width()+theme.Padding()+f.Width, max(l.Height, f.Height))
}

func (r labelRow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	w, pad := r.c.width(), theme.Padding()
	fh := max(objs[1].MinSize().Height, size.Height)
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(w, min(objs[0].MinSize().Height, fh)))
	objs[1].Move(fyne.NewPos(w+pad, 0))
	objs[1].Resize(fyne.NewSize(max(size.Width-w-pad, 0), fh))
}

// days shows a duration in whole days.
func days(d time.Duration) string { return strconv.Itoa(int(d / (24 * time.Hour))) }

// load fills the form from the host's settings.
func (s *settingsScreen) load() {
	st := s.u.h.Settings()
	if st.AutoLockMinutes < 0 {
		s.autoLock.SetText("never")
	} else {
		s.autoLock.SetText(strconv.Itoa(st.AutoLockMinutes))
	}
	s.pii.SetSelected(string(st.PII))
	s.failOnSecret.SetChecked(st.FailOnSecret)
	s.conflicts.SetSelected(string(st.Conflicts))
	s.screenLock.SetChecked(!st.StayUnlockedOnScreenLock)
	// The values in force, defaults included.
	p := st.DecayPolicy()
	s.episodic.SetText(days(p.EpisodicTTL))
	s.agentTTL.SetText(days(p.AgentFieldTTL))
	s.unused.SetText(days(p.UnusedAfter))
	s.minConf.SetText(strconv.FormatFloat(p.MinConfidence, 'g', -1, 64))
	s.sweepHours.SetText(strconv.Itoa(st.SweepHours))
	s.embedder.SetText(st.Embedder)
	s.embedderModel.SetText(st.EmbedderModel)
	s.addr.SetText(st.Addr)
	s.backupDir.SetText(st.BackupDir)
	s.model.Set(recallText(s.u.h.Service().RecallStatus()))
	s.saved = s.form()
	s.changed()
}

// recallText says in plain words how recall finds memories: by meaning,
// with which model from where, or by keywords alone and why.
func recallText(st app.RecallStatus) string {
	if !st.Semantic {
		return "Keyword recall only: " + st.KeywordOnly
	}
	parts := []string{st.Model}
	switch loc := st.Location; {
	case loc == "embedded":
		parts = append(parts, "built in")
	case strings.Contains(loc, "://"):
		parts = append(parts, "served by "+loc)
	case loc != "":
		parts = append(parts, "from "+loc)
	}
	if st.Verified {
		parts = append(parts, "verified")
	}
	return "Recall by meaning: " + strings.Join(parts, ", ")
}

// read parses the form; a malformed number names its field.
func (s *settingsScreen) read() (host.Settings, error) {
	st := s.u.h.Settings()
	atoi := func(name string, e *widget.Entry) (int, error) {
		t := strings.TrimSpace(e.Text)
		if t == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(t)
		if err != nil {
			return 0, fmt.Errorf("%s: %q is not a whole number", name, t)
		}
		return n, nil
	}
	var err error
	if strings.EqualFold(strings.TrimSpace(s.autoLock.Text), "never") {
		st.AutoLockMinutes = -1
	} else if st.AutoLockMinutes, err = atoi("auto-lock", s.autoLock); err != nil {
		return st, err
	} else if st.AutoLockMinutes <= 0 {
		return st, errors.New("auto-lock: give at least 1 minute, or 'never'")
	}
	if st.EpisodicTTLDays, err = atoi("episodic lifetime", s.episodic); err != nil {
		return st, err
	}
	if st.AgentFieldTTLDays, err = atoi("agent field lifetime", s.agentTTL); err != nil {
		return st, err
	}
	if st.UnusedAfterDays, err = atoi("unused period", s.unused); err != nil {
		return st, err
	}
	if st.SweepHours, err = atoi("sweep interval", s.sweepHours); err != nil {
		return st, err
	}
	st.MinConfidence = 0
	if t := strings.TrimSpace(s.minConf.Text); t != "" {
		if st.MinConfidence, err = strconv.ParseFloat(t, 64); err != nil {
			return st, fmt.Errorf("confidence: %q is not a number", t)
		}
	}
	// A value equal to the default is stored as the default, so that
	// it follows the default if that changes.
	def := host.Settings{}.DecayPolicy()
	if st.EpisodicTTLDays == int(def.EpisodicTTL/(24*time.Hour)) {
		st.EpisodicTTLDays = 0
	}
	if st.AgentFieldTTLDays == int(def.AgentFieldTTL/(24*time.Hour)) {
		st.AgentFieldTTLDays = 0
	}
	if st.UnusedAfterDays == int(def.UnusedAfter/(24*time.Hour)) {
		st.UnusedAfterDays = 0
	}
	if st.MinConfidence == def.MinConfidence {
		st.MinConfidence = 0
	}
	st.PII = host.PIIMode(s.pii.Selected)
	st.FailOnSecret = s.failOnSecret.Checked
	st.Conflicts = app.ConflictStrategy(s.conflicts.Selected)
	st.StayUnlockedOnScreenLock = !s.screenLock.Checked
	st.Embedder = strings.TrimSpace(s.embedder.Text)
	st.EmbedderModel = strings.TrimSpace(s.embedderModel.Text)
	st.Addr = strings.TrimSpace(s.addr.Text)
	st.BackupDir = strings.TrimSpace(s.backupDir.Text)
	return st, nil
}

func (s *settingsScreen) save() {
	s.u.h.Touch()
	st, err := s.read()
	if err == nil {
		err = s.u.h.SaveSettings(st)
	}
	if err != nil {
		s.result.SetText("Not applied: " + err.Error())
		s.result.Importance = widget.DangerImportance
		s.result.Refresh()
		return
	}
	s.result.SetText("Applied.")
	s.result.Importance = widget.SuccessImportance
	s.result.Refresh()
	s.load()
}

// askBackupPassphrase asks for the backup passphrase twice, rated as
// the vault's is (below minScore it needs "use it anyway": the backup
// holds the sensitive memories too), keeps it in the keyring when asked,
// and then runs next with it. OK and Enter do nothing until the two
// agree and the passphrase is acceptable; Escape or Cancel keep nothing.
func (u *UI) askBackupPassphrase(next func(pass []byte)) {
	p1, p2 := newShortcutEntry(u), newShortcutEntry(u)
	p1.Password, p2.Password = true, true
	p1.SetPlaceHolder("Backup passphrase (four or more random words)")
	p2.SetPlaceHolder("The same passphrase again")
	remember := newKeyCheck(u, "Remember in the OS keyring (the tray can then export without asking)", nil)
	remember.SetChecked(true)
	problem := wrapped("")
	problem.Importance = widget.DangerImportance
	problem.Hide()
	var ok *keyButton
	var meter *strengthMeter
	check := func() {
		meter.set(p1.Text)
		differ := p2.Text != "" && p2.Text != p1.Text
		problem.Hidden = !differ
		problem.SetText("The two passphrases differ.")
		if p1.Text == "" || p1.Text != p2.Text || !meter.acceptable() {
			ok.Disable()
		} else {
			ok.Enable()
		}
	}
	meter = newStrengthMeter(u, check)
	content := container.NewVBox(
		wrapped("Backups are encrypted with this passphrase (age, scrypt); keep it apart from the vault's. A backup holds every memory, the sensitive ones too."),
		p1, meter, p2, problem, remember,
	)
	d := dialog.NewCustomWithoutButtons("Backup passphrase", content, u.win)
	cancel := newKeyButton(u, "Cancel", theme.CancelIcon(), d.Hide)
	ok = newKeyButton(u, "OK", theme.ConfirmIcon(), func() {
		if ok.Disabled() {
			return
		}
		d.Hide()
		pass := []byte(p1.Text)
		if remember.Checked {
			if err := u.h.RememberBackupPassphrase(pass); err != nil {
				u.setStatus(fmt.Sprintf("The backup passphrase could not be kept in the OS keyring: %v", err))
			}
		}
		if next != nil {
			next(pass)
		}
	})
	ok.Importance = widget.HighImportance
	p1.OnChanged = func(string) { check() }
	p2.OnChanged = func(string) { check() }
	p1.OnSubmitted = func(string) { u.win.Canvas().Focus(p2) }
	p2.OnSubmitted = func(string) { ok.OnTapped() }
	check()
	d.SetButtons([]fyne.CanvasObject{cancel, ok})
	d.Resize(fyne.NewSize(560, 0))
	d.Show()
	u.keyed(d.Hide, ok.OnTapped)
	u.win.Canvas().Focus(p1)
}
