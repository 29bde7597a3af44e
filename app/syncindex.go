package app

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
