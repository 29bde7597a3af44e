package ui

import (
	"fmt"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
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
			badge := widget.NewLabel("suspicious")
			text := widget.NewLabel("")
			text.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, badge, nil, text)
		},
		func(it app.QueueItem, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			badge := c.Objects[1].(*widget.Label)
			badge.SetText(fmt.Sprintf("%s · risk %.2f · threat %d", it.Proposal, it.Risk, it.Threat))
			badge.Importance = proposalImportance(string(it.Proposal))
			badge.Refresh()
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
		widget.NewButtonWithIcon("Approve all proposed safe", theme.ConfirmIcon(), func() {
			s.bulk("approve", func(it app.QueueItem) bool { return it.State == "pending" && it.Proposal == "safe" })
		}),
		widget.NewButtonWithIcon("Reject all pending", theme.CancelIcon(), func() { s.bulk("reject", func(it app.QueueItem) bool { return it.State == "pending" }) }),
		widget.NewButtonWithIcon("Discard all hostile", theme.DeleteIcon(), func() { s.bulk("discard", func(it app.QueueItem) bool { return it.State == "hostile" }) }),
	)
	left := container.NewBorder(container.NewVBox(bulk, s.note), nil, nil, nil, s.list)
	split := container.NewHSplit(left, container.NewVScroll(s.box))
	split.Offset = 0.5
	s.content = split
	return s
}

func proposalImportance(p string) widget.Importance {
	switch p {
	case "hostile":
		return widget.DangerImportance
	case "suspicious":
		return widget.WarningImportance
	}
	return widget.SuccessImportance
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
		// Most dangerous first, then oldest.
		sort.SliceStable(items, func(i, j int) bool { return items[i].Risk > items[j].Risk })
		s.items.set(items)
		s.u.setQuarantineCount(len(items))
		note := fmt.Sprintf("%d waiting for review", len(items))
		if r.Hidden > 0 {
			note += fmt.Sprintf(" · %d more hidden while locked", r.Hidden)
		}
		s.note.SetText(note)
		if s.sel != nil && !containsItem(items, s.sel.ID) {
			s.sel = nil
			s.box.Objects = []fyne.CanvasObject{widget.NewLabel("Select a quarantined memory to review it.")}
			s.box.Refresh()
		}
	})
}

func containsItem(items []app.QueueItem, id string) bool {
	for _, it := range items {
		if it.ID == id {
			return true
		}
	}
	return false
}

// show displays one item with its findings highlighted.
func (s *quarantineScreen) show(it *app.QueueItem) {
	s.sel = it
	reasons := append([]string{it.Reason}, it.Reasons...)
	info := widget.NewForm(
		widget.NewFormItem("State", widget.NewLabel(string(it.State))),
		widget.NewFormItem("Agent", widget.NewLabel(fmt.Sprintf("%s (session %s)", orDash(it.Agent), orDash(it.Session)))),
		widget.NewFormItem("Source", widget.NewLabel(sourceText(it.Memory.Source))),
		widget.NewFormItem("Risk / threat", widget.NewLabel(fmt.Sprintf("%.2f / %d of 10", it.Risk, it.Threat))),
		widget.NewFormItem("Why", wrapped(strings.Join(dedupe(reasons), "\n"))),
		widget.NewFormItem("Guardian", wrapped(fmt.Sprintf("proposes %s. %s", it.Proposal, strings.Join(it.Guardian, " ")))),
		widget.NewFormItem("Would be stored in", widget.NewLabel(fmt.Sprintf("%s (%s, %s)", it.Memory.Partition, it.Memory.Field, it.Memory.Tier))),
	)
	var actions []fyne.CanvasObject
	if it.State == "hostile" {
		actions = append(actions, wrapped("A hostile write is kept only as evidence, never served to agents; it is removed after 30 days."),
			widget.NewButtonWithIcon("Discard", theme.DeleteIcon(), func() { s.decide(it.ID, "discard", nil) }))
	} else {
		approve := widget.NewButtonWithIcon("Approve", theme.ConfirmIcon(), func() { s.decide(it.ID, "approve", nil) })
		approve.Importance = widget.HighImportance
		actions = append(actions, container.NewHBox(approve,
			widget.NewButtonWithIcon("Edit, then approve", theme.DocumentCreateIcon(), func() { s.editApprove(it) }),
			widget.NewButtonWithIcon("Reject", theme.CancelIcon(), func() { s.decide(it.ID, "reject", nil) })))
	}
	// The actions come first so they stay in one place whatever the text's length.
	s.box.Objects = append([]fyne.CanvasObject{heading("Quarantined memory " + it.ID)}, actions...)
	s.box.Objects = append(s.box.Objects, findingsText(it.Memory.Content, it.Findings), info)
	s.box.Refresh()
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

// findingsText renders content with each finding's span marked and
// coloured by kind: secrets and injections as errors, PII as warnings.
// Spans outside the text (it may have been redacted since) are listed
// below it instead.
func findingsText(content string, findings []app.Finding) *widget.RichText {
	spans := make([]app.Finding, 0, len(findings))
	var loose []string
	for _, f := range findings {
		if f.Start >= 0 && f.End > f.Start && f.End <= len(content) {
			spans = append(spans, f)
		} else {
			loose = append(loose, f.Kind+": "+f.Type)
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	var segs []widget.RichTextSegment
	pos := 0
	for _, f := range spans {
		if f.Start < pos {
			continue // overlapping: the earlier span already marks it
		}
		segs = append(segs, &widget.TextSegment{Text: content[pos:f.Start], Style: widget.RichTextStyleInline})
		style := widget.RichTextStyleStrong
		style.Inline = true
		style.ColorName = theme.ColorNameError
		if f.Kind == "pii" {
			style.ColorName = theme.ColorNameWarning
		}
		segs = append(segs, &widget.TextSegment{Text: "⟦" + content[f.Start:f.End] + "⟧(" + f.Kind + ": " + f.Type + ")", Style: style})
		pos = f.End
	}
	segs = append(segs, &widget.TextSegment{Text: content[pos:], Style: widget.RichTextStyleInline})
	if len(loose) > 0 {
		segs = append(segs, &widget.TextSegment{Text: "Findings: " + strings.Join(loose, ", "), Style: widget.RichTextStyleParagraph})
	}
	rt := widget.NewRichText(segs...)
	rt.Wrapping = fyne.TextWrapWord
	return rt
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
			s.u.setStatus(fmt.Sprintf("Quarantined memory %s: %s", id, pastTense(what)))
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
	e := widget.NewMultiLineEntry()
	e.SetText(it.Memory.Content)
	e.Wrapping = fyne.TextWrapWord
	e.SetMinRowsVisible(8)
	dlg := dialog.NewForm("Edit, then approve", "Approve", "Cancel", []*widget.FormItem{widget.NewFormItem("Content", e)}, func(ok bool) {
		if ok {
			text := e.Text
			s.decide(it.ID, "approve", &text)
		}
	}, s.u.win)
	dlg.Resize(fyne.NewSize(640, 360))
	dlg.Show()
}

// bulk applies one decision to every item that keep selects, after a
// confirmation that names how many.
func (s *quarantineScreen) bulk(what string, keep func(app.QueueItem) bool) {
	all := s.items.data
	var ids []string
	for _, it := range all {
		if keep(it) {
			ids = append(ids, it.ID)
		}
	}
	if len(ids) == 0 {
		s.note.SetText("Nothing to " + what + ".")
		return
	}
	dialog.ShowConfirm("Review in bulk", fmt.Sprintf("%s %d quarantined memories?", strings.ToUpper(what[:1])+what[1:], len(ids)), func(ok bool) {
		if ok {
			s.bulkNow(what, ids)
		}
	}, s.u.win)
}

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
			dialog.ShowInformation("Some could not be "+pastTense(what), strings.Join(failed, "\n"), s.u.win)
		}
		s.refresh()
	})
}
