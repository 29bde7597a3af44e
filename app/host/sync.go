package host

import (
	"context"
	"time"

	"github.com/engram-app/engram/app/devsync"
)

// syncFolder keeps the vault in step with its other devices while Engram
// runs (package devsync): an exchange whenever the vault or the synced
// folder changed, looked at every devsync.WatchInterval. Nothing happens
// until 'engram sync setup' or 'join', or while the vault is locked.
func (h *Host) syncFolder(ctx context.Context) {
	s := devsync.New(h.v, devsync.Options{Now: h.cfg.Now, Log: h.cfg.Log, Hooks: devsync.Hooks{
		Changed: func(ids []string) { h.svc.SyncApplied(ids, nil) },
		Removed: func(ids []string) { h.svc.SyncApplied(nil, ids) },
	}})
	t := time.NewTicker(devsync.WatchInterval)
	defer t.Stop()
	s.Watch(ctx, t.C, nil)
}
