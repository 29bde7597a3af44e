package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
)

// The review's questioned memories: a memory the user or an agent
// questioned (app.Service.Question) waits here, beside the quarantine,
// until the user confirms or refutes it (app.Service.Questions lists
// them; a verdict of the user's ends the question, see app.OpenQuestions).

// newQuestionRows is the list of questioned memories: its kind, who
// questioned it, and its title (masked when sensitive).
func (s *quarantineScreen) newQuestionRows() *rows[app.Memory] {
	r := newRows(
		func() fyne.CanvasObject {
			kind := widget.NewLabel("questioned")
			kind.Importance = widget.WarningImportance
			text := widget.NewLabel("")
			text.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, kind, nil, text)
		},
		func(m app.Memory, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(questioners(&m) + ": " + memoryTitle(&m))
		})
	r.list.OnSelected = func(id widget.ListItemID) {
		s.u.h.Touch()
		if m, ok := r.at(id); ok {
			s.showQuestion(&m)
		}
	}
	return r
}

// memoryTitle is m's title, or "A sensitive memory" for a sensitive one
// (its text is shown only when the user opens it).
func memoryTitle(m *app.Memory) string {
	if m.Sensitive() {
		return "A sensitive memory"
	}
	return titleOf(m.Content)
}

// questioners names who questioned m, the user as "you", each once, in
// the order of their questions: "you and claude-code".
func questioners(m *app.Memory) string {
	var names []string
	for _, q := range app.OpenQuestions(m) {
		names = append(names, who(q.Agent))
	}
	names = dedupe(names)
	switch len(names) {
	case 0:
		return "-"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// showQuestion shows a questioned memory: who questioned it and why,
// what each verdict does, the actions, and its text.
func (s *quarantineScreen) showQuestion(m *app.Memory) {
	s.qsel, s.sel = m, nil
	s.list.UnselectAll()
	var lines []string
	for _, q := range app.OpenQuestions(m) {
		lines = append(lines, fmt.Sprintf("• %s: %s (%s)", who(q.Agent), q.Evidence, when(q.Time)))
	}
	effect := "An agent's question changes nothing by itself: the memory stays as it is, in recall, until you decide."
	if why, ok := app.QuestionedBy(m); ok {
		effect = fmt.Sprintf("It stays in recall with half its confidence, labelled %q, until you decide.", app.QuestionLabel(why))
	}
	confirm := widget.NewButtonWithIcon("Confirm", theme.ConfirmIcon(), func() { s.confirmQuestioned(m) })
	refute := widget.NewButtonWithIcon("Refute…", theme.CancelIcon(), func() { s.refuteQuestioned(m) })
	open := widget.NewButtonWithIcon("Open…", theme.SearchIcon(), func() { s.showMemory(m.ID) })
	text := fyne.CanvasObject(wrapped(m.Content))
	if m.Sensitive() {
		text = widget.NewLabel(masked + ": Open shows it")
	}
	info := widget.NewForm(
		widget.NewFormItem("Stored in", widget.NewLabel(fmt.Sprintf("%s (%s, %s)", m.Partition, orDash(string(m.Field)), m.Tier))),
		widget.NewFormItem("Written by", wrapped(who(m.Owner)+", memory "+m.ID)),
		widget.NewFormItem("Trust", wrapped(trustText(m.Trust))),
	)
	s.box.Objects = []fyne.CanvasObject{
		heading("Questioned by " + questioners(m)),
		container.NewHBox(confirm, refute, open),
		wrapped("Confirm keeps it and restores its confidence; Refute archives it at the next sweep, with your evidence as its note. " + effect),
		heading("The questions"), wrapped(strings.Join(lines, "\n")),
		heading("The memory"), text, info,
	}
	s.box.Refresh()
	s.scroll.ScrollToTop()
}

// confirmQuestioned is the user's confirmation of m, which ends its
// questions.
func (s *quarantineScreen) confirmQuestioned(m *app.Memory) {
	s.verdict(m, "confirmed", func() app.MemoryResponse {
		return s.u.h.Service().Confirm(s.u.ctx, s.u.h.Operator(), m.ID, "confirmed in the review")
	})
}

// refuteQuestioned asks for the evidence that shows m wrong (there must
// be some), then records the user's refutation, which ends its questions.
func (s *quarantineScreen) refuteQuestioned(m *app.Memory) {
	e := multiLineEntry(s.u)
	e.SetPlaceHolder("what shows it is wrong (kept as the archive note)")
	check := func() string {
		if strings.TrimSpace(e.Text) == "" {
			return "Say what shows it is wrong: a refutation needs its evidence."
		}
		return ""
	}
	s.u.checkedFormDialog("Refute this memory", "Refute", []*widget.FormItem{widget.NewFormItem("Evidence", e)}, fyne.NewSize(560, 280), e, check, func() {
		evidence := e.Text
		s.verdict(m, "refuted", func() app.MemoryResponse {
			return s.u.h.Service().Refute(s.u.ctx, s.u.h.Operator(), m.ID, evidence)
		})
	})
}

// verdict runs the user's verdict on a questioned memory in the
// background, says it, and reloads the review (where the memory that
// took its place is shown).
func (s *quarantineScreen) verdict(m *app.Memory, what string, run func() app.MemoryResponse) {
	s.u.h.Touch()
	s.qnext = memIndex(s.questions.data, m)
	var r app.MemoryResponse
	s.u.background(func() error { r = run(); return nil }, func(error) {
		if s.u.showResponse(r.Response) {
			s.u.setStatus(fmt.Sprintf("%q: %s", memoryTitle(m), what))
			s.refresh()
			if s.u.memories != nil {
				s.u.memories.refresh()
			}
		}
	})
}

// memIndex is the index of the memory m in ms, or -1 (also for no m).
func memIndex(ms []app.Memory, m *app.Memory) int {
	for i := range ms {
		if m != nil && ms[i].ID == m.ID {
			return i
		}
	}
	return -1
}
