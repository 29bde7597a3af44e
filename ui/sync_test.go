package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/engram-app/engram/app/devsync"
	"github.com/engram-app/engram/app/host"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// syncPair is the app's vault (laptop) set up to sync through a plain
// directory, and a second vault (desktop) joined from it, as 'engram
// sync setup' and 'engram sync join' make them. The app's clock is
// clock; the Settings tab is shown.
type syncPair struct {
	u      *UI
	clock  *vaulttest.Clock
	folder string
	b      *vault.Vault
	bs     *devsync.Syncer
}

func openSyncUI(t *testing.T, before func(u *UI)) *syncPair {
	t.Helper()
	cfg := testConfig(t)
	clock := vaulttest.NewClock(vaulttest.Start)
	cfg.Now = clock.Now
	u, _ := openUIWith(t, cfg)
	if before != nil {
		before(u)
	}
	p := &syncPair{u: u, clock: clock, folder: t.TempDir()}
	if _, err := devsync.New(u.h.Vault(), devsync.Options{Now: clock.Now}).Setup(t.Context(), p.folder, "laptop"); err != nil {
		t.Fatal(err)
	}
	bclock := vaulttest.NewClock(vaulttest.Start.Add(time.Minute))
	bpath := filepath.Join(t.TempDir(), "vault.db")
	b, _, err := devsync.Join(t.Context(), p.folder, bpath, []byte(passphrase), "desktop", devsync.Options{Now: bclock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	p.b, p.bs = b, devsync.New(b, devsync.Options{Now: bclock.Now})
	u.tabs.SelectIndex(4)
	return p
}

// syncNow taps Sync now in Settings.
func (p *syncPair) syncNow(t *testing.T) {
	t.Helper()
	p.clock.Advance(time.Minute)
	test.Tap(button(t, p.u.settings.content, "Sync now"))
}

// shown reports whether a visible text under o holds sub.
func shown(o fyne.CanvasObject, sub string) bool { return labelWith(o, sub) != "" }

// labelWith is the text of the first visible text under o holding sub, or "".
func labelWith(o fyne.CanvasObject, sub string) string {
	for _, s := range textsOf(o) {
		if strings.Contains(s, sub) {
			return s
		}
	}
	return ""
}

// TestSettingsSyncNotSetUp: a vault that does not sync says so in
// Settings, and how to set it up, in words.
func TestSettingsSyncNotSetUp(t *testing.T) {
	u, _ := openUI(t)
	u.tabs.SelectIndex(4)
	c := u.settings.content
	for _, want := range []string{"This vault does not sync with other devices", "engram sync setup FOLDER", "engram sync join FOLDER"} {
		if !shown(c, want) {
			t.Errorf("Settings does not say %q; it says %q", want, textsOf(c))
		}
	}
	if shown(c, "Sync now") {
		t.Error("Settings offers Sync now to a vault that does not sync")
	}
}

// TestSettingsSyncTwoDevices: set up, with a second device joined,
// Settings shows the folder, this device, the other device and, after
// Sync now, the exchange: the same facts as 'engram sync status'.
func TestSettingsSyncTwoDevices(t *testing.T) {
	p := openSyncUI(t, nil)
	c := p.u.settings.content
	for _, want := range []string{p.folder, "laptop (", "Sync now"} {
		if !shown(c, want) {
			t.Errorf("Settings does not show %q; it shows %q", want, textsOf(c))
		}
	}
	// desktop announced itself in a segment not applied here yet: its
	// directory is there, its name not known yet.
	if got := labelWith(c, "unnamed device ("); !strings.Contains(got, "not applied yet") || !strings.Contains(got, "applied 0 of 1") {
		t.Errorf("before the exchange the new device's row is %q, want it to say its segment is not applied yet", got)
	}
	p.syncNow(t)
	st, err := p.u.h.SyncStatus()
	if err != nil {
		t.Fatal(err)
	}
	d := st.Devices[0]
	for _, want := range []string{
		p.clock.Now().Local().Format(time.DateTime), // the last exchange
		"desktop (" + d.Device[:8] + ")",
		"up to date",
		"applied 1 of 1",
	} {
		if !shown(c, want) {
			t.Errorf("after Sync now Settings does not show %q; it shows %q", want, textsOf(c))
		}
	}
	if !shown(c, "Sent") {
		t.Errorf("Sync now did not say what it did; Settings shows %q", textsOf(c))
	}
}

// TestSettingsSyncConflictAndRefused: a concurrent edit and a tampered
// segment are counted in Settings, and the device whose segment was
// refused says why it waits.
func TestSettingsSyncConflictAndRefused(t *testing.T) {
	var m vault.Memory
	p := openSyncUI(t, func(u *UI) {
		var err error
		if m, err = u.h.Vault().Add(vaulttest.Memory(vault.Internal, "Lunch is at noon"), vault.Actor{}); err != nil {
			t.Fatal(err)
		}
	})
	c := p.u.settings.content
	p.syncNow(t)
	edit := func(v *vault.Vault, text string) {
		if _, err := v.Update(m.ID, vault.OpUpdate, vault.Actor{}, func(m *vault.Memory) error { m.Content = text; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// Both edit; desktop's is the later one, so the laptop's edit loses
	// and the laptop gets the conflict.
	p.clock.Advance(time.Hour)
	edit(p.u.h.Vault(), "Lunch is at one")
	edit(p.b, "Lunch is at two")
	if _, err := p.bs.Now(t.Context()); err != nil {
		t.Fatal(err)
	}
	p.syncNow(t)
	if got := labelWith(c, "in the Quarantine"); !strings.HasPrefix(got, "1 ") {
		t.Errorf("the conflicts row is %q, want 1 in the Quarantine; Settings shows %q", got, textsOf(c))
	}
	// desktop writes a segment that someone with the folder alters.
	if _, err := p.b.Add(vaulttest.Memory(vault.Internal, "Written on the desktop"), vault.Actor{}); err != nil {
		t.Fatal(err)
	}
	r, err := p.bs.Now(t.Context())
	if err != nil || r.Segment == "" {
		t.Fatalf("desktop's exchange: %+v, %v", r, err)
	}
	seg := r.Segment
	raw, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0x40
	if err := os.WriteFile(seg, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	p.syncNow(t)
	if got := labelWith(c, "segment refused"); !strings.HasPrefix(got, "1 ") {
		t.Errorf("the refused row is %q, want 1 segment refused; Settings shows %q", got, textsOf(c))
	}
	if got := labelWith(c, "desktop ("); !strings.Contains(got, "refused") || !strings.Contains(got, "authentication failed") {
		t.Errorf("desktop's row is %q, want why its segment was refused", got)
	}
}

// TestSettingsSyncRevokeAsksFirst: Revoke… asks, says what revoking
// cannot do, and defaults to Cancel; Cancel revokes nothing, Revoke
// does, and the row then says so.
func TestSettingsSyncRevokeAsksFirst(t *testing.T) {
	p := openSyncUI(t, nil)
	p.syncNow(t)
	u, c := p.u, p.u.settings.content
	test.Tap(button(t, c, "Revoke…"))
	top := u.win.Canvas().Overlays().Top()
	if top == nil || !hasLabel(top, "desktop") || !hasLabel(top, "can still read") {
		t.Fatal("the revoke question does not name the device and say what revoking cannot do")
	}
	def, ok := u.win.Canvas().Focused().(*defaultButton)
	if !ok || def.Text != "Cancel" {
		t.Fatalf("the revoke question's default is %v, want Cancel", u.win.Canvas().Focused())
	}
	def.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if u.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Enter on Cancel did not close the revoke question")
	}
	if st, _ := u.h.SyncStatus(); st.Devices[0].Revoked {
		t.Fatal("Cancel revoked the device")
	}
	test.Tap(button(t, c, "Revoke…"))
	test.Tap(button(t, u.win.Canvas().Overlays().Top(), "Revoke"))
	if st, _ := u.h.SyncStatus(); !st.Devices[0].Revoked {
		t.Fatal("Revoke did not revoke the device")
	}
	if got := labelWith(c, "desktop ("); !strings.Contains(got, "revoked after segment") {
		t.Errorf("desktop's row after Revoke is %q", got)
	}
	if shown(c, "Revoke…") {
		t.Error("a revoked device is offered for revocation again")
	}
}

// TestSettingsSyncFollowsTheHost: the section follows the host's sync
// events: a setup made while the app runs (as 'engram sync setup',
// forwarded into it) shows at the next one.
func TestSettingsSyncFollowsTheHost(t *testing.T) {
	u, _ := openUI(t)
	u.tabs.SelectIndex(4)
	c := u.settings.content
	if !shown(c, "does not sync") {
		t.Fatalf("Settings shows %q", textsOf(c))
	}
	folder := t.TempDir()
	if _, err := devsync.New(u.h.Vault(), devsync.Options{}).Setup(t.Context(), folder, "laptop"); err != nil {
		t.Fatal(err)
	}
	u.onEvent(host.Event{Sync: true})
	if !shown(c, folder) || shown(c, "does not sync") {
		t.Errorf("after a sync event Settings shows %q, want the folder %s", textsOf(c), folder)
	}
}
