package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/vault"
)

// SweepAction is one thing a sweep did.
type SweepAction struct {
	ID     string `json:"id"`
	Action string `json:"action"` // archive or purge
	Reason string `json:"reason"`
}

// SweepResponse reports a sweep.
type SweepResponse struct {
	Response
	Actions       []SweepAction `json:"actions"`
	Archived      int           `json:"archived"`
	Purged        int           `json:"purged"`
	SkippedLocked int           `json:"skipped_locked,omitempty"` // sealed memories not seen while locked
	HostilePurged int           `json:"hostile_purged,omitempty"`
	AuditPruned   int           `json:"audit_pruned,omitempty"`
	// L3Proposed counts the L3 access records past the sensitive
	// retention: the sweep proposes their removal and keeps them until
	// the user approves it (Service.PruneL3, engram audit prune --l3).
	L3Proposed int `json:"l3_removal_proposed,omitempty"`
	// Compacted is set when purges were followed by a compaction of the
	// file, with its size before and after.
	Compacted   bool  `json:"compacted"`
	BytesBefore int64 `json:"bytes_before,omitempty"`
	BytesAfter  int64 `json:"bytes_after,omitempty"`
}

// recordOf maps a stored memory to the decay rules' view of it.
func recordOf(m *vault.Memory) decay.Record {
	r := decay.Record{
		Kind: decay.Kind(m.Kind), Tier: decay.Tier(m.Tier), Field: string(m.Field),
		AgentWritten: m.Owner != vault.AgentOperator,
		UserSaved:    m.Owner == vault.AgentOperator && (m.Source.Type == vault.SourceExplicitSave || m.Source.Type == vault.SourceUserMessage),
		Pinned:       m.Pinned, Sensitive: m.Sensitive(), Initial: m.Confidence,
		Created: m.Created, Accessed: m.Accessed,
	}
	// The user's confirmation restarts TTL and confidence. Since then,
	// each agent's confirmation counts as a verification (+0.1) and each
	// merged duplicate as an observation, once per agent: an agent cannot
	// raise a memory's confidence by confirming or rewriting it again and
	// again. A writer's confirmation of its own memory is no evidence and
	// does not count; its writing the same again in a later session
	// counts once, as any other writer's. A refutation stands until the
	// user's next confirmation (a restore records one); an agent's report
	// that a memory is wrong (its QUESTIONED, see Refute and Question)
	// changes nothing here, and the user's standing question halves the
	// initial confidence (QuestionedBy, QuestionFactor).
	confirmedBy, observedBy := map[string]bool{}, map[string]bool{}
	for _, v := range m.Provenance.Verifications {
		switch v.Verdict {
		case vault.Confirmed:
			switch {
			case v.Agent == vault.AgentOperator:
				r = decay.Reconfirm(r, v.Time)
				r.Refuted = false
				clear(confirmedBy)
				clear(observedBy)
			case v.Agent != m.Owner && !confirmedBy[v.Agent]:
				confirmedBy[v.Agent] = true
				r.Verifications++
			}
		case vault.Refuted:
			r.Refuted, r.RefutedNote = true, v.Evidence
		case vault.Observed:
			if !observedBy[v.Agent] {
				observedBy[v.Agent] = true
				r.Observations++
			}
		}
	}
	if _, ok := QuestionedBy(m); ok {
		r.Initial *= QuestionFactor // until the user confirms or refutes it
	}
	if m.Expires != nil {
		start := r.Created
		if r.Confirmed.After(start) {
			start = r.Confirmed
		}
		if ttl := m.Expires.Sub(start); ttl > 0 {
			r.TTL = ttl
		}
	}
	if m.Partition == vault.Archive && m.Archive != nil {
		r.Archived, r.ArchivedAt, r.ArchiveReason = true, m.Archive.Time, decay.Reason(m.Archive.Reason)
	}
	return r
}

// Sweep applies the lifecycle rules as of now: decay, expiry, archive and
// purge (package decay decides), then compacts the file if anything was
// purged, purges hostile quarantine copies past their retention and prunes
// the audit log past auditRetention, except L3 access records, whose
// removal it only proposes (L3Proposed). Pinned memories are never touched.
// Sealed memories are only seen while the vault is unlocked; the report
// counts the ones it skipped. Each sweep ends with one lifecycle:sweep
// audit entry counting what it archived and purged by tier and field.
// Operator only.
func (s *Service) Sweep(ctx context.Context, req Request, now time.Time, p decay.Policy, auditRetention time.Duration) SweepResponse {
	return s.life.Sweep(ctx, req, now, p, auditRetention)
}

// Sweep implements Service.Sweep.
func (l *lifecycle) Sweep(ctx context.Context, req Request, now time.Time, p decay.Policy, auditRetention time.Duration) SweepResponse {
	if r, ok := l.operatorGate(req); !ok {
		return SweepResponse{Response: r}
	}
	out := SweepResponse{Response: Response{Status: StatusOK}}
	a := vault.Actor{Agent: vault.AgentOperator, Reason: "sweep"}
	var toArchive []vault.ArchiveRequest
	var toPurge []SweepAction
	// Decide while streaming the vault (a list of 100k memories costs more
	// than the rules). Archives run beside the scan, a thousand per
	// transaction, so reading and writing use both cores; purges wait for
	// the scan (they end in a compaction).
	arch := newArchiver(l.v, l.idx, a)
	counts := map[string]int{} // the summary entry's, see vault.ActionSweep
	purgeKey := map[string]string{}
	hidden, err := l.v.Each(vault.ListFilter{Partitions: vault.AllPartitions, OnDamaged: l.damaged.Skip}, func(m *vault.Memory) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		d := decay.Decide(recordOf(m), now, p)
		if _, ok := QuestionedBy(m); ok && d.Reason == decay.ReasonLowConfidence {
			return nil // a questioned memory keeps its place until the user decides
		}
		switch d.Action {
		case decay.Archive:
			if m.Partition == vault.Archive {
				return nil
			}
			note := string(d.Reason)
			if d.Note != "" {
				note = d.Note
			}
			// The audit entry gets the decay reason; the evidence of a
			// refutation stays with the archived memory (see ArchiveRequest).
			toArchive = append(toArchive, vault.ArchiveRequest{ID: m.ID, Reason: string(d.Reason), Note: note})
			counts["archived/"+string(m.Tier)+"/"+string(m.Field)]++
			out.Actions = append(out.Actions, SweepAction{m.ID, "archive", note})
			if len(toArchive) == archiveBatch {
				arch.queue(toArchive)
				toArchive = nil
			}
		case decay.Purge:
			toPurge = append(toPurge, SweepAction{m.ID, "purge", string(d.Reason)})
			purgeKey[m.ID] = "purged/" + string(m.Tier) + "/" + string(m.Field)
		}
		return nil
	})
	arch.queue(toArchive)
	archived, archErr := arch.wait()
	out.Archived = archived
	if err != nil {
		return SweepResponse{Response: l.fail("sweep", err)}
	}
	if archErr != nil {
		return SweepResponse{Response: l.fail("sweep archive", archErr)}
	}
	out.SkippedLocked = hidden
	for _, act := range toPurge {
		if err := l.v.Purge(act.ID, act.Reason, a); err != nil && !errors.Is(err, vault.ErrNotFound) {
			return SweepResponse{Response: l.fail("sweep purge", err)}
		}
		l.idx.Remove(act.ID)
		counts[purgeKey[act.ID]]++
		out.Purged++
		out.Actions = append(out.Actions, act)
	}
	if n, r := l.PurgeExpiredHostile(ctx, req, now); r.OK() {
		out.HostilePurged = n
	}
	if auditRetention > 0 {
		if n, err := l.v.PruneAudit(now.Add(-auditRetention), time.Time{}); err == nil {
			out.AuditPruned = n
		}
		if n, err := l.l3Due(now, auditRetention); err == nil {
			out.L3Proposed = n
		}
	}
	if out.Purged > 0 || out.HostilePurged > 0 {
		before, after, err := l.v.Compact(ctx)
		if err != nil {
			return SweepResponse{Response: l.fail("sweep compact", err)}
		}
		out.Compacted, out.BytesBefore, out.BytesAfter = true, before, after
	}
	if out.Archived+out.Purged > 0 {
		out.Message = fmt.Sprintf("archived %d, purged %d", out.Archived, out.Purged)
	}
	// One summary entry a sweep, whatever it did: counts, never content.
	if err := l.v.Audit(vault.AuditEntry{Action: vault.ActionSweep, Agent: vault.AgentOperator, Result: vault.ResultOK,
		Reason: "sweep", Count: out.Archived + out.Purged, Counts: counts}); err != nil {
		l.log.Error("audit sweep", "err", err)
	}
	return out
}

// RestoredNote is the evidence of the confirmation a restore records.
const RestoredNote = "restored by the user"

// Restore brings an archived memory back to the partition it came from
// (and into recall). Operator only.
//
// A restore is the user's verdict: it first records the user's
// confirmation (RestoredNote), which stands over any refutation before it
// and restarts the memory's TTL and confidence, so the next sweep does
// not archive it again for the same reason; an agent's later refutation
// is then only its report (see Refute). The confirmation comes first: a
// crash between the two leaves an archived memory the user confirmed,
// never a restored one still refuted.
func (s *Service) Restore(ctx context.Context, req Request, id string) MemoryResponse {
	return s.life.Restore(ctx, req, id)
}

// Restore implements Service.Restore.
func (l *lifecycle) Restore(ctx context.Context, req Request, id string) MemoryResponse {
	if r, ok := l.operatorGate(req); !ok {
		return MemoryResponse{Response: r}
	}
	if cur, err := l.v.Peek(id); err == nil && cur.Partition == vault.Archive {
		if _, err := l.v.Verify(id, vault.Confirmed, RestoredNote, req.actor()); err != nil {
			return MemoryResponse{Response: l.fail("restore", err)}
		}
	}
	m, err := l.v.Restore(id, req.actor())
	if err != nil {
		return MemoryResponse{Response: l.fail("restore", err)}
	}
	l.idx.Put(&m)
	return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &m}
}

// archiveBatch is how many archives share one transaction (one fsync).
const archiveBatch = 1000

// archiver archives batches on its own goroutine while the sweep's scan
// goes on. Its queue never blocks the scan: a write that must grow the
// file waits for the scan's read transaction to end, and a scan blocked
// on that write would never end it.
type archiver struct {
	v       *vault.Vault
	idx     lifecycleIndex
	a       vault.Actor
	mu      sync.Mutex
	pending [][]vault.ArchiveRequest
	more    *sync.Cond
	closed  bool
	done    chan struct{}
	n       int
	err     error
}

func newArchiver(v *vault.Vault, idx lifecycleIndex, a vault.Actor) *archiver {
	ar := &archiver{v: v, idx: idx, a: a, done: make(chan struct{})}
	ar.more = sync.NewCond(&ar.mu)
	go ar.run()
	return ar
}

// queue hands over a batch; the last call (possibly empty) may follow.
func (ar *archiver) queue(batch []vault.ArchiveRequest) {
	if len(batch) == 0 {
		return
	}
	ar.mu.Lock()
	ar.pending = append(ar.pending, batch)
	ar.mu.Unlock()
	ar.more.Signal()
}

// wait closes the queue and returns how many were archived.
func (ar *archiver) wait() (int, error) {
	ar.mu.Lock()
	ar.closed = true
	ar.mu.Unlock()
	ar.more.Signal()
	<-ar.done
	return ar.n, ar.err
}

func (ar *archiver) run() {
	defer close(ar.done)
	for {
		ar.mu.Lock()
		for len(ar.pending) == 0 && !ar.closed {
			ar.more.Wait()
		}
		if len(ar.pending) == 0 {
			ar.mu.Unlock()
			return
		}
		batch := ar.pending[0]
		ar.pending = ar.pending[1:]
		ar.mu.Unlock()
		if ar.err != nil {
			continue // drain: the sweep reports the first error
		}
		n, err := ar.v.ArchiveAll(batch, ar.a)
		ar.n += n
		if err != nil {
			ar.err = err
			continue
		}
		for _, r := range batch {
			ar.idx.Remove(r.ID) // archived memories are out of recall
		}
	}
}

// CurrentConfidence is m's confidence decayed to now, as recall ranks it
// and the sweep judges it.
func CurrentConfidence(m *Memory, now time.Time) float64 {
	return decay.Confidence(recordOf(m), now)
}

// ExpiresAt is when m's time to live ends under p (the sweep then
// archives it), or false when it has none: pinned, semantic, or no TTL.
func ExpiresAt(m *Memory, p decay.Policy) (time.Time, bool) {
	return decay.ExpiresAt(recordOf(m), p)
}
