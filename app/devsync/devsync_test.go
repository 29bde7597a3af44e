package devsync_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/devsync"
	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/segment"
	"github.com/engram-app/engram/vault/vaulttest"
)

// transport moves the folder between the two devices: a plain shared
// directory, or two real Syncthing instances (syncthing_test.go).
type transport interface {
	// folders are where device A and device B see the folder.
	folders() (a, b string)
	// settle returns once each device holds every file the other wrote.
	settle(t testing.TB)
	// cutNetwork and heal stop and restore the exchange of files.
	cutNetwork(t testing.TB)
	heal(t testing.TB)
}

// sharedDir is one directory both devices use: no transport at all.
type sharedDir struct{ dir string }

func (s sharedDir) folders() (string, string) { return s.dir, s.dir }
func (sharedDir) settle(testing.TB)           {}
func (sharedDir) cutNetwork(testing.TB)       {}
func (sharedDir) heal(testing.TB)             {}

// device is one vault and its syncer.
type device struct {
	v      *vault.Vault
	s      *devsync.Syncer
	clock  *vaulttest.Clock
	path   string
	folder string
	tr     transport
}

// pair makes vault A, sets up sync with A's folder, and joins vault B
// from B's folder, as two devices would.
func pair(t *testing.T, tr transport, before func(a *device)) (a, b *device) {
	t.Helper()
	ctx := context.Background()
	fa, fb := tr.folders()
	av, aclock := vaulttest.New(t)
	a = &device{v: av, clock: aclock, s: devsync.New(av, devsync.Options{Now: aclock.Now}), path: av.Path(), folder: fa, tr: tr}
	if before != nil {
		before(a)
	}
	if _, err := a.s.Setup(ctx, fa, "laptop"); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	tr.settle(t)
	bclock := vaulttest.NewClock(vaulttest.Start.Add(time.Minute))
	bpath := filepath.Join(t.TempDir(), "vault.db")
	bv, _, err := devsync.Join(ctx, fb, bpath, []byte(vaulttest.Passphrase), "desktop", devsync.Options{Now: bclock.Now})
	if err != nil {
		t.Fatalf("Join: %v", err)
	}
	t.Cleanup(func() {
		bv.Close()
		vaulttest.Check(t, bpath)
	})
	b = &device{v: bv, clock: bclock, s: devsync.New(bv, devsync.Options{Now: bclock.Now}), path: bpath, folder: fb, tr: tr}
	return a, b
}

// sync settles the transport, then exchanges.
func (d *device) sync(t *testing.T) devsync.Report {
	t.Helper()
	d.tr.settle(t)
	r, err := d.s.Now(context.Background())
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return r
}

func (d *device) add(t *testing.T, p vault.Partition, text string) vault.Memory {
	t.Helper()
	m, err := d.v.Add(vaulttest.Memory(p, text), vault.Actor{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (d *device) update(t *testing.T, id, text string) {
	t.Helper()
	if _, err := d.v.Update(id, vault.OpUpdate, vault.Actor{}, func(m *vault.Memory) error {
		m.Content = text
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func (d *device) content(t *testing.T, id string) string {
	t.Helper()
	m, err := d.v.Peek(id)
	if err != nil {
		t.Fatalf("Peek %s: %v", id, err)
	}
	return m.Content
}

func (d *device) history(t *testing.T, id string) []string {
	t.Helper()
	_, vers, err := d.v.Replica(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range vers {
		out = append(out, v.Memory.Content)
	}
	return out
}

func (d *device) conflicts(t *testing.T) []quarantine.Item {
	t.Helper()
	recs, _, err := d.v.QueueList()
	if err != nil {
		t.Fatal(err)
	}
	var out []quarantine.Item
	for _, r := range recs {
		it, err := quarantine.Decode(r.Data)
		if err != nil {
			t.Fatal(err)
		}
		if it.Kind == quarantine.KindSyncConflict {
			out = append(out, *it)
		}
	}
	return out
}

func (d *device) status(t *testing.T) devsync.Status {
	t.Helper()
	st, err := d.s.Status()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestTwoDevices runs the merge rules over a plain shared directory
// (TestTwoDevicesSyncthing: over Syncthing): the first sync, writes on
// both sides, a concurrent edit, a forget while the devices are cut off
// from each other, and a revocation.
func TestTwoDevices(t *testing.T) { twoDevices(t, sharedDir{t.TempDir()}) }

func twoDevices(t *testing.T, tr transport) {
	var kept, secret vault.Memory
	a, b := pair(t, tr, func(a *device) {
		kept = a.add(t, vault.Internal, "Deploys go through ops/deploy.sh")
		a.update(t, kept.ID, "Deploys go through ops/deploy.sh --canary")
		secret = a.add(t, vault.Sensitive, "Alice's phone is 555-0100")
	})

	// The joined vault holds both memories, with their versions, the
	// sensitive one sealed.
	if got := b.content(t, kept.ID); got != "Deploys go through ops/deploy.sh --canary" {
		t.Fatalf("joined: %q", got)
	}
	if got := b.history(t, kept.ID); !slices.Equal(got, []string{"Deploys go through ops/deploy.sh", "Deploys go through ops/deploy.sh --canary"}) {
		t.Fatalf("joined history: %q", got)
	}
	if m, err := b.v.Peek(secret.ID); err != nil || !m.Sensitive() || m.Content != secret.Content {
		t.Fatalf("joined sensitive: %+v, %v", m, err)
	}
	raw, err := os.ReadFile(b.path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("555-0100")) {
		t.Fatal("the sensitive memory is in clear in the joined vault file")
	}
	a.sync(t) // learns of B

	// Writes on both sides.
	a.clock.Advance(time.Hour)
	b.clock.Advance(time.Hour)
	fromA := a.add(t, vault.Internal, "The staging database is pg-stage-2")
	b.update(t, kept.ID, "Deploys go through ops/deploy.sh --canary --wait")
	b.sync(t)
	a.sync(t)
	b.sync(t)
	if got := b.content(t, fromA.ID); got != fromA.Content {
		t.Fatalf("B has %q of A's write", got)
	}
	if got := a.content(t, kept.ID); got != "Deploys go through ops/deploy.sh --canary --wait" {
		t.Fatalf("A has %q of B's edit", got)
	}

	// A concurrent edit: B's is the later one and wins on both; the
	// other is kept as a version on both, and each device whose edit
	// collided has a conflict item.
	a.clock.Advance(time.Hour)
	b.clock.Advance(2 * time.Hour)
	a.update(t, kept.ID, "Deploys go through ops/release.sh")
	b.update(t, kept.ID, "Deploys go through ops/ship.sh")
	a.sync(t)
	rb := b.sync(t)
	ra := a.sync(t)
	for _, d := range []*device{a, b} {
		if got := d.content(t, kept.ID); got != "Deploys go through ops/ship.sh" {
			t.Fatalf("after the concurrent edit, live is %q", got)
		}
		if !slices.Contains(d.history(t, kept.ID), "Deploys go through ops/release.sh") {
			t.Fatalf("the losing edit is not in the history: %q", d.history(t, kept.ID))
		}
		cs := d.conflicts(t)
		if len(cs) != 1 || cs[0].Memory.Content != "Deploys go through ops/release.sh" {
			t.Fatalf("conflict items: %+v", cs)
		}
	}
	if ra.Conflicts != 1 || rb.Conflicts != 1 {
		t.Fatalf("reports: A %+v, B %+v", ra, rb)
	}
	if st := a.status(t); st.Conflicts != 1 || st.Pending != 0 {
		t.Fatalf("A's status: %+v", st)
	}

	// A forget during a cut: B edits the memory while A forgets it;
	// the forget wins on both once they meet again, and neither vault
	// file keeps a byte of it.
	doomed := a.add(t, vault.Internal, "Project falcon ships in March")
	a.sync(t)
	b.sync(t)
	tr.cutNetwork(t)
	b.update(t, doomed.ID, "Project falcon ships in April")
	if err := a.v.Purge(doomed.ID, "forget", vault.Actor{}); err != nil {
		t.Fatal(err)
	}
	var dropped, removed int
	rb = b.sync(t) // B sends its edit, not knowing of the forget
	removed += rb.Removed
	ra = a.sync(t) // over a shared directory A sees the edit already
	dropped += ra.Dropped
	tr.heal(t)
	for range 2 {
		ra, rb = a.sync(t), b.sync(t)
		dropped, removed = dropped+ra.Dropped, removed+rb.Removed
	}
	if dropped != 1 || removed != 1 {
		t.Fatalf("A dropped %d edits of the forgotten memory (want 1), B removed %d memories (want 1)", dropped, removed)
	}
	for _, d := range []*device{a, b} {
		if _, err := d.v.Peek(doomed.ID); !errors.Is(err, vault.ErrNotFound) {
			t.Fatalf("the forgotten memory is back: %v", err)
		}
		if _, err := d.v.Scrub(context.Background()); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(d.path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte("Project falcon")) {
			t.Fatalf("%s keeps bytes of the forgotten memory", d.path)
		}
	}
	for _, folder := range []string{a.folder, b.folder} {
		if err := filepath.WalkDir(folder, func(p string, de os.DirEntry, err error) error {
			if err != nil || de.IsDir() {
				return err
			}
			raw, err := os.ReadFile(p)
			if bytes.Contains(raw, []byte("falcon")) || bytes.Contains(raw, []byte("deploy")) || bytes.Contains(raw, []byte(kept.ID)) {
				t.Errorf("%s holds memory text or ids in clear", p)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}

	// Revocation: A revokes B; B's later segments are not applied, and B
	// stops when it reads its revocation.
	stB := b.status(t)
	if _, err := a.s.Revoke(context.Background(), stB.Device); err != nil {
		t.Fatal(err)
	}
	late := b.add(t, vault.Internal, "Written after the revocation")
	tr.settle(t)
	if _, err := b.s.Now(context.Background()); !errors.Is(err, devsync.ErrRevoked) {
		t.Fatalf("B's sync after its revocation: %v, want ErrRevoked", err)
	}
	r := a.sync(t)
	if len(r.Refused) != 1 || !strings.Contains(r.Refused[0], "revoked") {
		t.Fatalf("A's report after B wrote past its revocation: %+v", r)
	}
	if _, err := a.v.Peek(late.ID); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("A applied a revoked device's write: %v", err)
	}
	st := a.status(t)
	if len(st.Devices) != 1 || !st.Devices[0].Revoked || st.Devices[0].Refused != 1 {
		t.Fatalf("A's status: %+v", st)
	}
}

// TestRefusedSegments: a tampered, a replayed, a renamed and a foreign
// segment are refused, counted once, shown by status, and hold up the
// rest of that device's segments without applying anything.
func TestRefusedSegments(t *testing.T) {
	refusedSegments(t, func(t *testing.T) transport { return sharedDir{t.TempDir()} })
}

func refusedSegments(t *testing.T, newTransport func(t *testing.T) transport) {
	tests := []struct {
		name string
		// forge writes the bad next segment of B's directory from B's
		// good segments (first) and another vault's (foreign).
		forge func(t *testing.T, dir string, next uint64, foreign []byte) []byte
		want  string
	}{
		{"tampered", func(t *testing.T, dir string, next uint64, _ []byte) []byte {
			raw := readSeg(t, dir, next)
			raw[len(raw)/2] ^= 0x40
			return raw
		}, "authentication failed"},
		{"replayed", func(t *testing.T, dir string, next uint64, _ []byte) []byte {
			return readSeg(t, dir, next-1)
		}, "replayed or moved"},
		{"truncated", func(t *testing.T, dir string, next uint64, _ []byte) []byte {
			raw := readSeg(t, dir, next)
			return raw[:len(raw)-10]
		}, "authentication failed"},
		{"from another vault", func(t *testing.T, dir string, next uint64, foreign []byte) []byte {
			return foreign
		}, "replayed or moved"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTransport(t)
			a, b := pair(t, tr, nil)
			a.sync(t)
			bdev := b.status(t).Device
			dir := filepath.Join(a.folder, "engram", bdev)
			b.add(t, vault.Internal, "first write on B")
			b.sync(t)
			a.sync(t)
			b.add(t, vault.Internal, "second write on B")
			r := b.sync(t)
			next := b.status(t).Seq
			if r.Sent != 1 || next < 3 {
				t.Fatalf("B wrote %+v, now at segment %d", r, next)
			}
			// Another vault's first segment, for the foreign case.
			otherFolder := t.TempDir()
			o, _ := vaulttest.New(t)
			if _, err := devsync.New(o, devsync.Options{}).Setup(context.Background(), otherFolder, "other"); err != nil {
				t.Fatal(err)
			}
			foreign := firstSeg(t, otherFolder)
			tr.settle(t)
			good := readSeg(t, dir, next)
			bad := tc.forge(t, dir, next, foreign)
			// Someone who writes A's copy of the folder: the bad file
			// stays there (over Syncthing, B is cut off meanwhile).
			tr.cutNetwork(t)
			writeSeg(t, dir, next, bad)
			for range 2 { // refused each time, counted once
				r := a.sync(t)
				if len(r.Refused) != 1 || !strings.Contains(r.Refused[0], tc.want) || r.Applied != 0 || r.Changed != 0 {
					t.Fatalf("report: %+v, want one refusal saying %q", r, tc.want)
				}
			}
			st := a.status(t)
			if len(st.Devices) != 1 || st.Devices[0].Refused != 1 || !strings.Contains(st.Devices[0].Waiting, tc.want) || st.Devices[0].Applied != next-1 {
				t.Fatalf("status: %+v", st.Devices)
			}
			// The good segment back (it had been withheld): applied.
			writeSeg(t, dir, next, good)
			tr.heal(t)
			r = a.sync(t)
			if r.Applied != 1 || r.Changed != 1 || len(r.Refused) != 0 {
				t.Fatalf("after the good segment came back: %+v", r)
			}
			if st := a.status(t); st.Devices[0].Waiting != "" || st.Devices[0].Refused != 1 {
				t.Fatalf("status after: %+v", st.Devices)
			}
		})
	}
}

func readSeg(t *testing.T, dir string, seq uint64) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, segFile(seq)))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func writeSeg(t *testing.T, dir string, seq uint64, raw []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, segFile(seq)), raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

func segFile(seq uint64) string {
	s := strings.Repeat("0", 16) + itoa(seq)
	return s[len(s)-16:] + ".seg"
}

func itoa(n uint64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func firstSeg(t *testing.T, folder string) []byte {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(folder, "engram"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			return readSeg(t, filepath.Join(folder, "engram", e.Name()), 1)
		}
	}
	t.Fatal("no device directory")
	return nil
}

// TestApproveConflict: approving a sync-conflict item makes the state it
// holds live again, as the user's change, on every device; rejecting
// the other device's item keeps what is live.
func TestApproveConflict(t *testing.T) {
	var m vault.Memory
	a, b := pair(t, sharedDir{t.TempDir()}, func(a *device) { m = a.add(t, vault.Internal, "Lunch is at noon") })
	a.sync(t)
	a.clock.Advance(time.Hour)
	b.clock.Advance(2 * time.Hour)
	a.update(t, m.ID, "Lunch is at one")
	b.update(t, m.ID, "Lunch is at two")
	a.sync(t)
	b.sync(t)
	a.sync(t)
	cs := a.conflicts(t)
	if len(cs) != 1 || a.content(t, m.ID) != "Lunch is at two" {
		t.Fatalf("before: live %q, conflicts %+v", a.content(t, m.ID), cs)
	}
	svc, err := app.New(a.v, app.Options{Now: a.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	op := app.Request{Caller: app.Caller{Operator: true}, Authorized: true}
	if r := svc.Approve(context.Background(), op, cs[0].ID, nil); !r.OK() || r.Memory.Content != "Lunch is at one" {
		t.Fatalf("Approve: %+v", r.Response)
	}
	if len(a.conflicts(t)) != 0 {
		t.Fatal("the approved item is still queued")
	}
	a.clock.Advance(time.Hour)
	b.clock.Advance(time.Hour)
	a.sync(t)
	b.sync(t)
	if got := b.content(t, m.ID); got != "Lunch is at one" {
		t.Fatalf("B after the user's approval on A: %q", got)
	}
	bcs := b.conflicts(t)
	if len(bcs) != 1 {
		t.Fatalf("B's conflicts: %+v", bcs)
	}
	bsvc, err := app.New(b.v, app.Options{Now: b.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer bsvc.Close()
	if r := bsvc.Reject(context.Background(), op, bcs[0].ID); !r.OK() {
		t.Fatalf("Reject: %+v", r)
	}
	if got := b.content(t, m.ID); got != "Lunch is at one" || len(b.conflicts(t)) != 0 {
		t.Fatalf("B after rejecting: %q, %d conflicts", got, len(b.conflicts(t)))
	}
}

// TestWatch: a running Engram's watch exchanges when this device wrote
// or the folder changed, and not otherwise.
func TestWatch(t *testing.T) {
	a, b := pair(t, sharedDir{t.TempDir()}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	tick := make(chan time.Time)
	results := make(chan devsync.Report, 10) // an exchange too many shows up as the next result
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		a.s.Watch(ctx, tick, func(r devsync.Report, err error) {
			if err != nil {
				t.Errorf("watch: %v", err)
			}
			results <- r
		})
	}()
	defer func() { cancel(); <-stopped }()

	tick <- time.Time{} // the first tick exchanges: B's announcement
	if r := <-results; r.Applied != 1 {
		t.Fatalf("first exchange: %+v", r)
	}
	// Nothing changed: the tick passes; the next exchange is the one a
	// write of B's makes.
	tick <- time.Time{}
	m := b.add(t, vault.Internal, "Arrived through the folder")
	b.sync(t)
	tick <- time.Time{}
	if r := <-results; r.Applied != 1 || r.Changed != 1 {
		t.Fatalf("after B's write: %+v", r)
	}
	if got := a.content(t, m.ID); got != m.Content {
		t.Fatalf("A has %q", got)
	}
	// A write here is sent at the next tick.
	a.add(t, vault.Internal, "Written on A")
	tick <- time.Time{}
	if r := <-results; r.Sent != 1 {
		t.Fatalf("after A's write: %+v", r)
	}
}

// TestForgetVersions: a forget that removes older versions of a memory
// that stays (its topic was in them) removes them on the other device
// too, leaving no byte of them in its file.
func TestForgetVersions(t *testing.T) {
	var m vault.Memory
	a, b := pair(t, sharedDir{t.TempDir()}, func(a *device) {
		m = a.add(t, vault.Internal, "The falcon launch is on Monday")
		a.update(t, m.ID, "The launch is on Monday")
	})
	a.sync(t)
	if got := b.history(t, m.ID); len(got) != 2 {
		t.Fatalf("B's history before: %q", got)
	}
	if n, err := a.v.DropVersions(m.ID, []int{1}, "forget topic", vault.Actor{}); err != nil || n != 1 {
		t.Fatalf("DropVersions: %d, %v", n, err)
	}
	a.sync(t)
	b.sync(t)
	if got := b.history(t, m.ID); slices.Contains(got, "The falcon launch is on Monday") || b.content(t, m.ID) != "The launch is on Monday" {
		t.Fatalf("B's history after the forget on A: %q", got)
	}
	if _, err := b.v.Scrub(context.Background()); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(b.path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("falcon")) {
		t.Fatal("B's vault file keeps bytes of the forgotten version")
	}
}

// TestManySegments: changes larger than one segment go into several,
// and a joining device applies them all.
func TestManySegments(t *testing.T) {
	folder := t.TempDir()
	ctx := context.Background()
	av, clock := vaulttest.New(t)
	var ids []string
	for i := range 40 {
		m, err := av.Add(vaulttest.Memory(vault.Internal, fmt.Sprintf("Memory number %d of forty, long enough to fill a small segment soon", i)), vault.Actor{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, m.ID)
	}
	sa := devsync.New(av, devsync.Options{Now: clock.Now, SegmentSize: 4096})
	r, err := sa.Setup(ctx, folder, "laptop")
	if err != nil {
		t.Fatal(err)
	}
	st, err := sa.Status()
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent != 40 || st.Seq < 3 {
		t.Fatalf("setup sent %d changes in %d segments; want 40 in several", r.Sent, st.Seq)
	}
	bpath := filepath.Join(t.TempDir(), "vault.db")
	bv, jr, err := devsync.Join(ctx, folder, bpath, []byte(vaulttest.Passphrase), "desktop", devsync.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { bv.Close(); vaulttest.Check(t, bpath) }()
	if jr.Applied != int(st.Seq) || jr.Changed != 40 {
		t.Fatalf("join: %+v, want %d segments and 40 memories", jr, st.Seq)
	}
	for _, id := range ids {
		if _, err := bv.Peek(id); err != nil {
			t.Fatalf("joined vault lacks %s: %v", id, err)
		}
	}
	// A snapshot of the same takes several segments too; a device that
	// joins after it reads them in order from the first.
	if err := av.Delete(ids[0], vault.Actor{}); err != nil {
		t.Fatal(err)
	}
	if r, err := sa.Now(ctx); err != nil || !r.Compacted {
		t.Fatalf("compaction: %+v, %v", r, err)
	}
	st2, err := sa.Status()
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(folder, "engram", st.Device))
	if err != nil {
		t.Fatal(err)
	}
	if parts := int(st2.Seq) - int(st.Seq) - 1; len(ents) != parts || parts < 3 {
		t.Fatalf("%d files after a snapshot in %d parts; want the parts alone, at least 3", len(ents), parts)
	}
	cpath := filepath.Join(t.TempDir(), "vault.db")
	cv, cr, err := devsync.Join(ctx, folder, cpath, []byte(vaulttest.Passphrase), "tablet", devsync.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cv.Close(); vaulttest.Check(t, cpath) }()
	if cr.Changed != 39 || len(cr.Refused) != 0 {
		t.Fatalf("joined after the snapshot: %+v", cr)
	}
	if r, err := devsync.New(bv, devsync.Options{Now: clock.Now}).Now(ctx); err != nil || r.Removed != 1 || len(r.Refused) != 0 {
		t.Fatalf("B after the snapshot: %+v, %v", r, err)
	}
}

// TestRemovedConflictItems: a memory deleted on one device takes its
// sync-conflict items with it on both, so no copy of a state of it stays
// in either quarantine.
func TestRemovedConflictItems(t *testing.T) {
	var m vault.Memory
	a, b := pair(t, sharedDir{t.TempDir()}, func(a *device) { m = a.add(t, vault.Internal, "Standup is at nine") })
	a.sync(t)
	a.clock.Advance(time.Hour)
	b.clock.Advance(2 * time.Hour)
	a.update(t, m.ID, "Standup is at ten")
	b.update(t, m.ID, "Standup is at eleven")
	a.sync(t)
	b.sync(t)
	a.sync(t)
	if len(a.conflicts(t)) != 1 || len(b.conflicts(t)) != 1 {
		t.Fatalf("conflicts: A %d, B %d; want 1 each", len(a.conflicts(t)), len(b.conflicts(t)))
	}
	if err := a.v.Delete(m.ID, vault.Actor{}); err != nil {
		t.Fatal(err)
	}
	a.sync(t)
	b.sync(t)
	for _, d := range []*device{a, b} {
		if n := len(d.conflicts(t)); n != 0 {
			t.Fatalf("%s keeps %d conflict items of a deleted memory", d.path, n)
		}
		if _, err := d.v.Scrub(context.Background()); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(d.path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte("Standup is at")) {
			t.Fatalf("%s keeps bytes of the deleted memory", d.path)
		}
	}
}

// segmentsHolding lists the segment files in folder whose payload holds
// text, opened with the vault's segment key as a device would.
func segmentsHolding(t *testing.T, v *vault.Vault, folder, text string) []string {
	t.Helper()
	key, err := v.DeriveKey("engram sync segment v1")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	err = filepath.WalkDir(filepath.Join(folder, "engram"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".seg") {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		plain, err := segment.Open(raw, key, v.ID(), nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if bytes.Contains(plain, []byte(text)) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestForgetLeavesTheFolder: once a forget reached both devices, no
// segment in the folder holds the forgotten memory, sealed or not: each
// device replaced its segments with a snapshot without it.
func TestForgetLeavesTheFolder(t *testing.T) {
	folder := t.TempDir()
	var doomed vault.Memory
	a, b := pair(t, sharedDir{folder}, func(a *device) {
		doomed = a.add(t, vault.Internal, "Project falcon ships in March")
		a.add(t, vault.Internal, "The office closes at six")
	})
	a.sync(t)
	b.clock.Advance(time.Hour)
	b.update(t, doomed.ID, "Project falcon ships in April")
	b.sync(t)
	a.sync(t)
	if got := segmentsHolding(t, a.v, folder, "falcon"); len(got) < 2 {
		t.Fatalf("before the forget, segments holding it: %v", got)
	}
	if err := a.v.Purge(doomed.ID, "forget", vault.Actor{}); err != nil {
		t.Fatal(err)
	}
	if r := a.sync(t); !r.Compacted {
		t.Fatalf("A did not compact after its forget: %+v", r)
	}
	if r := b.sync(t); r.Removed != 1 || !r.Compacted {
		t.Fatalf("B after the forget: %+v", r)
	}
	a.sync(t)
	if got := segmentsHolding(t, a.v, folder, "falcon"); len(got) != 0 {
		t.Fatalf("segments still holding the forgotten memory: %v", got)
	}
	if got := segmentsHolding(t, a.v, folder, "office closes"); len(got) == 0 {
		t.Fatal("the snapshot lost the memory that stays")
	}
}

// TestCompaction: a device that was away while another compacted, and a
// device that joins after it, get everything from the snapshot.
func TestCompaction(t *testing.T) {
	folder := t.TempDir()
	a, b := pair(t, sharedDir{folder}, nil)
	a.sync(t)
	var kept []vault.Memory
	for i := range 3 {
		kept = append(kept, a.add(t, vault.Internal, fmt.Sprintf("Written while B was away, number %d", i)))
		a.sync(t)
	}
	gone := a.add(t, vault.Internal, "Deleted while B was away")
	a.sync(t)
	if err := a.v.Delete(gone.ID, vault.Actor{}); err != nil {
		t.Fatal(err)
	}
	if r := a.sync(t); !r.Compacted {
		t.Fatalf("no compaction after a delete: %+v", r)
	}
	st := a.status(t)
	ents, err := os.ReadDir(filepath.Join(folder, "engram", st.Device))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != segFile(st.Seq) {
		t.Fatalf("A's segments after compaction: %v, want only %s", ents, segFile(st.Seq))
	}
	// B had applied A's first segment only: the rest are gone, and the
	// snapshot stands in for them.
	r := b.sync(t)
	if r.Applied != 1 || len(r.Refused) != 0 {
		t.Fatalf("B after A's compaction: %+v", r)
	}
	for _, m := range kept {
		if got := b.content(t, m.ID); got != m.Content {
			t.Fatalf("B has %q of %s", got, m.ID)
		}
	}
	if _, err := b.v.Peek(gone.ID); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("B has the memory deleted before the snapshot: %v", err)
	}
	// A third device joins from the compacted folder.
	cpath := filepath.Join(t.TempDir(), "vault.db")
	cv, _, err := devsync.Join(context.Background(), folder, cpath, []byte(vaulttest.Passphrase), "tablet", devsync.Options{Now: a.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cv.Close(); vaulttest.Check(t, cpath) }()
	for _, m := range kept {
		if got, err := cv.Peek(m.ID); err != nil || got.Content != m.Content {
			t.Fatalf("C has %+v, %v", got, err)
		}
	}
	if gone, err := cv.Tombstoned(gone.ID); err != nil || !gone {
		t.Fatalf("C has no tombstone of the deleted memory: %v, %v", gone, err)
	}
	cs := devsync.New(cv, devsync.Options{Now: a.clock.Now})
	cst, err := cs.Status()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range cst.Devices {
		if d.Waiting != "" || d.Refused != 0 {
			t.Fatalf("C's view of %s: %+v", d.Name, d)
		}
	}
}

// TestWithheldSegment: a segment deleted from the folder (withheld by
// the sync provider) holds up the device's later ones, is reported as
// missing, not as refused, and once it is back everything applies.
func TestWithheldSegment(t *testing.T) {
	folder := t.TempDir()
	a, b := pair(t, sharedDir{folder}, nil)
	a.sync(t)
	dir := filepath.Join(folder, "engram", b.status(t).Device)
	first := b.add(t, vault.Internal, "first while withheld")
	b.sync(t)
	withheld := b.status(t).Seq
	second := b.add(t, vault.Internal, "second while withheld")
	b.sync(t)
	raw := readSeg(t, dir, withheld)
	if err := os.Remove(filepath.Join(dir, segFile(withheld))); err != nil {
		t.Fatal(err)
	}
	if r := a.sync(t); r.Applied != 0 || len(r.Refused) != 0 {
		t.Fatalf("with a segment withheld: %+v", r)
	}
	st := a.status(t)
	if d := st.Devices[0]; d.Refused != 0 || !strings.Contains(d.Waiting, "missing") || d.Applied != withheld-1 {
		t.Fatalf("status: %+v", d)
	}
	writeSeg(t, dir, withheld, raw)
	if r := a.sync(t); r.Applied != 2 || r.Changed != 2 {
		t.Fatalf("once it is back: %+v", r)
	}
	for _, m := range []vault.Memory{first, second} {
		if a.content(t, m.ID) != m.Content {
			t.Fatalf("A lacks %q", m.Content)
		}
	}
}

// TestRevocationHoldsForAJoiner: a device that joins after a revocation
// applies none of the revoked device's segments past it, even when it
// reads the revoked device's directory before the revoker's.
func TestRevocationHoldsForAJoiner(t *testing.T) {
	folder := t.TempDir()
	a, b := pair(t, sharedDir{folder}, nil)
	a.sync(t)
	// The revoked device is the one whose directory sorts first.
	revoker, revoked := a, b
	if a.status(t).Device < b.status(t).Device {
		revoker, revoked = b, a
	}
	revoker.sync(t)
	if _, err := revoker.s.Revoke(context.Background(), revoked.status(t).Device); err != nil {
		t.Fatal(err)
	}
	late := revoked.add(t, vault.Internal, "Written after the revocation")
	if _, err := revoked.s.Now(context.Background()); !errors.Is(err, devsync.ErrRevoked) {
		t.Fatalf("the revoked device's exchange: %v", err)
	}
	cpath := filepath.Join(t.TempDir(), "vault.db")
	cv, r, err := devsync.Join(context.Background(), folder, cpath, []byte(vaulttest.Passphrase), "tablet", devsync.Options{Now: a.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cv.Close(); vaulttest.Check(t, cpath) }()
	if _, err := cv.Peek(late.ID); !errors.Is(err, vault.ErrNotFound) {
		t.Fatalf("the joiner applied a write made after the revocation: %v (%+v)", err, r)
	}
	if len(r.Refused) != 1 || !strings.Contains(r.Refused[0], "revoked") {
		t.Fatalf("the joiner's report: %+v", r)
	}
}

// TestSetupWithTombstones: the first segment carries the vault's
// tombstones, and a joiner keeps them, without a compaction (nothing
// removed was ever in the folder).
func TestSetupWithTombstones(t *testing.T) {
	var gone vault.Memory
	a, b := pair(t, sharedDir{t.TempDir()}, func(a *device) {
		gone = a.add(t, vault.Internal, "deleted before sync was set up")
		if err := a.v.Delete(gone.ID, vault.Actor{}); err != nil {
			t.Fatal(err)
		}
	})
	if st := a.status(t); st.Seq != 1 {
		t.Fatalf("A wrote %d segments at setup; want 1", st.Seq)
	}
	if dead, err := b.v.Tombstoned(gone.ID); err != nil || !dead {
		t.Fatalf("the joiner has no tombstone: %v, %v", dead, err)
	}
}
