package app

import (
	"context"
	"errors"
	"fmt"
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
	for _, v := range m.Provenance.Verifications {
		switch v.Verdict {
		case vault.Confirmed:
			// The user's confirmation restarts TTL and confidence; an
			// agent's counts as a verification (+0.1).
			if v.Agent == vault.AgentOperator {
				r.Confirmed, r.Verifications, r.Observations, r.Refuted = v.Time, 0, 0, false
			} else {
				r.Verifications++
			}
		case vault.Refuted:
			r.Refuted, r.RefutedNote = true, v.Evidence
		case vault.Observed:
			r.Observations++
		}
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
// the audit log past auditRetention. Pinned memories are never touched.
// Sealed memories are only seen while the vault is unlocked; the report
// counts the ones it skipped. Operator only.
func (s *Service) Sweep(ctx context.Context, req Request, now time.Time, p decay.Policy, auditRetention time.Duration) SweepResponse {
	if r, ok := s.operatorGate(req); !ok {
		return SweepResponse{Response: r}
	}
	out := SweepResponse{Response: Response{Status: StatusOK}}
	a := vault.Actor{Agent: vault.AgentOperator, Reason: "sweep"}
	var toArchive []vault.ArchiveRequest
	var toPurge []SweepAction
	// Decide while streaming the vault (a list of 100k memories costs more
	// than the rules), act afterwards: the scan is a read transaction.
	hidden, err := s.v.Each(vault.ListFilter{Partitions: []vault.Partition{vault.Public, vault.Internal, vault.Sensitive, vault.Archive}}, func(m *vault.Memory) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		d := decay.Decide(recordOf(m), now, p)
		switch d.Action {
		case decay.Archive:
			if m.Partition == vault.Archive {
				return nil
			}
			note := string(d.Reason)
			if d.Note != "" {
				note = d.Note
			}
			toArchive = append(toArchive, vault.ArchiveRequest{ID: m.ID, Reason: note})
			out.Actions = append(out.Actions, SweepAction{m.ID, "archive", note})
		case decay.Purge:
			toPurge = append(toPurge, SweepAction{m.ID, "purge", string(d.Reason)})
		}
		return nil
	})
	if err != nil {
		return SweepResponse{Response: s.fail("sweep", err)}
	}
	out.SkippedLocked = hidden
	for _, act := range toPurge {
		if err := s.v.Purge(act.ID, act.Reason, a); err != nil && !errors.Is(err, vault.ErrNotFound) {
			return SweepResponse{Response: s.fail("sweep purge", err)}
		}
		s.unindex(act.ID)
		out.Purged++
		out.Actions = append(out.Actions, act)
	}
	// Archive in batches: one transaction (one fsync) per thousand.
	for start := 0; start < len(toArchive); start += 1000 {
		batch := toArchive[start:min(start+1000, len(toArchive))]
		n, err := s.v.ArchiveAll(batch, a)
		if err != nil {
			return SweepResponse{Response: s.fail("sweep archive", err)}
		}
		out.Archived += n
		for _, r := range batch {
			s.unindex(r.ID) // archived memories are out of recall
		}
	}
	if n, r := s.PurgeExpiredHostile(ctx, req, now); r.OK() {
		out.HostilePurged = n
	}
	if auditRetention > 0 {
		if n, err := s.v.PruneAudit(now.Add(-auditRetention)); err == nil {
			out.AuditPruned = n
		}
	}
	if out.Purged > 0 || out.HostilePurged > 0 {
		before, after, err := s.v.Compact(ctx)
		if err != nil {
			return SweepResponse{Response: s.fail("sweep compact", err)}
		}
		out.Compacted, out.BytesBefore, out.BytesAfter = true, before, after
	}
	if out.Archived+out.Purged > 0 {
		out.Message = fmt.Sprintf("archived %d, purged %d", out.Archived, out.Purged)
	}
	return out
}

// Restore brings an archived memory back to the partition it came from
// (and into recall). Operator only.
func (s *Service) Restore(ctx context.Context, req Request, id string) MemoryResponse {
	if r, ok := s.operatorGate(req); !ok {
		return MemoryResponse{Response: r}
	}
	m, err := s.v.Restore(id, req.actor())
	if err != nil {
		return MemoryResponse{Response: s.fail("restore", err)}
	}
	s.index(ctx, &m)
	return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &m}
}
