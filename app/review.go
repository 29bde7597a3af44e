package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/vault"
)

// QueueItem is a quarantined write as the review screen sees it.
type QueueItem = quarantine.Item

// QueueResponse lists the review queue.
type QueueResponse struct {
	Response
	Items []QueueItem `json:"items"`
	// Hidden counts sealed items not shown while the vault is locked.
	Hidden int `json:"hidden,omitempty"`
}

// Quarantine lists the review queue, oldest first, guardian proposals
// refreshed against the current memories. Operator only.
func (s *Service) Quarantine(ctx context.Context, req Request) QueueResponse {
	return s.rv.Quarantine(ctx, req)
}

// Quarantine is Service.Quarantine's work.
func (s *reviewer) Quarantine(ctx context.Context, req Request) QueueResponse {
	if r, ok := s.operatorGate(req); !ok {
		return QueueResponse{Response: r}
	}
	recs, hidden, err := s.v.QueueList()
	if err != nil {
		return QueueResponse{Response: s.fail("quarantine list", err)}
	}
	var items []QueueItem
	// The live memories of each field, listed and split into words once
	// for all the items of that field.
	reviews := map[vault.Field]quarantine.Review{}
	for _, rec := range recs {
		it, err := quarantine.Decode(rec.Data)
		if err != nil {
			s.log.Error("quarantine item", "id", rec.ID, "err", err)
			continue
		}
		if it.State == quarantine.Pending {
			r, ok := reviews[it.Memory.Field]
			if !ok {
				existing, _, _ := s.v.List(vault.ListFilter{Field: it.Memory.Field, OnDamaged: s.damaged.Skip})
				r = quarantine.NewReview(existing)
				reviews[it.Memory.Field] = r
			}
			it.Proposal, it.Guardian = quarantine.Guardian(it, r)
		}
		items = append(items, *it)
	}
	slices.SortFunc(items, func(a, b QueueItem) int { return a.Created.Compare(b.Created) })
	return QueueResponse{Response: Response{Status: StatusOK}, Items: items, Hidden: hidden}
}

// QueueItemResponse returns one queue item.
type QueueItemResponse struct {
	Response
	Item *QueueItem `json:"item,omitempty"`
}

// QuarantineItem returns one queue item. Operator only.
func (s *Service) QuarantineItem(ctx context.Context, req Request, id string) QueueItemResponse {
	return s.rv.QuarantineItem(ctx, req, id)
}

// QuarantineItem is Service.QuarantineItem's work.
func (s *reviewer) QuarantineItem(ctx context.Context, req Request, id string) QueueItemResponse {
	if r, ok := s.operatorGate(req); !ok {
		return QueueItemResponse{Response: r}
	}
	it, r := s.queueItem(id)
	return QueueItemResponse{Response: r, Item: it}
}

func (s *reviewer) queueItem(id string) (*QueueItem, Response) {
	it, _, r := s.queueItemRead(id)
	return it, r
}

// queueItemRead is queueItem with the digest of the entry as stored (see
// vault.Promote).
func (s *reviewer) queueItemRead(id string) (*QueueItem, [32]byte, Response) {
	rec, err := s.v.QueueGet(id)
	if errors.Is(err, vault.ErrNotFound) {
		return nil, [32]byte{}, Response{StatusNotFound, "no such quarantined memory"}
	}
	if err != nil {
		return nil, [32]byte{}, s.fail("quarantine get", err)
	}
	it, err := quarantine.Decode(rec.Data)
	if err != nil {
		return nil, [32]byte{}, s.fail("quarantine get", errors.Join(vault.ErrCorrupt, err))
	}
	return it, rec.Digest, Response{Status: StatusOK}
}

// The genesis context of a memory approved from the quarantine: the
// user's verdict on the write (see userVerdict).
const (
	approvedNote       = "approved by the user"
	editedApprovedNote = "edited and approved by the user"
)

// Approve promotes a pending memory into the vault at standard trust. With
// edit, the user's corrected text replaces the queued one; it passes the
// secret and personal-data checks again (the user is its source now, so
// injection screening does not apply). A memory held for re-evaluation
// (quarantine.KindReevaluation) comes back as it was instead, with the
// user's confirmation (see approveHeld); it takes no edit. Operator only.
func (s *Service) Approve(ctx context.Context, req Request, id string, edit *string) MemoryResponse {
	return s.rv.Approve(ctx, req, id, edit)
}

// Approve is Service.Approve's work.
func (s *reviewer) Approve(ctx context.Context, req Request, id string, edit *string) MemoryResponse {
	if r, ok := s.operatorGate(req); !ok {
		return MemoryResponse{Response: r}
	}
	it, judged, r := s.queueItemRead(id)
	if !r.OK() {
		return MemoryResponse{Response: r}
	}
	if err := it.CanBecome(quarantine.Approved); err != nil {
		return MemoryResponse{Response: Response{StatusInvalid, err.Error()}}
	}
	if it.Kind == quarantine.KindReevaluation {
		if edit != nil {
			return MemoryResponse{Response: Response{StatusInvalid, "invalid: a memory held for review is kept as it was; approve it, then edit it"}}
		}
		return s.approveHeld(ctx, req, it)
	}
	if it.Kind == quarantine.KindSyncConflict {
		return s.approveSyncConflict(ctx, req, it, edit)
	}
	m := it.Memory
	m.Trust = vault.TrustStandard
	reason := approvedNote
	var facts []vault.AuditEntry
	if edit != nil {
		// The user's text over the agent's: admitted as the user's write to
		// the queued memory (under fail_on_secret a secret is refused, not
		// stored redacted).
		a := s.w.admit(req, policy.Proposal{Memory: vault.Memory{Content: *edit}, Existing: &m, Confirmed: true})
		if a.Outcome != policy.Admitted {
			return MemoryResponse{Response: s.w.settle(req, a)}
		}
		m.Content, m.Tier, m.Partition = a.Memory.Content, a.Memory.Tier, a.Memory.Partition
		if a.SecretTypes != "" {
			facts = append(facts, vault.AuditEntry{Action: vault.ActionSecretRedacted, Agent: req.Caller.Name(), Session: req.Caller.Session, Field: m.Field,
				ContentHash: s.fingerprint(*edit), Result: vault.ResultOK, Reason: a.SecretTypes})
		}
		reason = editedApprovedNote
	}
	// The write, what the guard redacted from the user's edit and the
	// approval commit together, as a store's entries do.
	facts = append(facts, vault.AuditEntry{Action: vault.ActionApprove, Agent: req.Caller.Name(), Session: req.Caller.Session, Field: m.Field, Result: vault.ResultOK, Reason: "queue item " + id})
	got, err := s.v.Promote(id, judged, m, vault.Actor{Agent: it.Agent, Session: it.Session, Reason: reason, Audit: facts})
	if err != nil {
		return MemoryResponse{Response: s.fail("approve", err)}
	}
	s.idx.Put(&got)
	r = Response{Status: StatusOK}
	if it.Partner != nil && it.Partner.Held {
		s.w.releasePartner(ctx, req, it, "its other half was approved")
		r.Message = fmt.Sprintf("stored as memory %s; memory %s, the half stored before, is back in recall", got.ID, it.Partner.ID)
	}
	return MemoryResponse{Response: r, Memory: &got}
}

// Reject removes a pending memory without storing it; Discard removes a
// hostile forensic copy. Both are audited. Rejecting a memory held for
// re-evaluation deletes it (see rejectHeld). Rejecting the second half
// of a split order deletes the stored half too, when it is held for the
// item (see RejectItem to keep it). Operator only.
func (s *Service) Reject(ctx context.Context, req Request, id string) Response {
	return s.rv.Reject(ctx, req, id)
}

// Reject is Service.Reject's work.
func (s *reviewer) Reject(ctx context.Context, req Request, id string) Response {
	return s.RejectItem(ctx, req, id, RejectOptions{})
}

// RejectOptions change what Reject does besides removing the item.
type RejectOptions struct {
	// KeepPartner brings the stored half of a split order back into
	// recall instead of deleting it.
	KeepPartner bool
}

// RejectItem is Reject with options. Operator only.
func (s *Service) RejectItem(ctx context.Context, req Request, id string, o RejectOptions) Response {
	return s.rv.RejectItem(ctx, req, id, o)
}

// RejectItem is Service.RejectItem's work.
func (s *reviewer) RejectItem(ctx context.Context, req Request, id string, o RejectOptions) Response {
	if r, ok := s.operatorGate(req); !ok {
		return r
	}
	it, r := s.queueItem(id)
	if r.OK() && it.Kind == quarantine.KindReevaluation {
		return s.rejectHeld(ctx, req, it)
	}
	if !r.OK() || it.Partner == nil || !it.Partner.Held {
		return s.dropItem(req, id, quarantine.Rejected, vault.ActionDismiss)
	}
	if r := s.dropItem(req, id, quarantine.Rejected, vault.ActionDismiss); !r.OK() {
		return r
	}
	if o.KeepPartner {
		s.w.releasePartner(ctx, req, it, "kept by the user when its other half was rejected")
		return Response{StatusOK, fmt.Sprintf("not stored; memory %s, the half stored before, is back in recall", it.Partner.ID)}
	}
	msg, err := s.w.forgetPartner(ctx, req, it)
	if err != nil {
		return s.fail("reject the stored half of a split order", err)
	}
	if msg == "" {
		return Response{Status: StatusOK}
	}
	return Response{StatusOK, "not stored; " + msg}
}

// Discard removes a hostile forensic copy. Operator only.
func (s *Service) Discard(ctx context.Context, req Request, id string) Response {
	return s.rv.Discard(ctx, req, id)
}

// Discard is Service.Discard's work.
func (s *reviewer) Discard(ctx context.Context, req Request, id string) Response {
	return s.dropItem(req, id, quarantine.Discarded, vault.ActionDiscard)
}

func (s *reviewer) dropItem(req Request, id string, to quarantine.State, action vault.Action) Response {
	if r, ok := s.operatorGate(req); !ok {
		return r
	}
	it, r := s.queueItem(id)
	if !r.OK() {
		return r
	}
	if err := it.CanBecome(to); err != nil {
		return Response{StatusInvalid, err.Error()}
	}
	e := vault.AuditEntry{Action: action, Agent: req.Caller.Name(), Session: req.Caller.Session, MemoryID: id, Field: it.Memory.Field, ContentHash: s.fingerprint(it.Memory.Content), Result: vault.ResultOK}
	if err := s.v.QueueDelete(id, e); err != nil {
		return s.fail("quarantine delete", err)
	}
	return Response{Status: StatusOK}
}

// PurgeExpiredHostile deletes hostile forensic copies older than their
// retention (30 days) as of now, audited like a discard. It returns how
// many it removed; sealed copies are only seen while the vault is unlocked.
// Operator only; the sweep calls it.
func (s *Service) PurgeExpiredHostile(ctx context.Context, req Request, now time.Time) (int, Response) {
	return s.rv.PurgeExpiredHostile(ctx, req, now)
}

// PurgeExpiredHostile is Service.PurgeExpiredHostile's work.
func (s *reviewer) PurgeExpiredHostile(ctx context.Context, req Request, now time.Time) (int, Response) {
	return s.life.PurgeExpiredHostile(ctx, req, now)
}

// PurgeExpiredHostile implements Service.PurgeExpiredHostile.
func (l *lifecycle) PurgeExpiredHostile(ctx context.Context, req Request, now time.Time) (int, Response) {
	if r, ok := l.operatorGate(req); !ok {
		return 0, r
	}
	recs, _, err := l.v.QueueList()
	if err != nil {
		return 0, l.fail("quarantine purge", err)
	}
	n := 0
	for _, rec := range recs {
		it, err := quarantine.Decode(rec.Data)
		if err != nil || !it.Expired(now) {
			continue
		}
		e := vault.AuditEntry{Action: vault.ActionDiscard, Agent: req.Caller.Name(), MemoryID: it.ID, Field: it.Memory.Field, Result: vault.ResultOK, Reason: "hostile copy past its 30-day retention"}
		if err := l.v.QueueDelete(it.ID, e); err != nil {
			return n, l.fail("quarantine purge", err)
		}
		n++
	}
	return n, Response{Status: StatusOK}
}

// approveSyncConflict makes the state a sync-conflict item holds (one
// that lost to a concurrent edit on another device) the memory's live
// state again, as the user's change: a new version that the next sync
// sends to the other devices, where it is the latest. A sensitive memory
// stays sensitive. It takes no edit. Rejecting the item (dropItem) keeps
// the live state.
func (s *reviewer) approveSyncConflict(ctx context.Context, req Request, it *quarantine.Item, edit *string) MemoryResponse {
	if edit != nil {
		return MemoryResponse{Response: Response{StatusInvalid, "invalid: a sync conflict restores the state it holds; approve it, then edit the memory"}}
	}
	from := it.Memory
	got, err := s.v.Update(from.ID, vault.OpRollback, vault.Actor{Agent: req.Caller.Name(), Session: req.Caller.Session, Reason: "sync conflict settled by the user"}, func(m *vault.Memory) error {
		sensitive := m.Sensitive()
		m.Content, m.Kind, m.Field, m.Tier, m.Partition, m.Archive = from.Content, from.Kind, from.Field, from.Tier, from.Partition, from.Archive
		m.Tags = append([]string(nil), from.Tags...)
		m.Source, m.Trust, m.Confidence, m.Expires, m.Pinned = from.Source, from.Trust, from.Confidence, from.Expires, from.Pinned
		if sensitive && !m.Sensitive() {
			m.Partition, m.Archive = vault.Sensitive, nil
		}
		return nil
	})
	if err != nil {
		return MemoryResponse{Response: s.fail("approve", err)}
	}
	s.idx.Put(&got)
	e := vault.AuditEntry{Action: vault.ActionApprove, Agent: req.Caller.Name(), Session: req.Caller.Session, MemoryID: got.ID, Field: got.Field, Result: vault.ResultOK, Reason: "queue item " + it.ID}
	if err := s.v.QueueDelete(it.ID, e); err != nil {
		return MemoryResponse{Response: s.fail("quarantine delete", err)}
	}
	return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &got}
}
