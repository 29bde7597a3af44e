package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
)

// auditLimit is how many of the newest matching entries the screen shows.
const auditLimit = 2000

// auditScreen shows the audit log with filters, the chain's verification
// and export as JSONL.
type auditScreen struct {
	u       *UI
	content fyne.CanvasObject
	entries *rows[app.AuditEntry]
	agent   *widget.Entry
	field   *widget.Select
	action  *widget.Entry
	since   *widget.Select
	chain   *widget.Label
	shown   []app.AuditEntry
	ready   bool
	// review holds for review what the import run of the selected entry
	// wrote; it is enabled only on an import's entry.
	review *widget.Button
	sel    app.AuditEntry
	// l3box shows the proposed removal of old L3 access records, l3
	// (see l3.go), while there is one.
	l3box *fyne.Container
	l3    l3Proposal
}

func newAuditScreen(u *UI) *auditScreen {
	s := &auditScreen{u: u, l3box: container.NewVBox()}
	s.agent = widget.NewEntry()
	s.agent.SetPlaceHolder("agent")
	s.agent.OnSubmitted = func(string) { s.refresh() }
	s.action = widget.NewEntry()
	s.action.SetPlaceHolder("action, e.g. quarantine")
	s.action.OnSubmitted = func(string) { s.refresh() }
	s.field = widget.NewSelect(choices(app.Fields), func(string) { s.refresh() })
	s.field.SetSelected(anyChoice)
	s.since = widget.NewSelect([]string{anyChoice, "last hour", "today", "7 days", "30 days"}, func(string) { s.refresh() })
	s.since.SetSelected(anyChoice)
	s.chain = widget.NewLabel("")
	cell := func() *widget.Label {
		l := widget.NewLabel("")
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}
	s.entries = newRows(
		func() fyne.CanvasObject {
			mem := widget.NewButton("", nil)
			mem.Importance = widget.LowImportance
			return container.New(auditColumns, cell(), cell(), cell(), cell(), cell(), mem, cell())
		},
		func(e app.AuditEntry, o fyne.CanvasObject) {
			c := o.(*fyne.Container).Objects
			for i, text := range auditCells(e) {
				if b, ok := c[i].(*widget.Button); ok {
					b.SetText(text)
					id := e.MemoryID
					b.OnTapped = func() { s.openMemory(id) }
					if id == "" {
						b.Disable()
					} else {
						b.Enable()
					}
					continue
				}
				c[i].(*widget.Label).SetText(text)
			}
		})
	list := s.entries.list
	s.review = widget.NewButtonWithIcon("Review what this import wrote…", theme.WarningIcon(), func() {
		e := s.sel
		s.u.reviewSource(fmt.Sprintf("Review what the import %s wrote?", e.Session), app.ReevaluateInput{Agent: e.Agent, Session: e.Session})
	})
	s.review.Disable()
	list.OnSelected = func(id widget.ListItemID) {
		e, _ := s.entries.at(id)
		s.sel = e
		if app.IsImportSession(e.Session) {
			s.review.Enable()
			return
		}
		s.review.Disable()
	}
	header := container.New(auditColumns)
	for _, h := range auditHeaders {
		header.Add(widget.NewLabelWithStyle(h, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	}
	buttons := container.NewHBox(
		widget.NewButtonWithIcon("Filter", theme.SearchIcon(), s.refresh),
		widget.NewButtonWithIcon("Verify chain", theme.ConfirmIcon(), s.verify),
		widget.NewButtonWithIcon("Export JSONL…", theme.DocumentSaveIcon(), s.exportDialog),
		s.review,
	)
	filters := container.NewGridWithColumns(4, labelled("Agent", s.agent), labelled("Field", s.field), labelled("Action", s.action), labelled("Since", s.since))
	s.content = container.NewBorder(container.NewVBox(s.l3box, filters, buttons, s.chain, header), nil, nil, nil, list)
	s.ready = true
	return s
}

// The audit table's columns: fixed widths, the last takes the rest.
var (
	auditHeaders = []string{"#", "Time", "Agent", "Action", "Result", "Memory", "Details"}
	auditColumns = columnsLayout{56, 150, 120, 170, 100, 100}
)

// auditCells is one entry's cells, in auditHeaders' order. The memory is
// its id's first eight characters.
func auditCells(e app.AuditEntry) []string {
	mem := ""
	if e.MemoryID != "" {
		mem = short8(e.MemoryID)
	}
	var details []string
	if e.Field != "" {
		details = append(details, string(e.Field))
	}
	if e.Count > 0 {
		details = append(details, count(e.Count, "item", "items"))
	}
	if e.Reason != "" {
		// Ids in the reason (a queue item, a memory) by their first
		// eight characters, as the Memory column shows them.
		details = append(details, uuidRe.ReplaceAllStringFunc(e.Reason, short8))
	}
	if app.IsImportSession(e.Session) {
		details = append(details, "import run "+e.Session)
	}
	return []string{fmt.Sprint(e.Seq), e.Time.Local().Format("2006-01-02 15:04:05"), who(e.Agent), actionText(string(e.Action)), string(e.Result), mem, strings.Join(details, " · ")}
}

func short8(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// openMemory shows a memory named in the log on the Memories tab.
func (s *auditScreen) openMemory(id string) {
	if !s.u.isOpen() || id == "" {
		return
	}
	s.u.tabs.SelectIndex(0)
	s.u.memories.detail.show(id)
}

// columnsLayout lays out cells in a row: fixed widths, the last cell
// takes what is left.
type columnsLayout []float32

func (l columnsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	x := float32(0)
	for i, o := range objs {
		w := size.Width - x
		if i < len(l) {
			w = l[i]
		}
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(max(w, 0), size.Height))
		x += w
	}
}

func (l columnsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	w := float32(0)
	for _, c := range l {
		w += c
	}
	return fyne.NewSize(w+80, h)
}

func (s *auditScreen) input() app.AuditInput {
	in := app.AuditInput{Agent: strings.TrimSpace(s.agent.Text)}
	if s.field.Selected != anyChoice {
		in.Field = app.Field(s.field.Selected)
	}
	now := s.u.now()
	switch s.since.Selected {
	case "last hour":
		in.Since = now.Add(-time.Hour)
	case "today":
		in.Since = now.Add(-24 * time.Hour)
	case "7 days":
		in.Since = now.Add(-7 * 24 * time.Hour)
	case "30 days":
		in.Since = now.Add(-30 * 24 * time.Hour)
	}
	return in
}

// load returns the matching entries, newest first.
func (s *auditScreen) load(limit int) ([]app.AuditEntry, app.Response) {
	h := s.u.h
	in := s.input()
	action := strings.ToLower(strings.TrimSpace(s.action.Text))
	if action == "" {
		in.Last = limit
	}
	r := h.Service().Audit(s.u.ctx, h.Operator(), in)
	if !r.OK() {
		return nil, r.Response
	}
	var out []app.AuditEntry
	for i := len(r.Entries) - 1; i >= 0 && (limit <= 0 || len(out) < limit); i-- {
		if e := r.Entries[i]; action == "" || strings.Contains(string(e.Action), action) || strings.Contains(actionText(string(e.Action)), action) {
			out = append(out, e)
		}
	}
	return out, r.Response
}

func (s *auditScreen) refresh() {
	if !s.ready || s.u.h == nil {
		return
	}
	var es []app.AuditEntry
	var r app.Response
	s.u.background(func() error { es, r = s.load(auditLimit); return nil }, func(error) {
		if s.u.showResponse(r) {
			s.shown = es
			s.entries.set(es)
			// The selection follows its entry, which new entries move down.
			if i := slices.IndexFunc(es, func(e app.AuditEntry) bool { return s.sel.Seq != 0 && e.Seq == s.sel.Seq }); i >= 0 {
				s.entries.list.Select(i)
				return
			}
			s.entries.list.UnselectAll()
			s.sel = app.AuditEntry{}
			s.review.Disable()
		}
	})
}

func (s *auditScreen) verify() {
	h := s.u.h
	var rep app.AuditReport
	var r app.Response
	s.u.background(func() error { rep, r = h.Service().VerifyAudit(s.u.ctx, h.Operator()); return nil }, func(error) {
		switch {
		case !r.OK():
			s.chain.SetText("Chain could not be verified: " + r.Message)
		case rep.OK():
			s.chain.SetText(fmt.Sprintf("Chain intact: %d entries, #%d to #%d.", rep.Entries, rep.First, rep.Last))
			s.chain.Importance = widget.SuccessImportance
		default:
			s.chain.SetText("Chain BROKEN: " + strings.Join(rep.Problems, "; "))
			s.chain.Importance = widget.DangerImportance
		}
		s.chain.Refresh()
	})
}

// exportJSONL writes every matching entry (oldest first) as JSON lines.
func (s *auditScreen) exportJSONL(w io.Writer) (int, error) {
	es, r := s.load(0)
	if !r.OK() {
		return 0, fmt.Errorf("%s", r.Message)
	}
	enc := json.NewEncoder(w)
	for i := len(es) - 1; i >= 0; i-- {
		if err := enc.Encode(es[i]); err != nil {
			return 0, err
		}
	}
	return len(es), nil
}

func (s *auditScreen) exportDialog() {
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil || wc == nil {
			return
		}
		path := wc.URI().Path()
		wc.Close()
		s.exportTo(path)
	}, s.u.win)
	d.SetFileName("engram-audit.jsonl")
	d.Show()
}

// exportTo writes the export to path with owner-only permissions.
func (s *auditScreen) exportTo(path string) {
	var n int
	s.u.async(func() error {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		if n, err = s.exportJSONL(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}, func() { s.u.setStatus(fmt.Sprintf("Exported %d audit entries to %s", n, path)) })
}
