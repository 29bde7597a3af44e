package devsync

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/vault"
)

// Status is what engram sync status and the app's Settings show.
type Status struct {
	Device   string    `json:"device"`
	Name     string    `json:"name"`
	Folder   string    `json:"folder"`
	Seq      uint64    `json:"segments_written"`
	LastSync time.Time `json:"last_sync"`
	Revoked  bool      `json:"revoked,omitempty"`
	// Pending counts the memories changed here since the last segment.
	Pending int `json:"pending"`
	// Conflicts counts the sync-conflict items waiting in the quarantine.
	Conflicts int      `json:"conflicts"`
	Devices   []Device `json:"devices"`
}

// Device is another device as this one knows it.
type Device struct {
	Device string `json:"device"`
	Name   string `json:"name"`
	// Applied is the last of its segments applied here; Available the
	// highest number present in the folder.
	Applied   uint64 `json:"applied"`
	Available uint64 `json:"available"`
	// Waiting says what holds its segments up, if anything: a refused
	// segment, or one missing while later ones are there.
	Waiting   string    `json:"waiting,omitempty"`
	Refused   int       `json:"refused"`
	Revoked   bool      `json:"revoked,omitempty"`
	Upto      uint64    `json:"revoked_after,omitempty"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
}

// State says in a few words where d stands here: revoked after which
// segment, what holds its segments up (Waiting), or up to date. The
// command line and the app's Settings both show it.
func (d Device) State() string {
	switch {
	case d.Revoked:
		return fmt.Sprintf("revoked after segment %d", d.Upto)
	case d.Waiting != "":
		return d.Waiting
	}
	return "up to date"
}

// Refused is how many segments were refused, from all devices.
func (st Status) Refused() int {
	n := 0
	for _, d := range st.Devices {
		n += d.Refused
	}
	return n
}

// Status reports this device's sync. It needs the vault unlocked.
func (s *Syncer) Status() (Status, error) {
	if err := checkUnlocked(s.v); err != nil {
		return Status{}, err
	}
	me, err := s.loadSelf()
	if err != nil {
		return Status{}, err
	}
	st := Status{Device: me.Device, Name: me.Name, Folder: me.Folder, Seq: me.Seq, LastSync: me.LastSync, Revoked: me.Revoked}
	log, err := s.v.AuditLog(vault.AuditFilter{AfterSeq: me.AuditSeq})
	if err != nil {
		return Status{}, err
	}
	changed := map[string]bool{}
	for _, e := range log {
		if e.MemoryID != "" && e.Result == vault.ResultOK && changeActions[e.Action] && !isSyncAgent(e.Agent) {
			changed[e.MemoryID] = true
		}
	}
	st.Pending = len(changed)
	recs, _, err := s.v.QueueList()
	if err != nil {
		return Status{}, err
	}
	for _, rec := range recs {
		if it, err := quarantine.Decode(rec.Data); err == nil && it.Kind == quarantine.KindSyncConflict {
			st.Conflicts++
		}
	}
	peers, err := s.loadPeers()
	if err != nil {
		return Status{}, err
	}
	dirs, _ := deviceDirs(me.Folder, me.Device)
	for _, d := range dirs {
		if peers[d] == nil {
			peers[d] = &peer{Device: d}
		}
	}
	for _, p := range peers {
		dv := Device{Device: p.Device, Name: p.Name, Applied: p.Seq, Refused: p.Refused, Revoked: p.Revoked, Upto: p.Upto, FirstSeen: p.FirstSeen, LastSeen: p.LastSeen}
		dv.Available = highestSeq(me.Folder, p.Device)
		switch {
		case p.Refusal != "":
			dv.Waiting = "refused " + p.Refusal
		case dv.Available > p.Seq && !p.Revoked:
			if _, err := os.Stat(segPath(me.Folder, p.Device, p.Seq+1)); err != nil {
				dv.Waiting = "segment " + segName(p.Seq+1) + " is missing (withheld, deleted, or still arriving)"
			} else {
				dv.Waiting = "not applied yet"
			}
		}
		st.Devices = append(st.Devices, dv)
	}
	slices.SortFunc(st.Devices, func(a, b Device) int {
		if a.Device < b.Device {
			return -1
		}
		if a.Device > b.Device {
			return 1
		}
		return 0
	})
	return st, nil
}

// highestSeq is the highest segment number of device in the folder.
func highestSeq(folder, device string) uint64 {
	ents, err := os.ReadDir(filepath.Join(root(folder), device))
	if err != nil {
		return 0
	}
	var top uint64
	for _, e := range ents {
		if n, ok := seqOf(e.Name()); ok && n > top {
			top = n
		}
	}
	return top
}

// Configured reports whether this vault syncs with a folder, and which.
// It needs the vault unlocked (the state is sealed).
func (s *Syncer) Configured() (folder string, ok bool) {
	me, err := s.loadSelf()
	if err != nil {
		return "", false
	}
	return me.Folder, !me.Revoked
}

// lowestSeqAfter is the lowest segment number of device in the folder
// that is above after, or 0.
func lowestSeqAfter(folder, device string, after uint64) uint64 {
	ents, err := os.ReadDir(filepath.Join(root(folder), device))
	if err != nil {
		return 0
	}
	var low uint64
	for _, e := range ents {
		if n, ok := seqOf(e.Name()); ok && n > after && (low == 0 || n < low) {
			low = n
		}
	}
	return low
}
