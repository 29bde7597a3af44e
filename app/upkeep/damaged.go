package upkeep

import (
	"log/slog"
	"sync"
)

// Damaged remembers the records that failed to decode or authenticate
// while the service listed the vault. Listings go on without them (an
// index build, the sweep, the memory list), so one flipped byte costs one
// memory, not the vault; each is logged once, telling the user to run
// 'engram doctor', which names them, and to restore them from a backup.
type Damaged struct {
	log *slog.Logger
	mu  sync.Mutex
	ids map[string]bool
}

// NewDamaged returns an empty set that logs to log.
func NewDamaged(log *slog.Logger) *Damaged { return &Damaged{log: log} }

// Skip is the vault.ListFilter.OnDamaged of the service's listings. It
// runs inside a read transaction and does not call the vault.
func (d *Damaged) Skip(id string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ids[id] {
		return
	}
	if d.ids == nil {
		d.ids = map[string]bool{}
	}
	d.ids[id] = true
	d.log.Error("damaged record skipped; run 'engram doctor' and restore it from a backup", "id", id, "err", err)
}
