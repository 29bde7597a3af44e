package host

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/engram-app/engram/app/devsync"
)

// TestSyncStatusAndEvents: the host reports the same status as
// devsync (not set up; then two devices), each exchange of its watch
// loop is an Event with Sync set, and a revocation goes through it.
func TestSyncStatusAndEvents(t *testing.T) {
	h, _, clock := testHost(t)
	if _, err := h.SyncStatus(); !errors.Is(err, devsync.ErrNotSetUp) {
		t.Fatalf("SyncStatus() before setup = %v, want ErrNotSetUp", err)
	}
	folder := t.TempDir()
	if _, err := devsync.New(h.Vault(), devsync.Options{Now: clock.Now}).Setup(t.Context(), folder, "laptop"); err != nil {
		t.Fatal(err)
	}
	bpath := filepath.Join(t.TempDir(), "vault.db")
	bv, _, err := devsync.Join(t.Context(), folder, bpath, pass, "desktop", devsync.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bv.Close() })

	events := make(chan Event, 16)
	stop := h.Subscribe(func(e Event) { events <- e })
	defer stop()
	tick := make(chan time.Time)
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.watchSync(t.Context(), tick)
	}()
	t.Cleanup(func() { <-done }) // t.Context ends first; then the host closes
	tick <- clock.Now()          // the first tick exchanges: desktop's segment is applied
	waitSync(t, events)

	st, err := h.SyncStatus()
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "laptop" || st.Folder != folder || len(st.Devices) != 1 || st.Devices[0].Name != "desktop" || st.Devices[0].State() != "up to date" || st.LastSync.IsZero() {
		t.Fatalf("SyncStatus() = %+v", st)
	}
	if err := h.RevokeDevice(t.Context(), "no-such-device"); !errors.Is(err, devsync.ErrUnknownDevice) {
		t.Fatalf("RevokeDevice(unknown) = %v, want ErrUnknownDevice", err)
	}
	waitSync(t, events)
	if err := h.RevokeDevice(t.Context(), "desktop"); err != nil {
		t.Fatal(err)
	}
	waitSync(t, events)
	if st, _ := h.SyncStatus(); !st.Devices[0].Revoked {
		t.Fatalf("after RevokeDevice: %+v", st.Devices)
	}
	if _, err := h.SyncNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitSync(t, events)
}

// waitSync waits for an Event with Sync set.
func waitSync(t *testing.T, events <-chan Event) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case e := <-events:
			if e.Sync {
				return
			}
		case <-deadline:
			t.Fatal("no Event with Sync set")
		}
	}
}
