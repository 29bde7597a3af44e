package app

import "context"

// SyncApplied keeps the recall index current with what a sync between
// devices (package devsync) wrote to the vault and removed from it,
// outside the service's own write paths. Removed bytes are scrubbed by
// the scrubber, as for any removal.
func (s *Service) SyncApplied(changed, removed []string) {
	if s.v == nil {
		return
	}
	for _, id := range removed {
		s.unindex(id)
	}
	for _, id := range changed {
		if m, err := s.v.Peek(id); err == nil {
			s.index(context.Background(), &m)
		}
	}
}
