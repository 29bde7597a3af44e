package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/host"
)

// TestMemoryTextTakesTheWidthAndShowsWholeOnHover: at the window's size
// the memory's text column is the widest by far (340 pixels or more;
// 268 before), and the pointer over a row's text shows the whole text in a
// tip, gone when it leaves; a sensitive row shows none.
func TestMemoryTextTakesTheWidthAndShowsWholeOnHover(t *testing.T) {
	u, _ := openUI(t)
	long := "the release checklist lives in docs/RELEASING.md and needs two reviewers, a signed tag and the changelog entry written by hand, then the announcement goes out"
	store(t, u, u.h.Operator(), app.StoreInput{Content: "my locker combination is left 12 right 30", Partition: "sensitive"})
	store(t, u, u.h.Operator(), app.StoreInput{Content: long})
	s := u.memories
	s.refresh()
	u.win.Resize(fyne.NewSize(1100, 720))
	var cells []*tipCell
	find(s.rows.view, func(c *tipCell) bool { cells = append(cells, c); return false })
	if len(cells) < 2 {
		t.Fatalf("%d text cells shown, want 2", len(cells))
	}
	if w, list := cells[0].Size().Width, s.rows.view.Size().Width; w < 340 {
		t.Fatalf("the memory text is %.0f pixels of the list's %.0f", w, list)
	}
	var plain, secret *tipCell
	for _, c := range cells {
		if c.tip == long {
			plain = c
		}
		if l := c.content.(*markedLine); len(l.segs) > 0 && l.segs[0].Text == maskedPreview {
			secret = c
		}
	}
	if plain == nil || secret == nil {
		t.Fatal("no row with the long text's tip, or no masked row")
	}
	plain.MouseIn(&desktop.MouseEvent{PointEvent: fyne.PointEvent{AbsolutePosition: fyne.NewPos(700, 200)}})
	if !u.tip.box.Visible() || u.tip.text.Text != long {
		t.Fatalf("hovering the text shows %q (visible %v), want the whole text", u.tip.text.Text, u.tip.box.Visible())
	}
	if p, sz := u.tip.box.Position(), u.tip.box.Size(); p.X+sz.Width > 1100 || sz.Width > tipWidth {
		t.Errorf("the tip at %v size %v leaves the window", p, sz)
	}
	plain.MouseOut()
	if u.tip.box.Visible() {
		t.Fatal("the tip stays after the pointer left")
	}
	secret.MouseIn(&desktop.MouseEvent{PointEvent: fyne.PointEvent{AbsolutePosition: fyne.NewPos(700, 240)}})
	if u.tip.box.Visible() || strings.Contains(u.tip.text.Text, "locker") {
		t.Fatal("a sensitive row shows a tip")
	}
}

// TestSortArrowFitsItsColumn: a header with its sort arrow fits its
// column, so the arrow never overlaps the next header.
func TestSortArrowFitsItsColumn(t *testing.T) {
	u, _ := openUI(t)
	s := u.memories
	for i, o := range s.headers.Objects[:len(memColumns)] {
		b := o.(*widget.Button)
		b.Icon = theme.MoveDownIcon()
		b.Refresh()
		if w := b.MinSize().Width; w > memColumns[i] {
			t.Errorf("the %q header with its arrow needs %.0f pixels, its column has %.0f", b.Text, w, memColumns[i])
		}
	}
}

// TestRefusalIsToldForTheUser: an agent's refused write is told to the
// user in the user's words (the agent named, no advice to the agent),
// and a click on the status line leads to the refusal in the audit log.
func TestRefusalIsToldForTheUser(t *testing.T) {
	u, notes := openUI(t)
	r := u.h.Service().Store(t.Context(), agent, app.StoreInput{Content: "the project uses Go 1.27", Tier: "semantic"})
	if r.Status != app.StatusConfirmationRequired {
		t.Fatalf("an agent's semantic write: %s", r.Status)
	}
	log := u.h.Service().Audit(t.Context(), u.h.Operator(), app.AuditInput{Last: 1})
	seq := log.Entries[len(log.Entries)-1].Seq
	u.onEvent(host.Event{Rejected: []host.SessionRef{{Agent: "claude-code", Session: "s1", Seq: seq}}})
	got := notes.all()
	if len(got) != 1 {
		t.Fatalf("notifications %q, want one", got)
	}
	for _, text := range []string{got[0], u.status.Text} {
		if !strings.Contains(text, "claude-code") || strings.Contains(text, "[Engram]") || strings.Contains(text, "yourself") || strings.Contains(text, "this session") {
			t.Errorf("the refusal is told as %q: want the agent named, no words for the agent", text)
		}
	}
	test.Tap(u.status)
	dlg := u.win.Canvas().Overlays().Top()
	if dlg == nil {
		t.Fatal("a click on the status line shows nothing")
	}
	test.Tap(button(t, dlg, "Show it in the audit log"))
	if u.tabs.SelectedIndex() != 3 || u.audit.agent.Text != "claude-code" || u.audit.sel.Seq != seq {
		t.Fatalf("the audit log: tab %d, agent %q, selected #%d; want tab 3, claude-code, #%d", u.tabs.SelectedIndex(), u.audit.agent.Text, u.audit.sel.Seq, seq)
	}
}

// TestSettingsCannotBeLost: an edit shows "Unsaved changes" (and on the
// tab) with Apply and Revert enabled, in a bar outside the scrolled form
// so they are always in view; Apply saves and clears the marker; Revert
// brings back the settings in force.
func TestSettingsCannotBeLost(t *testing.T) {
	u, _ := openUI(t)
	s := u.settings
	border := s.content.(*fyne.Container)
	var scroll *container.Scroll
	for _, o := range border.Objects {
		if sc, ok := o.(*container.Scroll); ok {
			scroll = sc
		}
	}
	if scroll == nil {
		t.Fatal("the settings form does not scroll")
	}
	if _, inside := find(scroll.Content, func(b *widget.Button) bool { return b == s.apply }); inside {
		t.Fatal("Apply scrolls away with the form")
	}
	if s.unsaved.Visible() || !s.apply.Disabled() {
		t.Fatal("a fresh form says it has unsaved changes")
	}
	s.autoLock.SetText("5")
	if !s.unsaved.Visible() || s.apply.Disabled() || s.revert.Disabled() || u.tabs.Items[4].Text != "Settings (unsaved)" {
		t.Fatalf("an edit: marker %v, Apply enabled %v, tab %q", s.unsaved.Visible(), !s.apply.Disabled(), u.tabs.Items[4].Text)
	}
	test.Tap(s.apply)
	if u.h.Settings().AutoLockMinutes != 5 || s.unsaved.Visible() || u.tabs.Items[4].Text != "Settings" {
		t.Fatalf("after Apply: auto-lock %d, marker %v, tab %q", u.h.Settings().AutoLockMinutes, s.unsaved.Visible(), u.tabs.Items[4].Text)
	}
	s.autoLock.SetText("7")
	test.Tap(s.revert)
	if s.autoLock.Text != "5" || s.unsaved.Visible() {
		t.Fatalf("after Revert: auto-lock field %q, marker %v", s.autoLock.Text, s.unsaved.Visible())
	}
}
