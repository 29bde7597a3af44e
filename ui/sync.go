package ui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/data/binding"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app/devsync"
)

// syncSection is Settings' "Sync across devices": what 'engram sync
// status' says (devsync computes it, the host reads it), read off the UI
// goroutine when Settings is built or shown and whenever the host says
// an exchange ran, with the user's actions: Sync now, and Revoke… on
// each other device.
type syncSection struct {
	u       *UI
	content fyne.CanvasObject
	// state says whether this vault syncs (or, when not, how to set it
	// up); the other rows show only while it does.
	state                                             *widget.Label
	folder, device, last, pending, conflicts, refused binding.String
	rows                                              []fyne.CanvasObject
	devices                                           *fyne.Container
	syncNow                                           *widget.Button
	result                                            *widget.Label
	// reading is set while a status read runs; again asks for one more
	// when it ends (events come faster than reads at times).
	reading, again bool
}

// notSetUp is what Settings says of a vault that does not sync.
const notSetUp = "This vault does not sync with other devices. To keep it on several, choose a folder that Syncthing, Dropbox, iCloud Drive or another file-sync tool keeps in step between them; run 'engram sync setup FOLDER' here, then 'engram sync join FOLDER' on each other device (it asks for this vault's passphrase)."

func newSyncSection(u *UI, col *labelColumn) *syncSection {
	s := &syncSection{u: u, state: wrapped(""), devices: container.NewVBox(), result: wrapped("")}
	bound := func() (binding.String, *widget.Label) {
		b := binding.NewString()
		l := widget.NewLabelWithData(b)
		l.Wrapping = fyne.TextWrapWord
		return b, l
	}
	var folder, device, last, pending, conflicts, refused *widget.Label
	s.folder, folder = bound()
	s.device, device = bound()
	s.last, last = bound()
	s.pending, pending = bound()
	s.conflicts, conflicts = bound()
	s.refused, refused = bound()
	s.syncNow = widget.NewButtonWithIcon("Sync now", theme.ViewRefreshIcon(), s.now)
	s.rows = []fyne.CanvasObject{
		col.row("Folder", folder),
		col.row("This device", device),
		col.row("Last exchange", last),
		col.row("Waiting here", pending),
		col.row("Conflicts", conflicts),
		col.row("Refused segments", refused),
		col.row("Other devices", s.devices),
		col.row("", container.NewBorder(nil, nil, s.syncNow, nil, s.result)),
	}
	box := container.NewVBox(heading("Sync across devices"), col.row("Status", s.state))
	for _, r := range s.rows {
		box.Add(r)
	}
	s.content = box
	s.setUp(false)
	s.refresh()
	return s
}

// setUp shows the rows of a vault that syncs, or hides them.
func (s *syncSection) setUp(on bool) {
	for _, r := range s.rows {
		if on {
			r.Show()
		} else {
			r.Hide()
		}
	}
}

// refresh reads the status off the UI goroutine and shows it.
func (s *syncSection) refresh() {
	if s.reading {
		s.again = true
		return
	}
	h := s.u.h
	if h == nil {
		return
	}
	s.reading = true
	var st devsync.Status
	var err error
	s.u.background(func() error {
		st, err = h.SyncStatus()
		return nil
	}, func(error) {
		s.reading = false
		s.show(st, err)
		if s.again {
			s.again = false
			s.refresh()
		}
	})
}

// show fills the section from a status read (err from the read).
func (s *syncSection) show(st devsync.Status, err error) {
	s.state.Importance = widget.MediumImportance
	switch {
	case errors.Is(err, devsync.ErrNotSetUp):
		s.state.SetText(notSetUp)
		s.setUp(false)
		return
	case err != nil:
		s.state.Importance = widget.DangerImportance
		s.state.SetText("The sync status could not be read: " + err.Error())
		s.setUp(false)
		return
	case st.Revoked:
		s.state.Importance = widget.DangerImportance
		s.state.SetText("This device was revoked on another device: it no longer syncs. What it holds stays here.")
	default:
		s.state.SetText("On: while Engram runs it exchanges on its own whenever this vault or the folder changed.")
	}
	s.setUp(true)
	s.folder.Set(st.Folder)
	s.device.Set(fmt.Sprintf("%s (%s), %s written", deviceName(st.Name), shortDevice(st.Device), plural(int(st.Seq), "segment", "segments")))
	s.last.Set(syncTime(st.LastSync))
	s.pending.Set(counted(st.Pending, "memory changed here waits for the next exchange", "memories changed here wait for the next exchange"))
	s.conflicts.Set(counted(st.Conflicts, "waiting in the Quarantine", "waiting in the Quarantine"))
	s.refused.Set(counted(st.Refused(), "segment refused: it failed its checks and nothing of it was applied (see its device below)", "segments refused: they failed their checks and nothing of them was applied (see their devices below)"))
	s.devices.RemoveAll()
	for _, d := range st.Devices {
		s.devices.Add(s.deviceRow(d))
	}
	if len(st.Devices) == 0 {
		s.devices.Add(wrapped("None has joined yet: run 'engram sync join " + st.Folder + "' on the other device."))
	}
}

// deviceRow shows one other device, with Revoke… while it is not.
func (s *syncSection) deviceRow(d devsync.Device) fyne.CanvasObject {
	l := wrapped(fmt.Sprintf("%s (%s): %s; applied %d of %d, last seen %s, %d refused", deviceName(d.Name), shortDevice(d.Device), d.State(), d.Applied, d.Available, syncTime(d.LastSeen), d.Refused))
	if d.Waiting != "" {
		l.Importance = widget.WarningImportance
	}
	if d.Revoked {
		return l
	}
	revoke := widget.NewButtonWithIcon("Revoke…", theme.DeleteIcon(), func() { s.askRevoke(d) })
	return container.NewBorder(nil, nil, nil, revoke, l)
}

// askRevoke asks before revoking d; Cancel is the default.
func (s *syncSection) askRevoke(d devsync.Device) {
	u := s.u
	u.h.Touch()
	name := fmt.Sprintf("%s (%s)", deviceName(d.Name), shortDevice(d.Device))
	msg := wrapped(fmt.Sprintf("This vault stops applying what %s writes after its segment %d, and tells the other devices to stop at the same point. "+
		"Revoking cannot take back the vault key it holds: it can still read what is written later. To cut it off for good, make a new vault (export, create, import) and set up sync again.", name, d.Applied))
	u.askSafe("Revoke "+name+"?", msg, "Cancel", "Revoke", theme.DeleteIcon(), func() {
		h := u.h
		u.background(func() error { return h.RevokeDevice(u.ctx, d.Device) }, func(err error) {
			if err != nil {
				u.showError(err)
			} else {
				s.say(name+" is revoked.", widget.SuccessImportance)
			}
			s.refresh()
		})
	})
}

// now exchanges with the folder and says what it did.
func (s *syncSection) now() {
	u := s.u
	u.h.Touch()
	h := u.h
	s.syncNow.Disable()
	var r devsync.Report
	u.background(func() (err error) {
		r, err = h.SyncNow(u.ctx)
		return err
	}, func(err error) {
		s.syncNow.Enable()
		if err != nil {
			s.say("Not synced: "+err.Error(), widget.DangerImportance)
		} else {
			s.say(reportText(r), widget.SuccessImportance)
		}
		s.refresh()
	})
}

// say shows a result beside Sync now.
func (s *syncSection) say(text string, imp widget.Importance) {
	s.result.Importance = imp
	s.result.SetText(text)
}

// reportText says what one exchange did.
func reportText(r devsync.Report) string {
	t := fmt.Sprintf("Sent %s; applied %s: %s changed, %d removed, %s to review.",
		plural(r.Sent, "change", "changes"), plural(r.Applied, "segment", "segments"), plural(r.Changed, "memory", "memories"), r.Removed, plural(r.Conflicts, "conflict", "conflicts"))
	if n := len(r.Refused); n > 0 {
		t += " " + plural(n, "segment was", "segments were") + " refused."
	}
	return t
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// counted is "none" for 0, else n and the words.
func counted(n int, one, many string) string {
	if n == 0 {
		return "none"
	}
	return plural(n, one, many)
}

// syncTime shows a time as 'engram sync status' does, or "never".
func syncTime(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Local().Format(time.DateTime)
}

func shortDevice(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func deviceName(name string) string {
	if strings.TrimSpace(name) == "" {
		return "unnamed device"
	}
	return name
}
