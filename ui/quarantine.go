package ui

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/host"
)

// quarantineScreen is the review queue: the user has the final say on
// every quarantined write.
type quarantineScreen struct {
	u       *UI
	content fyne.CanvasObject
	items   *rows[app.QueueItem]
	list    *widget.List
	note    *widget.Label
	box     *fyne.Container
	sel     *app.QueueItem
}

func newQuarantineScreen(u *UI) *quarantineScreen {
	s := &quarantineScreen{u: u, note: widget.NewLabel("")}
	s.box = container.NewVBox(widget.NewLabel("Select a quarantined memory to review it."))
	s.items = newRows(
		func() fyne.CanvasObject {
			risk := widget.NewLabel("risk 0.00")
			kind := widget.NewLabel("confirmation request")
			text := widget.NewLabel("")
			text.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, container.NewHBox(risk, kind), nil, text)
		},
		func(it app.QueueItem, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			left := c.Objects[1].(*fyne.Container)
			risk, kind := left.Objects[0].(*widget.Label), left.Objects[1].(*widget.Label)
			risk.Importance = riskImportance(it)
			risk.SetText(fmt.Sprintf("risk %.2f", it.Risk))
			kind.SetText(itemKind(it))
			c.Objects[0].(*widget.Label).SetText(fmt.Sprintf("%s: %s", orDash(it.Agent), preview(it.Memory.Content)))
		})
	s.list = s.items.list
	s.list.OnSelected = func(id widget.ListItemID) {
		u.h.Touch()
		if it, ok := s.items.at(id); ok {
			s.show(&it)
		}
	}
	bulk := container.NewHBox(
		widget.NewButtonWithIcon("Approve safe…", theme.ConfirmIcon(), func() {
			s.bulk("approve", func(it app.QueueItem) bool { return it.State == "pending" && it.Proposal == "safe" })
		}),
		widget.NewButtonWithIcon("Reject all…", theme.CancelIcon(), func() { s.bulk("reject", func(it app.QueueItem) bool { return it.State == "pending" }) }),
		widget.NewButtonWithIcon("Discard hostile…", theme.DeleteIcon(), func() { s.bulk("discard", func(it app.QueueItem) bool { return it.State == "hostile" }) }),
	)
	left := container.NewBorder(container.NewVBox(bulk, s.note), nil, nil, nil, s.list)
	split := container.NewHSplit(left, pane(s.box))
	split.Offset = 0.5
	s.content = split
	return s
}

// riskImportance colours an item's risk: the guard finds 0.5 and above
// suspicious.
func riskImportance(it app.QueueItem) widget.Importance {
	switch {
	case it.State == "hostile" || it.Risk >= 0.5:
		return widget.DangerImportance
	case it.Risk >= 0.25:
		return widget.WarningImportance
	}
	return widget.MediumImportance
}

// itemKind says in two words why an item is in the queue.
func itemKind(it app.QueueItem) string {
	switch {
	case held(it):
		return "held for review"
	case it.State == "hostile":
		return "hostile, kept as evidence"
	case it.Joined != "":
		return "split order"
	case strings.HasPrefix(it.Reason, "confirmation request"):
		return "confirmation request"
	case strings.HasPrefix(it.Reason, "conflicts with"):
		return "conflict"
	case it.Memory.Source.Type == "web_fetch":
		return "web content"
	}
	return "suspicious"
}

// held reports whether it is a stored memory held for review because the
// user found its source unreliable.
func held(it app.QueueItem) bool { return it.Kind == app.KindReevaluation }

// itemTitle heads an item's review.
func itemTitle(it app.QueueItem) string {
	who := orDash(it.Agent)
	switch kind := itemKind(it); kind {
	case "held for review":
		return "Held for review: you found " + app.ReevaluateSource(it) + " unreliable"
	case "hostile, kept as evidence":
		return "A hostile write from " + who + ", kept as evidence"
	case "confirmation request":
		return who + " says you confirmed this"
	default:
		return capitalise(kind) + " from " + who
	}
}

// proposalText is the guardian's proposal as the action it suggests.
func proposalText(it app.QueueItem) string {
	switch {
	case it.State == "hostile":
		return "Discard it"
	case it.Proposal == "safe":
		return "Approve it"
	case it.Proposal == "hostile":
		return "Reject it"
	}
	return "Read it before deciding"
}

// sortQueue orders the queue by risk: hostile copies first, then the
// highest risk, the highest threat, and the oldest.
func sortQueue(items []app.QueueItem) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if ha, hb := a.State == "hostile", b.State == "hostile"; ha != hb {
			return ha
		}
		if a.Risk != b.Risk {
			return a.Risk > b.Risk
		}
		if a.Threat != b.Threat {
			return a.Threat > b.Threat
		}
		return a.Created.Before(b.Created)
	})
}

// refresh reloads the queue and the count badge.
func (s *quarantineScreen) refresh() {
	if s.u.h == nil {
		return
	}
	h := s.u.h
	var r app.QueueResponse
	s.u.background(func() error { r = h.Service().Quarantine(s.u.ctx, h.Operator()); return nil }, func(error) {
		if !r.OK() {
			s.note.SetText(r.Message)
			return
		}
		items := r.Items
		sortQueue(items)
		s.items.set(items)
		s.u.setQuarantineCount(len(items))
		note := fmt.Sprintf("%d waiting for review", len(items))
		if r.Hidden > 0 {
			note += fmt.Sprintf(" · %d more hidden while locked", r.Hidden)
		}
		s.note.SetText(note)
		// The list's selection follows the item shown, which may have
		// moved; a decided item leaves nothing selected.
		switch i := itemIndex(items, s.sel); {
		case i >= 0:
			s.list.Select(i)
		default:
			s.list.UnselectAll()
			if s.sel != nil {
				s.sel = nil
				s.box.Objects = []fyne.CanvasObject{widget.NewLabel("Select a quarantined memory to review it.")}
				s.box.Refresh()
			}
		}
	})
}

// itemIndex is the index of sel in items, or -1 (also for no sel).
func itemIndex(items []app.QueueItem, sel *app.QueueItem) int {
	for i, it := range items {
		if sel != nil && it.ID == sel.ID {
			return i
		}
	}
	return -1
}

// show displays one item: what kind it is and the guardian's proposal,
// the actions (the safe one primary), the text with its findings marked
// and explained, and its details.
func (s *quarantineScreen) show(it *app.QueueItem) {
	s.sel = it
	reasons := append([]string{it.Reason}, it.Reasons...)
	source := sourceText(it.Memory.Source) // says what the agent reported, as its report
	where, queued := "Would be stored in", "Queued"
	if held(*it) {
		where, queued = "Held from", "Held"
	}
	info := widget.NewForm(
		widget.NewFormItem("Agent", wrapped(orDash(it.Agent)+optional(", session ", it.Session))),
		widget.NewFormItem("Source", wrapped(source)),
		widget.NewFormItem("Risk", widget.NewLabel(fmt.Sprintf("%.2f (suspicious from 0.50); threat %d of 10", it.Risk, it.Threat))),
		widget.NewFormItem("Why it is here", wrapped(strings.Join(dedupe(reasons), "\n"))),
		widget.NewFormItem(where, widget.NewLabel(fmt.Sprintf("%s (%s, %s)", it.Memory.Partition, it.Memory.Field, it.Memory.Tier))),
		widget.NewFormItem(queued, widget.NewLabel(when(it.Created))),
	)
	if held(*it) {
		info.Append("Written by", wrapped(orDash(it.Memory.Owner)+", memory "+it.Memory.ID))
	}
	why := it.Guardian
	if len(why) == 0 {
		why = dedupe(reasons) // a hostile copy: the guard's reasons
	}
	proposal := container.NewVBox(heading("The guardian proposes: "+proposalText(*it)), wrapped(bullets(why)))
	var actions fyne.CanvasObject
	if it.State == "hostile" {
		discard := widget.NewButtonWithIcon("Discard", theme.DeleteIcon(), func() { s.decide(it.ID, "discard", nil) })
		discard.Importance = widget.HighImportance
		actions = container.NewVBox(wrapped("A hostile write is kept only as evidence, never served to agents; it is removed after 30 days."), container.NewHBox(discard))
	} else if held(*it) {
		// A stored memory: approving keeps it as it was, rejecting
		// deletes it; it is never edited here.
		reject := widget.NewButtonWithIcon("Reject", theme.CancelIcon(), func() { s.decide(it.ID, "reject", nil) })
		approve := widget.NewButtonWithIcon("Approve", theme.ConfirmIcon(), func() { s.approve(it, nil) })
		reject.Importance = widget.HighImportance
		actions = container.NewVBox(wrapped("Approve keeps it as it was and counts as your confirmation; Reject deletes it with its versions."), container.NewHBox(reject, approve))
	} else {
		reject := widget.NewButtonWithIcon("Reject", theme.CancelIcon(), func() { s.decide(it.ID, "reject", nil) })
		approve := widget.NewButtonWithIcon("Approve", theme.ConfirmIcon(), func() { s.approve(it, nil) })
		edit := widget.NewButtonWithIcon("Edit, then approve…", theme.DocumentCreateIcon(), func() { s.editApprove(it) })
		if it.Proposal == "safe" {
			approve.Importance = widget.HighImportance
			actions = container.NewHBox(approve, edit, reject)
		} else {
			reject.Importance = widget.HighImportance
			actions = container.NewHBox(reject, edit, approve)
		}
	}
	objs := []fyne.CanvasObject{heading(itemTitle(*it)), proposal, actions}
	if it.Joined != "" {
		objs = append(objs, heading("What the guard read: this write joined to the agent's previous one"), joinedText(it.Joined, it.Memory.Content))
	}
	textHeading := "The text, as it would be stored"
	if held(*it) {
		textHeading = "The text, as it was stored"
	}
	objs = append(objs, heading(textHeading), findingsText(it.Memory.Content, it.Findings))
	if f := findingsList(it.Memory.Content, it.Findings); f != "" {
		objs = append(objs, heading("What was found"), wrapped(f))
	}
	objs = append(objs, info)
	s.box.Objects = objs
	s.box.Refresh()
}

// approve approves an item the guardian finds safe at once; any other
// only after a question whose default is to keep it in quarantine.
func (s *quarantineScreen) approve(it *app.QueueItem, edit *string) {
	if it.Proposal == "safe" && edit == nil {
		s.decide(it.ID, "approve", nil)
		return
	}
	text := it.Memory.Content
	if edit != nil {
		text = *edit
	}
	outcome := "Approved, agents recall it at standard trust:"
	if held(*it) {
		outcome = "Approved, it comes back as it was, and agents recall it again:"
	}
	body := container.NewVBox(
		wrapped(fmt.Sprintf("The guardian proposes: %s.\n%s", strings.ToLower(proposalText(*it)), bullets(it.Guardian))),
		wrapped(outcome),
		wrappedItalic(preview(text)),
	)
	s.u.askSafe("Approve this memory?", body, "Keep it in quarantine", "Approve anyway", theme.ConfirmIcon(), func() {
		s.decide(it.ID, "approve", edit)
	})
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func bullets(ss []string) string {
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("• " + s)
	}
	return b.String()
}

func wrappedItalic(s string) *widget.Label {
	l := wrapped(s)
	l.TextStyle = fyne.TextStyle{Italic: true}
	return l
}

// joinedText shows the text the guard screened for a split order, the
// part this write added in bold.
func joinedText(joined, content string) *widget.RichText {
	mine := strings.TrimLeft(content, " \t\n")
	earlier := joined
	var segs []widget.RichTextSegment
	if strings.HasSuffix(joined, mine) {
		earlier = joined[:len(joined)-len(mine)]
	} else {
		mine = ""
	}
	segs = append(segs, &widget.TextSegment{Text: earlier, Style: widget.RichTextStyleInline})
	if mine != "" {
		style := widget.RichTextStyleStrong
		style.Inline = true
		segs = append(segs, &widget.TextSegment{Text: mine, Style: style})
	}
	rt := widget.NewRichText(segs...)
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// findingsText renders content with exactly the span each finding names
// coloured: secrets and instructions as errors, personal data as
// warnings. Nothing is inserted into the text.
func findingsText(content string, findings []app.Finding) *widget.RichText {
	spans := markable(content, findings)
	var segs []widget.RichTextSegment
	pos := 0
	for _, f := range spans {
		if f.Start < pos {
			continue // overlapping: the earlier span already marks it
		}
		if f.Start > pos {
			segs = append(segs, &widget.TextSegment{Text: content[pos:f.Start], Style: widget.RichTextStyleInline})
		}
		style := widget.RichTextStyleStrong
		style.Inline = true
		style.ColorName = theme.ColorNameError
		if f.Kind == "pii" {
			style.ColorName = theme.ColorNameWarning
		}
		segs = append(segs, &widget.TextSegment{Text: content[f.Start:f.End], Style: style})
		pos = f.End
	}
	if pos < len(content) || len(segs) == 0 {
		segs = append(segs, &widget.TextSegment{Text: content[pos:], Style: widget.RichTextStyleInline})
	}
	rt := widget.NewRichText(segs...)
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

// markable returns the findings whose span lies in content, by start.
func markable(content string, findings []app.Finding) []app.Finding {
	var spans []app.Finding
	for _, f := range findings {
		if f.Start >= 0 && f.End > f.Start && f.End <= len(content) && utf8.ValidString(content[f.Start:f.End]) {
			spans = append(spans, f)
		}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	return spans
}

// findingsList explains each finding in plain words, quoting the span
// it marks (or saying it is no longer in the text).
func findingsList(content string, findings []app.Finding) string {
	var lines []string
	seen := map[string]bool{}
	for _, f := range findings {
		line := "• " + explainFinding(f)
		if f.Start >= 0 && f.End > f.Start && f.End <= len(content) {
			line += fmt.Sprintf(": %q", content[f.Start:f.End])
		} else if f.Kind == "secret" {
			line += " (redacted from the text)"
		} else {
			line += " (rewritten in the text so that no agent reads it as an instruction)"
		}
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// explainFinding says what a finding means for the user.
func explainFinding(f app.Finding) string {
	what := strings.ReplaceAll(strings.ToLower(f.Type), "_", " ")
	var out string
	switch f.Kind {
	case "injection":
		out = "An instruction aimed at an AI agent (" + what + ")"
	case "secret":
		out = "A secret (" + what + ")"
		if f.Level == "possible" {
			out = "Possibly a secret (" + what + ")"
		}
	case "pii":
		out = "Personal data (" + what + "), kept encrypted"
	default:
		out = capitalise(f.Kind) + " (" + what + ")"
	}
	if f.Reason != "" {
		out += ": " + f.Reason
	}
	return out
}

// decide approves, rejects or discards one item.
func (s *quarantineScreen) decide(id, what string, edit *string) {
	s.u.h.Touch()
	h := s.u.h
	var r app.Response
	s.u.background(func() error {
		r = decideItem(s.u, h, id, what, edit)
		return nil
	}, func(error) {
		if s.u.showResponse(r) {
			name := "The quarantined memory"
			for _, it := range s.items.data {
				if it.ID == id {
					name = fmt.Sprintf("%q", titleOf(it.Memory.Content))
				}
			}
			s.u.setStatus(fmt.Sprintf("%s: %s", name, pastTense(what)))
			s.refresh()
		}
	})
}

func pastTense(what string) string {
	switch what {
	case "approve":
		return "approved"
	case "reject":
		return "rejected"
	}
	return "discarded"
}

func decideItem(u *UI, h *host.Host, id, what string, edit *string) app.Response {
	svc, req := h.Service(), h.Operator()
	switch what {
	case "approve":
		return svc.Approve(u.ctx, req, id, edit).Response
	case "reject":
		return svc.Reject(u.ctx, req, id)
	}
	return svc.Discard(u.ctx, req, id)
}

func (s *quarantineScreen) editApprove(it *app.QueueItem) {
	e := multiLineEntry(s.u)
	e.SetText(it.Memory.Content)
	e.SetMinRowsVisible(8)
	s.u.formDialog("Edit, then approve", "Approve", []*widget.FormItem{widget.NewFormItem("Content", e)}, fyne.NewSize(640, 360), e, func() {
		text := e.Text
		s.approve(it, &text)
	})
}

// bulk applies one decision to every item that keep selects, after a
// question that lists them, whose default is to do nothing.
func (s *quarantineScreen) bulk(what string, keep func(app.QueueItem) bool) {
	var ids, lines []string
	for _, it := range s.items.data {
		if keep(it) {
			ids = append(ids, it.ID)
			if len(lines) < maxInQuestion {
				lines = append(lines, fmt.Sprintf("• %s: %s", orDash(it.Agent), preview(it.Memory.Content)))
			}
		}
	}
	if len(ids) == 0 {
		s.note.SetText("Nothing to " + what + ".")
		return
	}
	if len(ids) > maxInQuestion {
		lines = append(lines, fmt.Sprintf("and %d more", len(ids)-maxInQuestion))
	}
	verb := capitalise(what)
	noun := "memories"
	if len(ids) == 1 {
		noun = "memory"
	}
	intro := map[string]string{
		"approve": "Agents will recall these at standard trust:",
		"reject":  "These will not be stored (memories held for review are deleted):",
		"discard": "These forensic copies will be deleted:",
	}[what]
	body := container.NewVBox(wrapped(intro), wrapped(strings.Join(lines, "\n")))
	s.u.askSafe(fmt.Sprintf("%s %d quarantined %s?", verb, len(ids), noun), body, "Cancel", fmt.Sprintf("%s %d", verb, len(ids)), theme.ConfirmIcon(), func() {
		s.bulkNow(what, ids)
	})
}

// maxInQuestion is how many items a bulk question lists.
const maxInQuestion = 12

func (s *quarantineScreen) bulkNow(what string, ids []string) {
	h := s.u.h
	var failed []string
	s.u.background(func() error {
		for _, id := range ids {
			if r := decideItem(s.u, h, id, what, nil); !r.OK() {
				failed = append(failed, id+": "+r.Message)
			}
		}
		return nil
	}, func(error) {
		s.u.setStatus(fmt.Sprintf("%d quarantined memories %s", len(ids)-len(failed), pastTense(what)))
		if len(failed) > 0 {
			s.u.inform("Some could not be "+pastTense(what), strings.Join(failed, "\n"))
		}
		s.refresh()
	})
}
