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

// L3 access records (audit entries about the sensitive partition) past
// their retention are kept until the user approves their removal: the
// sweep only proposes it. The app shows the proposal in the tray menu
// and on the Audit screen, notifies it once, and asks before removing,
// keeping them by default.

// l3Proposal is the removal the sweep proposes: due records written
// before before.
type l3Proposal struct {
	due    int
	before time.Time
}

// title is the question put to the user.
func (p l3Proposal) title() string {
	return fmt.Sprintf("Remove %s older than %s?", count(p.due, "sensitive-access record", "sensitive-access records"), p.before.Local().Format("2 January 2006"))
}

// checkL3 reads what the sweep proposes as of now and shows it.
func (u *UI) checkL3() {
	if u.h == nil || !u.isOpen() {
		return
	}
	h, now := u.h, u.now()
	var r app.L3DueResponse
	u.background(func() error { r = h.Service().L3Due(u.ctx, h.Operator(), now, app.DefaultAuditRetention); return nil }, func(error) {
		if !r.OK() {
			return // the next sweep asks again
		}
		u.setL3(l3Proposal{due: r.Due, before: r.Before})
	})
}

// setL3 shows the proposal p (none when p.due is 0) in the tray and on
// the Audit screen.
func (u *UI) setL3(p l3Proposal) {
	u.tray.setL3(p)
	if u.audit != nil {
		u.audit.setL3(p)
	}
}

// askL3 asks whether to remove the records p proposes; the default keeps
// them. Approving removes them (app.Service.PruneL3).
func (u *UI) askL3(p l3Proposal) {
	if p.due == 0 {
		return
	}
	body := wrapped("They record which agents read or wrote the sensitive partition, and when. Engram keeps them until you approve their removal; the audit chain still verifies from its checkpoint after it.")
	d := u.askSafe(p.title(), body, "Keep them", "Remove them", theme.DeleteIcon(), func() { u.pruneL3() })
	d.Resize(fyne.NewSize(560, 0))
}

// pruneL3 removes the L3 access records past their retention, and the
// audit entries past the audit retention before them.
func (u *UI) pruneL3() {
	u.h.Touch()
	h, now := u.h, u.now()
	var r app.PruneResponse
	u.background(func() error { r = h.Service().PruneL3(u.ctx, h.Operator(), now, app.DefaultAuditRetention); return nil }, func(error) {
		if u.showResponse(r.Response) {
			u.setStatus(fmt.Sprintf("Removed %s from the audit log", count(r.Pruned, "entry", "entries")))
			u.checkL3()
			if u.audit != nil {
				u.audit.refresh()
			}
		}
	})
}

// setL3 shows the proposal on the Audit screen, above the log, or
// nothing when there is none.
func (s *auditScreen) setL3(p l3Proposal) {
	s.l3 = p
	if p.due == 0 {
		s.l3box.Objects = nil
		s.l3box.Refresh()
		return
	}
	text := fmt.Sprintf("%s past their retention: %s",
		count(p.due, "sensitive-access record is", "sensitive-access records are"),
		"Engram keeps them until you approve their removal.")
	remove := widget.NewButtonWithIcon("Remove them…", theme.DeleteIcon(), func() { s.u.askL3(s.l3) })
	s.l3box.Objects = []fyne.CanvasObject{container.NewBorder(nil, nil, nil, remove, wrapped(text))}
	s.l3box.Refresh()
}

// setL3 puts the proposal in the open menu, before its separator, and
// notifies it when it first appears.
func (t *tray) setL3(p l3Proposal) {
	if t == nil {
		return
	}
	t.l3 = p
	items := make([]*fyne.MenuItem, 0, len(t.open.Items))
	for _, it := range t.open.Items {
		if it != t.l3Item {
			items = append(items, it)
		}
	}
	if p.due > 0 {
		t.l3Item.Label = strings.TrimSuffix(p.title(), "?") + "…"
		at := len(items) - 2 // before the separator and Quit
		items = append(items[:at], append([]*fyne.MenuItem{t.l3Item}, items[at:]...)...)
		if !t.l3Told {
			t.l3Told = true
			t.u.notify("Engram proposes removing old sensitive-access records", p.title()+" They stay until you approve it, from the tray or the Audit log.")
		}
	} else {
		t.l3Told = false
	}
	t.open.Items = items
	t.update()
}
