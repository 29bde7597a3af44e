package ui

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
)

// detailPane shows one memory: its content and metadata, the provenance
// chain, the versions with a diff and rollback, and the actions.
type detailPane struct {
	u       *UI
	content fyne.CanvasObject
	box     *fyne.Container
	id      string
	mem     *app.Memory
	vers    []app.Version
	// revealed shows a sensitive memory's text; it is hidden again when
	// another memory is shown, and at a lock (the pane is rebuilt).
	revealed bool
}

func newDetailPane(u *UI) *detailPane {
	d := &detailPane{u: u, box: container.NewVBox(widget.NewLabel("Select a memory to see why Engram believes it."))}
	d.content = pane(d.box)
	return d
}

// clear shows no memory.
func (d *detailPane) clear() {
	d.id, d.mem, d.vers, d.revealed = "", nil, nil, false
	d.box.Objects = []fyne.CanvasObject{widget.NewLabel("Select a memory to see why Engram believes it.")}
	d.box.Refresh()
}

// show loads and displays memory id.
func (d *detailPane) show(id string) {
	if id != d.id {
		d.revealed = false
	}
	d.id = id
	d.reload()
}

// reload fetches the shown memory again (it may have changed).
func (d *detailPane) reload() {
	if d.id == "" || d.u.h == nil {
		return
	}
	id, h := d.id, d.u.h
	var r app.HistoryResponse
	d.u.background(func() error {
		r = h.Service().History(d.u.ctx, h.Operator(), id)
		return nil
	}, func(error) {
		if id != d.id {
			return
		}
		if !r.OK() {
			d.mem, d.vers = nil, nil
			d.box.Objects = []fyne.CanvasObject{widget.NewLabel(r.Message)}
			d.box.Refresh()
			return
		}
		d.mem, d.vers = r.Memory, r.Versions
		d.render()
	})
}

// heading is a bold title; it wraps, so that a long one never widens
// the window.
func heading(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.Wrapping = fyne.TextWrapWord
	return l
}

func wrapped(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format("2006-01-02 15:04")
}

func (d *detailPane) render() {
	m, now := d.mem, d.u.now()
	conf := app.CurrentConfidence(m, now)
	var future []string
	for _, days := range []int{30, 90, 180} {
		future = append(future, fmt.Sprintf("%.2f in %d days", app.CurrentConfidence(m, now.Add(time.Duration(days)*24*time.Hour)), days))
	}
	expires := "no expiry"
	if at, ok := app.ExpiresAt(m, d.u.h.Settings().DecayPolicy()); ok {
		expires = "archived after " + when(at) + " unless used or confirmed"
	} else if m.Expires != nil {
		expires = "expires " + when(*m.Expires)
	}
	tags := strings.Join(m.Tags, ", ")
	if tags == "" {
		tags = "none"
	}
	pinned := "no"
	if m.Pinned {
		pinned = "yes"
	}
	meta := widget.NewForm(
		widget.NewFormItem("Partition", wrapped(string(m.Partition))),
		widget.NewFormItem("Kind / tier / field", wrapped(fmt.Sprintf("%s / %s / %s", m.Kind, m.Tier, orDash(string(m.Field))))),
		widget.NewFormItem("Source", wrapped(sourceText(m.Source))),
		widget.NewFormItem("Trust", wrapped(trustText(m.Trust))),
		widget.NewFormItem("Confidence", wrapped(fmt.Sprintf("%.2f now (stored %.2f); %s", conf, m.Confidence, strings.Join(future, ", ")))),
		widget.NewFormItem("Tags", wrapped(tags)),
		widget.NewFormItem("Expiry", wrapped(expires)),
		widget.NewFormItem("Questioned", wrapped(questioned(m))),
		widget.NewFormItem("Pinned", wrapped(pinned)),
		widget.NewFormItem("Created / used", wrapped(when(m.Created)+" / "+when(m.Accessed))),
	)
	if m.Archive != nil {
		archived := widget.NewRichText(linked(fmt.Sprintf("%s from %s: %s", when(m.Archive.Time), m.Archive.From, m.Archive.Reason), d.show)...)
		archived.Wrapping = fyne.TextWrapWord
		meta.Append("Archived", archived)
	}
	masked := m.Sensitive() && !d.revealed
	title := titleOf(m.Content)
	if masked {
		title = "A sensitive memory"
	}
	id := widget.NewLabel(fmt.Sprintf("%s (version %d)", m.ID, m.Version))
	id.Wrapping = fyne.TextWrapBreak
	meta.Append("Id", id)
	objs := []fyne.CanvasObject{heading(title), d.text(masked), d.actions(), meta,
		heading("Why does Engram believe this?"), d.provenance()}
	objs = append(objs, heading("Versions"))
	if masked {
		objs = append(objs, wrapped(fmt.Sprintf("%d versions; their text is hidden with the memory's.", len(d.vers))))
	} else {
		objs = append(objs, d.versions()...)
	}
	d.box.Objects = objs
	d.box.Refresh()
}

// masked stands for hidden sensitive text.
const masked = "●●●●●●●●●●●●  (sensitive: hidden)"

// text is the memory's text, or for a sensitive memory a mask with a
// Show button until the user reveals it.
func (d *detailPane) text(hidden bool) fyne.CanvasObject {
	m := d.mem
	if !m.Sensitive() {
		return wrapped(m.Content)
	}
	if hidden {
		show := widget.NewButtonWithIcon("Show", theme.VisibilityIcon(), func() { d.u.h.Touch(); d.revealed = true; d.render() })
		return container.NewBorder(nil, nil, nil, show, widget.NewLabel(masked))
	}
	hide := widget.NewButtonWithIcon("Hide", theme.VisibilityOffIcon(), func() { d.revealed = false; d.render() })
	return container.NewBorder(nil, nil, nil, hide, wrapped(m.Content))
}

// titleOf is a memory's title: its first words, at most about 60
// characters, on one line.
func titleOf(content string) string {
	const max = 60
	words := strings.Fields(content)
	var b strings.Builder
	for _, w := range words {
		if b.Len()+len(w)+1 > max && b.Len() > 0 {
			return b.String() + "…"
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	if b.Len() == 0 {
		return "(empty memory)"
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// sourceText says in words how a memory came to be: how, by whom, with
// which tool, and what an agent only reported. Session ids are left out
// (the audit log has them); an import run is named.
func sourceText(s app.Source) string {
	out, ok := sourceWords[s.Type]
	if !ok {
		out = string(s.Type)
	}
	switch {
	case s.Type == "explicit_save" && who(s.AgentID) == "you":
		out = "saved by you"
	case s.Type == "ai_inference" && s.AgentID != "":
		out = "inferred by the agent " + s.AgentID
	case s.AgentID != "":
		out += " by " + who(s.AgentID)
	}
	if app.IsImportSession(s.SessionID) {
		out += " (import run " + s.SessionID + ")"
	}
	if s.Tool != "" {
		out += " via " + s.Tool
	}
	if note := app.ReportedNote(s); note != "" {
		out += "; " + note
	}
	if s.External {
		out += "; from external content"
	}
	return out
}

// provenance is the memory's history in words: created by whom and how,
// each change, each verdict; memory ids in it are links that show that
// memory.
func (d *detailPane) provenance() fyne.CanvasObject {
	p := d.mem.Provenance
	lines := []string{fmt.Sprintf("%s  created by %s: %s%s", when(p.Genesis.Time), who(p.Genesis.Agent), sourceText(p.Genesis.Source), optional(" — ", p.Genesis.Context))}
	if p.Dropped > 0 {
		lines = append(lines, fmt.Sprintf("… %d older changes (in the audit log)", p.Dropped))
	}
	for _, mod := range p.Modifications {
		lines = append(lines, fmt.Sprintf("%s  %s by %s (version %d)%s", when(mod.Time), operationText(mod.Operation), who(mod.Agent), mod.Version, optional(": ", mod.Reason)))
	}
	for _, v := range p.Verifications {
		v.Agent = who(v.Agent)
		lines = append(lines, when(v.Time)+"  "+app.VerificationLine(v))
	}
	rt := widget.NewRichText(linked(strings.Join(lines, "\n"), d.show)...)
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

func optional(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// versions lists the kept versions, newest first, each with its diff from
// the one before and a rollback button.
func (d *detailPane) versions() []fyne.CanvasObject {
	var out []fyne.CanvasObject
	for i := len(d.vers) - 1; i >= 0; i-- {
		v := d.vers[i]
		prev := ""
		if i > 0 {
			prev = d.vers[i-1].Memory.Content
		}
		op := "created"
		if v.Operation != "" {
			op = operationText(v.Operation)
		}
		head := fmt.Sprintf("v%d  %s  %s by %s", v.Version, versionTime(v.Time), op, who(v.Agent))
		var back fyne.CanvasObject
		if v.Version != d.mem.Version {
			to := v.Version
			back = widget.NewButtonWithIcon(fmt.Sprintf("Roll back to v%d", to), theme.HistoryIcon(), func() { d.rollback(to) })
		}
		row := container.NewBorder(nil, nil, nil, back, wrapped(head))
		if back == nil {
			row = container.NewBorder(nil, nil, nil, nil, wrapped(head))
		}
		out = append(out, row, diffText(wordDiff(prev, v.Memory.Content)))
	}
	return out
}

// versionTime shows a version's stored RFC 3339 time to the minute.
func versionTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return when(t)
}

// diffText renders a diff: removed words in red italics, added words in
// green bold, the rest plain (no markup in the text).
func diffText(ops []diffOp) *widget.RichText {
	var segs []widget.RichTextSegment
	for _, op := range ops {
		style := widget.RichTextStyleInline
		text := op.Words
		switch op.Kind {
		case '-':
			style.ColorName = theme.ColorNameError
			style.TextStyle = fyne.TextStyle{Italic: true}
		case '+':
			style.ColorName = theme.ColorNameSuccess
			style.TextStyle = fyne.TextStyle{Bold: true}
		}
		segs = append(segs, &widget.TextSegment{Text: text + " ", Style: style})
	}
	rt := widget.NewRichText(segs...)
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

// pinIcon is a pin's button icon: a radio dot that is filled when pinned
// (Fyne's theme has no pin).
func pinIcon(pinned bool) fyne.Resource {
	if pinned {
		return theme.RadioButtonCheckedIcon()
	}
	return theme.RadioButtonIcon()
}

func (d *detailPane) actions() fyne.CanvasObject {
	m := d.mem
	pin := "Pin"
	if m.Pinned {
		pin = "Unpin"
	}
	// Fixed-size cells that wrap to the pane's width: a narrow pane gets
	// more rows, never clipped buttons.
	return container.NewGridWrap(fyne.NewSize(150, 36),
		widget.NewButtonWithIcon("Edit", theme.DocumentCreateIcon(), d.edit),
		widget.NewButtonWithIcon("Tag", theme.ContentAddIcon(), d.tag),
		widget.NewButtonWithIcon("Reclassify", theme.FolderIcon(), d.reclassify),
		widget.NewButtonWithIcon(pin, pinIcon(m.Pinned), func() {
			d.apply(func() app.MemoryResponse {
				return d.u.h.Service().SetPinned(d.u.ctx, d.u.h.Operator(), m.ID, !m.Pinned)
			})
		}),
		widget.NewButtonWithIcon("Confirm", theme.ConfirmIcon(), func() {
			d.apply(func() app.MemoryResponse {
				return d.u.h.Service().Confirm(d.u.ctx, d.u.h.Operator(), m.ID, "confirmed in the desktop app")
			})
		}),
		widget.NewButtonWithIcon("Refute…", theme.CancelIcon(), d.refute),
		widget.NewButtonWithIcon("Question…", theme.QuestionIcon(), d.question),
		widget.NewButtonWithIcon("Expiry…", theme.HistoryIcon(), d.expiry),
		widget.NewButtonWithIcon("Merge…", theme.ContentCopyIcon(), d.merge),
		widget.NewButtonWithIcon("Forget", theme.DeleteIcon(), d.forget),
	)
}

// questioned says whether the user questioned m ("questioned: REASON"),
// and how many agents' reports wait with it.
func questioned(m *app.Memory) string {
	out := "no"
	if why, ok := app.QuestionedBy(m); ok {
		out = app.QuestionLabel(why)
	}
	if n := len(app.OpenQuestions(m)); n > 0 {
		if _, ok := app.QuestionedBy(m); ok {
			n--
		}
		if n > 0 {
			out += fmt.Sprintf("; %d agents' reports (in the history)", n)
		}
	}
	return out
}

// question asks for the reason the memory may be wrong: it stays, with
// half its confidence, until the user confirms or refutes it.
func (d *detailPane) question() {
	m := d.mem
	e := multiLineEntry(d.u)
	e.SetPlaceHolder("why it may be wrong or out of date")
	d.u.formDialog("Question this memory", "Question", []*widget.FormItem{widget.NewFormItem("Reason", e)}, fyne.NewSize(560, 280), e, func() {
		if strings.TrimSpace(e.Text) == "" {
			return
		}
		reason := e.Text
		d.apply(func() app.MemoryResponse {
			return d.u.h.Service().Question(d.u.ctx, d.u.h.Operator(), m.ID, reason)
		})
	})
}

// expiry sets when the memory expires: a date, a time or a duration such
// as 30d; "default" goes back to the policy's.
func (d *detailPane) expiry() {
	m := d.mem
	e := newShortcutEntry(d.u)
	if m.Expires != nil {
		e.SetText(m.Expires.Local().Format("2006-01-02"))
	}
	e.SetPlaceHolder("2027-01-31, 30d, 36h or default")
	d.u.formDialog("Set the expiry", "Save", []*widget.FormItem{widget.NewFormItem("Expires", e)}, fyne.NewSize(480, 160), e, func() {
		spec := strings.TrimSpace(e.Text)
		if spec == "" {
			return
		}
		d.apply(func() app.MemoryResponse {
			return d.u.h.Service().Update(d.u.ctx, d.u.h.Operator(), m.ID, app.UpdateInput{Expires: spec, IfVersion: m.Version})
		})
	})
}

// apply runs a change in the background and shows the new state.
func (d *detailPane) apply(change func() app.MemoryResponse) {
	d.u.h.Touch()
	var r app.MemoryResponse
	d.u.background(func() error { r = change(); return nil }, func(error) {
		if d.u.showResponse(r.Response) {
			d.reload()
			d.u.memories.refresh()
		}
	})
}

func (d *detailPane) edit() {
	m := d.mem
	e := multiLineEntry(d.u)
	e.SetText(m.Content)
	e.SetMinRowsVisible(8)
	d.u.formDialog("Edit memory (replaces the content as a new version)", "Save",
		[]*widget.FormItem{widget.NewFormItem("Content", e)}, fyne.NewSize(640, 360), e, func() {
			if e.Text != m.Content {
				d.save(m, e.Text, false)
			}
		})
}

// save replaces m's content. When the write guard asks for the user's
// confirmation (a possible secret: a long random string or a hash), the
// user is asked, and a yes saves it confirmed.
func (d *detailPane) save(m *app.Memory, text string, confirmed bool) {
	d.u.h.Touch()
	var r app.MemoryResponse
	d.u.background(func() error {
		r = d.u.h.Service().Update(d.u.ctx, d.u.h.Operator(), m.ID, app.UpdateInput{Operation: app.OpUpdate, Content: &text, IfVersion: m.Version, Confirmed: confirmed})
		return nil
	}, func(error) {
		if r.Status == app.StatusConfirmationRequired && !confirmed {
			d.u.askSafe("Confirm this text",
				wrapped("The new text may hold a secret: a long random string that nothing in the text names. Engram stores it as it is only when you confirm. Save it as it is?"),
				"Cancel", "Save as it is", theme.ConfirmIcon(), func() { d.save(m, text, true) })
			return
		}
		if d.u.showResponse(r.Response) {
			d.reload()
			d.u.memories.refresh()
		}
	})
}

// refute asks for the evidence that shows the memory wrong; the next
// sweep archives it with the evidence as its note.
func (d *detailPane) refute() {
	m := d.mem
	e := multiLineEntry(d.u)
	e.SetPlaceHolder("what shows it is wrong (kept as the archive note)")
	d.u.formDialog("Refute this memory", "Refute", []*widget.FormItem{widget.NewFormItem("Evidence", e)}, fyne.NewSize(560, 280), e, func() {
		if strings.TrimSpace(e.Text) == "" {
			return
		}
		evidence := e.Text
		d.apply(func() app.MemoryResponse {
			return d.u.h.Service().Refute(d.u.ctx, d.u.h.Operator(), m.ID, evidence)
		})
	})
}

func (d *detailPane) tag() {
	m := d.mem
	e := newShortcutEntry(d.u)
	e.SetText(strings.Join(m.Tags, ", "))
	d.u.formDialog("Tags (comma-separated)", "Save", []*widget.FormItem{widget.NewFormItem("Tags", e)}, fyne.NewSize(480, 160), e, func() {
		tags := strings.Split(e.Text, ",")
		d.apply(func() app.MemoryResponse {
			return d.u.h.Service().Update(d.u.ctx, d.u.h.Operator(), m.ID, app.UpdateInput{Operation: app.OpTag, Tags: tags, IfVersion: m.Version})
		})
	})
}

func (d *detailPane) reclassify() {
	m := d.mem
	var opts []string
	for _, p := range app.Partitions {
		if p != "archive" {
			opts = append(opts, string(p))
		}
	}
	sel := newKeySelect(d.u, opts, nil)
	sel.SetSelected(string(m.Partition))
	d.u.formDialog("Move to partition", "Move", []*widget.FormItem{
		widget.NewFormItem("Partition", sel),
		widget.NewFormItem("", wrapped("A memory with personal data stays sensitive.")),
	}, fyne.NewSize(420, 0), sel, func() {
		if sel.Selected == string(m.Partition) {
			return
		}
		p := app.Partition(sel.Selected)
		d.apply(func() app.MemoryResponse {
			return d.u.h.Service().Update(d.u.ctx, d.u.h.Operator(), m.ID, app.UpdateInput{Operation: app.OpReclassify, Partition: &p, IfVersion: m.Version})
		})
	})
}

func (d *detailPane) rollback(to int) {
	id := d.mem.ID
	d.u.askSafe("Roll back", wrapped(fmt.Sprintf("Restore version %d as a new version? The current one stays in the history.", to)), "Cancel", "Roll back", theme.HistoryIcon(), func() {
		d.apply(func() app.MemoryResponse { return d.u.h.Service().Rollback(d.u.ctx, d.u.h.Operator(), id, to) })
	})
}

func (d *detailPane) forget() {
	id := d.mem.ID
	d.u.askSafe("Forget this memory?", wrapped("Forget removes the memory and all its versions from the vault file for good (the audit log keeps that it happened, never what it said)."), "Keep it", "Forget", theme.DeleteIcon(), func() {
		var r app.ForgetResponse
		d.u.background(func() error {
			r = d.u.h.Service().Forget(d.u.ctx, d.u.h.Operator(), []string{id}, "forgotten in the desktop app")
			return nil
		}, func(error) {
			if d.u.showResponse(r.Response) {
				d.id, d.mem = "", nil
				d.box.Objects = []fyne.CanvasObject{widget.NewLabel("The memory was forgotten.")}
				d.box.Refresh()
				d.u.memories.refresh()
			}
		})
	})
}

// pane scrolls a detail pane both ways: its minimum width is then the
// scroller's, so no long line or row of buttons in it ever widens the
// window (it wraps, or at worst scrolls).
func pane(o fyne.CanvasObject) *container.Scroll { return container.NewScroll(o) }
