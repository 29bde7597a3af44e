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
	scroll  *container.Scroll // the detail, scrolled to the top for each item
	sel     *app.QueueItem
	// next is the list position of the item just decided: once the queue
	// is reloaded, the item that took its place is shown.
	next int
	// questions are the questioned memories (see questions.go), listed
	// above the queue while there are any (center holds the lists);
	// qsel is the one shown and qnext the position of the one just
	// decided, as sel and next are for the queue.
	questions *rows[app.Memory]
	qlist     *widget.List
	center    *fyne.Container
	qsel      *app.Memory
	qnext     int
}

func newQuarantineScreen(u *UI) *quarantineScreen {
	s := &quarantineScreen{u: u, note: widget.NewLabel(""), next: -1, qnext: -1}
	s.box = container.NewVBox(widget.NewLabel("Select a quarantined memory to review it."))
	s.items = newRows(
		func() fyne.CanvasObject {
			risk := widget.NewLabel("no risk found")
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
			risk.SetText(it.RiskLevel())
			kind.SetText(itemKind(it))
			c.Objects[0].(*widget.Label).SetText(fmt.Sprintf("%s: %s", orDash(it.Agent), preview(it.Memory.Content)))
		})
	s.list = s.items.list
	s.list.OnSelected = func(id widget.ListItemID) {
		u.h.Touch()
		if it, ok := s.items.at(id); ok {
			s.qsel = nil
			s.qlist.UnselectAll()
			s.show(&it)
		}
	}
	s.questions = s.newQuestionRows()
	s.qlist = s.questions.list
	s.center = container.NewStack(s.list)
	bulk := container.NewHBox(
		widget.NewButtonWithIcon("Approve safe…", theme.ConfirmIcon(), func() {
			s.bulk("approve", func(it app.QueueItem) bool { return it.SafeToApprove() })
		}),
		widget.NewButtonWithIcon("Reject all…", theme.CancelIcon(), func() { s.bulk("reject", func(it app.QueueItem) bool { return it.Waiting() }) }),
		widget.NewButtonWithIcon("Discard hostile…", theme.DeleteIcon(), func() { s.bulk("discard", func(it app.QueueItem) bool { return it.Forensic() }) }),
	)
	left := container.NewBorder(container.NewVBox(bulk, s.note), nil, nil, nil, s.center)
	s.scroll = pane(s.box)
	split := container.NewHSplit(left, s.scroll)
	split.Offset = 0.5
	s.content = split
	return s
}

// riskImportance colours an item's risk: the guard finds 0.5 and above
// suspicious.
func riskImportance(it app.QueueItem) widget.Importance {
	switch {
	case it.Forensic() || it.Risk >= 0.5:
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
	case it.Forensic():
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
	case it.Forensic():
		return "Discard it"
	case it.Proposal == app.ProposeSafe:
		return "Approve it"
	case it.Proposal == app.ProposeHostile:
		return "Reject it"
	}
	return "Read it before deciding"
}

// sortQueue orders the queue by risk: hostile copies first, then the
// highest risk, the highest threat, and the oldest.
func sortQueue(items []app.QueueItem) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if ha, hb := a.Forensic(), b.Forensic(); ha != hb {
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

// refresh reloads the queue, the questioned memories and the count
// badge (both count: each waits for the user).
func (s *quarantineScreen) refresh() {
	if s.u.h == nil {
		return
	}
	h := s.u.h
	var r app.QueueResponse
	var q app.QuestionsResponse
	s.u.background(func() error {
		r = h.Service().Quarantine(s.u.ctx, h.Operator())
		q = h.Service().Questions(s.u.ctx, h.Operator())
		return nil
	}, func(error) {
		if !r.OK() {
			s.note.SetText(r.Message)
			return
		}
		items := r.Items
		sortQueue(items)
		s.items.set(items)
		qs := q.Memories // none if they could not be read: the note says why
		s.questions.set(qs)
		s.layoutLists(len(qs) > 0)
		s.u.setQuarantineCount(len(items) + len(qs))
		note := fmt.Sprintf("%d waiting for review", len(items))
		if len(qs) > 0 {
			note += " · " + count(len(qs), "questioned memory", "questioned memories")
		}
		if r.Hidden > 0 {
			note += fmt.Sprintf(" · %d more hidden while locked", r.Hidden)
		}
		if !q.OK() {
			note += " · questioned memories not read: " + q.Message
		}
		s.note.SetText(note)
		if s.selectQuestion(qs) {
			return
		}
		// The list's selection follows the item shown, which may have
		// moved; after a decision the item that took the decided one's
		// place is shown (the last, if it was the last); an empty queue
		// leaves nothing selected.
		next := s.next
		s.next = -1
		switch i := itemIndex(items, s.sel); {
		case i >= 0:
			s.list.Select(i)
		case next >= 0 && len(items) > 0:
			s.list.UnselectAll()
			s.list.Select(min(next, len(items)-1))
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

// layoutLists shows the questioned memories above the queue while there
// are any, and the queue alone otherwise.
func (s *quarantineScreen) layoutLists(questions bool) {
	if !questions {
		s.center.Objects = []fyne.CanvasObject{s.list}
		s.center.Refresh()
		return
	}
	if len(s.center.Objects) == 1 && s.center.Objects[0] != s.list {
		return // already shown
	}
	top := container.NewBorder(heading("Questioned: confirm or refute"), nil, nil, nil, s.qlist)
	bottom := container.NewBorder(heading("Quarantine"), nil, nil, nil, s.list)
	split := container.NewVSplit(top, bottom)
	split.Offset = 0.35
	s.center.Objects = []fyne.CanvasObject{split}
	s.center.Refresh()
}

// selectQuestion keeps the questioned memory shown selected (it may
// have moved), or after a verdict shows the one that took its place; it
// reports whether a questioned memory was or had been shown, so that
// the queue's selection is left alone otherwise.
func (s *quarantineScreen) selectQuestion(qs []app.Memory) bool {
	next := s.qnext
	s.qnext = -1
	if s.qsel == nil && next < 0 {
		return false
	}
	switch i := memIndex(qs, s.qsel); {
	case i >= 0:
		s.qlist.Select(i)
		return true
	case next >= 0 && len(qs) > 0:
		s.qlist.UnselectAll()
		s.qlist.Select(min(next, len(qs)-1))
		return true
	}
	s.qlist.UnselectAll()
	s.qsel = nil
	s.box.Objects = []fyne.CanvasObject{widget.NewLabel("Select a quarantined memory to review it.")}
	s.box.Refresh()
	return true
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
		widget.NewFormItem("Risk", wrapped(riskText(*it))),
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
	// The buttons come first, under the title, so that they stand in the
	// same place for every item; the guardian's advice follows at once.
	objs := []fyne.CanvasObject{heading(itemTitle(*it)), s.actions(it), riskLine(*it), proposal}
	if it.Joined != "" {
		objs = append(objs, s.splitPart(it)...)
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
	s.scroll.ScrollToTop()
}

// riskLine says in words how risky the item is and what the guard found
// it would make an agent do: "High risk: tells agents to run a script
// fetched from get.example".
func riskLine(it app.QueueItem) *widget.Label {
	text := capitalise(it.RiskLevel())
	if e := it.Effects(); len(e) > 0 {
		text += ": " + strings.Join(e, "; ")
	}
	l := wrapped(text)
	l.Importance = riskImportance(it)
	l.TextStyle = fyne.TextStyle{Bold: true}
	return l
}

// riskText is the Risk row of an item's details, in words.
func riskText(it app.QueueItem) string {
	switch it.RiskLevel() {
	case "hostile":
		return "Hostile: the guard refused it"
	case "high risk":
		return "High risk: the guard is confident it tells agents to do harm"
	case "medium risk":
		return "Medium risk: the guard found something an agent should not do without you"
	case "low risk":
		return "Low risk: the guard found little, but it is here for another reason"
	}
	return "No risk found by the guard: it is here for another reason"
}

// actions are an item's buttons. Reject, Approve and Edit keep their
// places whatever the guardian proposes: only which one is primary
// changes. A hostile copy can only be discarded.
func (s *quarantineScreen) actions(it *app.QueueItem) fyne.CanvasObject {
	if it.Forensic() {
		discard := widget.NewButtonWithIcon("Discard", theme.DeleteIcon(), func() { s.decide(it.ID, "discard", nil) })
		discard.Importance = widget.HighImportance
		return container.NewVBox(container.NewHBox(discard), wrapped("A hostile write is kept only as evidence, never served to agents; it is removed after 30 days."))
	}
	reject := widget.NewButtonWithIcon("Reject", theme.CancelIcon(), func() { s.reject(it) })
	approve := widget.NewButtonWithIcon("Approve", theme.ConfirmIcon(), func() { s.approve(it, nil) })
	if it.SafeToApprove() && !held(*it) {
		approve.Importance = widget.HighImportance
	} else {
		reject.Importance = widget.HighImportance
	}
	if held(*it) {
		// A stored memory: approving keeps it as it was, rejecting
		// deletes it; it is never edited here.
		return container.NewVBox(container.NewHBox(reject, approve), wrapped("Approve keeps it as it was and counts as your confirmation; Reject deletes it with its versions."))
	}
	edit := widget.NewButtonWithIcon("Edit, then approve…", theme.DocumentCreateIcon(), func() { s.editApprove(it) })
	return container.NewHBox(reject, approve, edit)
}

// splitPart shows a split order: which half is stored, as what, whether
// it is held, a way to open it, and what the guard read, the two joined.
func (s *quarantineScreen) splitPart(it *app.QueueItem) []fyne.CanvasObject {
	objs := []fyne.CanvasObject{heading("A split order: the other half is already stored")}
	if p := it.Partner; p != nil {
		line := "The first half is stored as memory " + p.ID + "."
		if p.Held {
			line += " It is held out of every agent's recall (and yours) until you decide: Approve brings it back, Reject forgets it too unless you keep it."
		} else if p.Why != "" {
			line += " It was not held: " + p.Why + "."
		}
		open := widget.NewButtonWithIcon("Show memory "+shortID(p.ID)+"…", theme.SearchIcon(), func() { s.showMemory(p.ID) })
		objs = append(objs, wrapped(line), container.NewHBox(open), wrappedItalic(preview(p.Content)))
	}
	objs = append(objs, heading("What the guard read: the two halves joined, this write in bold"), joinedText(it.Joined, it.Memory.Content, it.JoinedFindings))
	return objs
}

// shortID is the start of a memory id, as the app shows it in buttons.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// showMemory opens memory id's details (provenance, versions, actions)
// in a dialog over the review.
func (s *quarantineScreen) showMemory(id string) {
	d := newDetailPane(s.u)
	d.show(id)
	s.u.oneButton("Memory "+shortID(id), d.content, "Close", fyne.NewSize(760, 560))
}

// reject rejects an item. The second half of a split order asks first
// whether to forget the stored half too, ticked by default.
func (s *quarantineScreen) reject(it *app.QueueItem) {
	p := it.Partner
	if p == nil || !p.Held {
		s.decide(it.ID, "reject", nil)
		return
	}
	forget := newKeyCheck(s.u, "Also forget memory "+shortID(p.ID)+", the half already stored", nil)
	forget.SetChecked(true)
	body := container.NewVBox(
		wrapped("This write will not be stored. The other half of the order is stored as memory "+p.ID+", held until you decide:"),
		wrappedItalic(preview(p.Content)),
		forget,
		wrapped("Unticked, it comes back into recall as it was."),
	)
	s.u.formDialog("Reject this split order?", "Reject", []*widget.FormItem{widget.NewFormItem("", body)}, fyne.NewSize(620, 0), forget, func() {
		what := "reject"
		if !forget.Checked {
			what = "reject, keep the other half"
		}
		s.decide(it.ID, what, nil)
	})
}

// approve approves an item the guardian finds safe at once; any other
// only after a question whose default is to keep it in quarantine.
func (s *quarantineScreen) approve(it *app.QueueItem, edit *string) {
	if it.SafeToApprove() && edit == nil {
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

// joinedText shows the text the guard screened for a split order: the
// part this write added in bold, wherever it stands in the joined text,
// and the words that carry each finding marked as findingsText marks
// them.
func joinedText(joined, content string, findings []app.Finding) *widget.RichText {
	mine := strings.TrimSpace(content)
	from, to := -1, -1
	if mine != "" {
		if i := strings.LastIndex(joined, mine); i >= 0 {
			from, to = i, i+len(mine)
		}
	}
	var spans []app.Finding
	for _, f := range markable(joined, findings) {
		// A finding over the whole text says nothing of where: the risk
		// line names it, and this write stays told apart.
		if f.Start > 0 || f.End < len(joined) {
			spans = append(spans, f)
		}
	}
	cuts := []int{0, len(joined)}
	if from >= 0 {
		cuts = append(cuts, from, to)
	}
	for _, f := range spans {
		cuts = append(cuts, f.Start, f.End)
	}
	sort.Ints(cuts)
	var segs []widget.RichTextSegment
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		if a == b {
			continue
		}
		style := widget.RichTextStyleInline
		if a >= from && b <= to {
			style = widget.RichTextStyleStrong
			style.Inline = true
		}
		for _, f := range spans {
			if a >= f.Start && b <= f.End {
				style.TextStyle.Bold = true
				style.ColorName = theme.ColorNameError
				if f.Kind == "pii" {
					style.ColorName = theme.ColorNameWarning
				}
			}
		}
		segs = append(segs, &widget.TextSegment{Text: joined[a:b], Style: style})
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
	s.next = -1
	for i, it := range s.items.data {
		if it.ID == id {
			s.next = i
		}
	}
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
			status := fmt.Sprintf("%s: %s", name, pastTense(what))
			if r.Message != "" {
				status += " (" + r.Message + ")"
			}
			s.u.setStatus(status)
			s.refresh()
		}
	})
}

func pastTense(what string) string {
	switch what {
	case "approve":
		return "approved"
	case "reject", "reject, keep the other half":
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
	case "reject, keep the other half":
		return svc.RejectItem(u.ctx, req, id, app.RejectOptions{KeepPartner: true})
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
		"reject":  "These will not be stored (memories held for review, and the stored halves of split orders, are deleted):",
		"discard": "These forensic copies will be deleted:",
	}[what]
	d := s.u.askSafe(fmt.Sprintf("%s %d quarantined %s?", verb, len(ids), noun), bulkBody(intro, lines), "Cancel", fmt.Sprintf("%s %d", verb, len(ids)), theme.ConfirmIcon(), func() {
		s.bulkNow(what, ids)
	})
	d.Resize(fyne.NewSize(bulkWidth, 0)) // as wide as the title needs; as tall as its content
}

// bulkWidth is the width of a bulk question: its title and the list's
// lines fit it.
const bulkWidth = 640

// bulkBody is a bulk question's content: the intro, then the list in a
// box of its own that scrolls, so that however long the list the
// question keeps its title and buttons in the window.
func bulkBody(intro string, lines []string) fyne.CanvasObject {
	list := container.NewVScroll(wrapped(strings.Join(lines, "\n")))
	list.SetMinSize(fyne.NewSize(bulkWidth-60, 240))
	return container.NewBorder(wrapped(intro), nil, nil, nil, list)
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
