package app

import (
	"slices"
	"sync"
)

// damagedSet remembers the records that failed to decode or authenticate
// while the service listed the vault. Listings go on without them (an
// index build, the sweep, the memory list), so one flipped byte costs one
// memory, not the vault; Damaged tells the user, who runs 'engram doctor'
// and restores those records from a backup.
type damagedSet struct {
	mu  sync.Mutex
	ids map[string]bool
}

// skipDamaged is the vault.ListFilter.OnDamaged of the service's listings.
// It runs inside a read transaction and must not call the vault.
func (s *Service) skipDamaged(id string, err error) {
	s.damaged.mu.Lock()
	defer s.damaged.mu.Unlock()
	if s.damaged.ids[id] {
		return
	}
	if s.damaged.ids == nil {
		s.damaged.ids = map[string]bool{}
	}
	s.damaged.ids[id] = true
	s.log.Error("damaged record skipped; run 'engram doctor' and restore it from a backup", "id", id, "err", err)
}

// Damaged returns the ids of the damaged records the service has come
// across, sorted.
func (s *Service) Damaged() []string {
	s.damaged.mu.Lock()
	defer s.damaged.mu.Unlock()
	out := make([]string, 0, len(s.damaged.ids))
	for id := range s.damaged.ids {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}
