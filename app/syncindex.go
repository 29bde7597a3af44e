package app

import (
	"context"

	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/vault"
)

// SyncApplied keeps the recall index current with what a sync between
// devices (package devsync) wrote to the vault and removed from it,
// outside the service's own write paths. Removed bytes are scrubbed by
// the scrubber, as for any removal.
func (s *Service) SyncApplied(changed, removed []string) {
	s.w.SyncApplied(changed, removed)
}

// SyncApplied is Service.SyncApplied's work.
func (s *writer) SyncApplied(changed, removed []string) {
	for _, id := range removed {
		s.idx.Remove(id)
	}
	for _, id := range changed {
		if m, err := s.v.Peek(id); err == nil {
			s.idx.Put(&m)
		}
	}
}

// approveSyncConflict makes the state a sync-conflict item holds (one
// that lost to a concurrent edit on another device) the memory's live
// state again, as the user's change: a new version that the next sync
// sends to the other devices, where it is the latest. A sensitive memory
// stays sensitive. It takes no edit. Rejecting the item (dropItem) keeps
// the live state.
func (s *writer) approveSyncConflict(ctx context.Context, req Request, it *quarantine.Item, edit *string) MemoryResponse {
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
