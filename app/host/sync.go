package host

import (
	"context"
	"time"

	"github.com/engram-app/engram/app/devsync"
)

// syncer is the vault's Syncer; what it applies keeps the service's
// recall index current. All of them share the vault's one exchange lock
// (devsync.New), so the loop and the user's Sync now never collide.
func (h *Host) syncer() *devsync.Syncer {
	return devsync.New(h.v, devsync.Options{Now: h.cfg.Now, Log: h.cfg.Log, Hooks: devsync.Hooks{
		Changed: func(ids []string) { h.svc.SyncApplied(ids, nil) },
		Removed: func(ids []string) { h.svc.SyncApplied(nil, ids) },
	}})
}

// syncFolder keeps the vault in step with its other devices while Engram
// runs (package devsync): an exchange whenever the vault or the synced
// folder changed, looked at every devsync.WatchInterval. Nothing happens
// until 'engram sync setup' or 'join', or while the vault is locked.
func (h *Host) syncFolder(ctx context.Context) {
	t := time.NewTicker(devsync.WatchInterval)
	defer t.Stop()
	h.watchSync(ctx, t.C)
}

// watchSync is syncFolder on the ticks of tick; each exchange it runs
// is an Event with Sync set.
func (h *Host) watchSync(ctx context.Context, tick <-chan time.Time) {
	h.syncer().Watch(ctx, tick, func(devsync.Report, error) { h.emit(Event{Sync: true}) })
}

// SyncStatus is what 'engram sync status' shows: this device, the
// folder, the last exchange, what waits, the conflicts, and each other
// device with its refused segments. It fails with an error wrapping
// devsync.ErrNotSetUp when this vault does not sync, and with one
// wrapping vault.ErrLocked while locked. It reads the vault and the
// folder: call it off the UI goroutine.
func (h *Host) SyncStatus() (devsync.Status, error) { return h.syncer().Status() }

// SyncNow exchanges with the folder at once, as 'engram sync now', and
// then emits an Event with Sync set (whatever the outcome).
func (h *Host) SyncNow(ctx context.Context) (devsync.Report, error) {
	defer h.emit(Event{Sync: true})
	return h.syncer().Now(ctx)
}

// RevokeDevice stops applying device's segments (its id, a unique id
// prefix, or its name) beyond the last one applied here, as 'engram
// sync revoke', and emits an Event with Sync set. An unknown device
// fails with an error wrapping devsync.ErrUnknownDevice.
func (h *Host) RevokeDevice(ctx context.Context, device string) error {
	defer h.emit(Event{Sync: true})
	_, err := h.syncer().Revoke(ctx, device)
	return err
}
