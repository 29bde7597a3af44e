package host

import (
	"context"
	"slices"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

// Event says what changed. Several flags may be set at once; the UI
// refreshes what they name.
type Event struct {
	Memories   bool // memories were written, changed, archived or removed
	Quarantine bool // the review queue changed
	Agents     bool // an agent was added, paired, paused, revoked or failed to authenticate
	Audit      bool // the audit log grew
	Lock       bool // the vault was locked or unlocked
	Server     bool // the agent API started listening or failed
	Sync       bool // an exchange with the sync folder ran, or a device was revoked (devsync)
	// ScreenWatch is set once the host listens for the screen locking.
	ScreenWatch bool
	// Rejected names agent sessions that had a write rejected, for the
	// session summary notification.
	Rejected []SessionRef
	// Swept is set after a scheduled sweep, with what it did.
	Swept *SweepReport
	// Embedding is set while memories are embedded in the background
	// (after the embedding model changed, or a run was cut short), and
	// once more when that ends.
	Embedding *app.EmbedProgress
}

// SessionRef names one agent session.
type SessionRef struct {
	Agent, Session string
	// Seq is the audit entry of the session's latest refusal.
	Seq uint64
}

// SweepReport is what a scheduled sweep did.
type SweepReport struct {
	Archived, Purged int
	Err              string
}

// Subscribe calls fn for every event, from a background goroutine; fn
// must not block (the UI hands the work to its own loop). It returns a
// function that ends the subscription.
func (h *Host) Subscribe(fn func(Event)) (cancel func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.listeners = append(h.listeners, fn)
	id := len(h.listeners) - 1
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.listeners[id] = nil
	}
}

func (h *Host) emit(e Event) {
	h.mu.Lock()
	ls := slices.Clone(h.listeners)
	h.mu.Unlock()
	for _, fn := range ls {
		if fn != nil {
			fn(e)
		}
	}
}

// classify turns new audit entries into one event.
func classify(entries []vault.AuditEntry) Event {
	e := Event{Audit: len(entries) > 0}
	for _, a := range entries {
		switch a.Action {
		case vault.ActionWrite, vault.ActionUpdate, vault.ActionDelete, vault.ActionRollback,
			vault.ActionPurge, vault.ActionImport, vault.ActionVaultCompact, vault.ActionCompact:
			e.Memories = true
		case vault.ActionQuarantine, vault.ActionDismiss, vault.ActionDiscard:
			e.Quarantine = true
		case vault.ActionApprove:
			e.Quarantine, e.Memories = true, true
		case vault.ActionAgent, vault.ActionAuthFail:
			e.Agents = true
		case vault.ActionReject:
			if a.Agent != vault.AgentOperator {
				i := slices.IndexFunc(e.Rejected, func(r SessionRef) bool { return r.Agent == a.Agent && r.Session == a.Session })
				if i < 0 {
					e.Rejected = append(e.Rejected, SessionRef{Agent: a.Agent, Session: a.Session})
					i = len(e.Rejected) - 1
				}
				e.Rejected[i].Seq = a.Seq
			}
			// A hostile write leaves a forensic copy in the queue.
			e.Quarantine = true
		}
	}
	return e
}

// watch follows the audit chain's head and emits what changed. Every
// operation in the vault is audited, so the chain is a complete change
// feed that needs no hooks in the service.
func (h *Host) watch(ctx context.Context, every time.Duration) {
	last, err := h.v.AuditHead()
	if err != nil {
		h.cfg.Log.Error("audit watcher", "err", err)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	var embedding app.EmbedProgress
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		last = h.poll(last)
		embedding = h.pollEmbedding(embedding)
	}
}

// pollEmbedding emits the background embedding's progress when it moved
// since last, and returns it. Loading the stored vectors at start is not
// news; embedding memories is (Total > 0).
func (h *Host) pollEmbedding(last app.EmbedProgress) app.EmbedProgress {
	p := h.svc.EmbedProgress()
	if p != last && max(p.Total, last.Total) > 0 {
		h.emit(Event{Embedding: &p})
	}
	return p
}

// poll emits the event for entries after seq and returns the new head.
func (h *Host) poll(seq uint64) uint64 {
	head, err := h.v.AuditHead()
	if err != nil || head == seq {
		return seq
	}
	if head < seq { // pruned or compacted below us: start again from here
		h.emit(Event{Audit: true, Memories: true, Quarantine: true, Agents: true})
		return head
	}
	entries, err := h.v.AuditLog(vault.AuditFilter{AfterSeq: seq})
	if err != nil {
		h.cfg.Log.Error("audit watcher", "err", err)
		return seq
	}
	if ev := classify(entries); ev.Audit {
		h.emit(ev)
	}
	return head
}

// schedule runs the lifecycle sweep shortly after start and then every
// SweepHours, and locks the vault after AutoLock of user inactivity.
func (h *Host) schedule(ctx context.Context) {
	const tick = 5 * time.Second
	t := time.NewTicker(tick)
	defer t.Stop()
	nextSweep := h.cfg.Now().Add(time.Minute)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := h.cfg.Now()
		h.autoLock(now)
		if !now.Before(nextSweep) {
			h.sweep(ctx, now)
			nextSweep = now.Add(time.Duration(h.Settings().SweepHours) * time.Hour)
		}
	}
}

// autoLock locks the vault when the user has been idle for the setting's
// duration. It reports whether it locked.
func (h *Host) autoLock(now time.Time) bool {
	d := h.Settings().AutoLock()
	if h.cfg.NoAutoLock {
		d = 0
	}
	h.mu.Lock()
	idle := now.Sub(h.lastActivity)
	h.mu.Unlock()
	if d <= 0 || idle < d || h.v.Locked() {
		return false
	}
	h.cfg.Log.Info("auto-lock", "idle", idle.Round(time.Second).String())
	h.Lock()
	return true
}

// Sweep runs the lifecycle sweep now and reports it as an event too.
func (h *Host) Sweep(ctx context.Context) SweepReport { return h.sweep(ctx, h.cfg.Now()) }

func (h *Host) sweep(ctx context.Context, now time.Time) SweepReport {
	r := h.svc.Sweep(ctx, h.Operator(), now, h.Settings().decayPolicy(), app.DefaultAuditRetention)
	rep := SweepReport{Archived: r.Archived, Purged: r.Purged}
	if !r.OK() {
		rep.Err = r.Message
	}
	h.emit(Event{Swept: &rep})
	return rep
}
