package vault_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// markerRE matches the unique markers removalWorkload writes.
var markerRE = regexp.MustCompile(`mk[0-9a-f]{16}`)

func newMarker() string {
	var b [8]byte
	rand.Read(b[:])
	return "mk" + hex.EncodeToString(b[:])
}

// removalWorkload stores n memories with unique markers, updates some of
// them (a few past the ten-version limit), deletes and purges others,
// queues and drops quarantine entries, and stores vectors of memories it
// then deletes. It returns every marker written and those the vault
// must still hold, from a model of the documented rules (the last
// MaxVersions contents of each memory that remains), without reading the
// vault: its audited reads are commits that would reuse the freed pages.
func removalWorkload(t testing.TB, v *vault.Vault, n int, rng *mrand.Rand) (written []string, live map[string]bool) {
	t.Helper()
	parts := []vault.Partition{vault.Public, vault.Internal, vault.Internal, vault.Sensitive}
	ids := make([]string, n)
	hist := map[string][]string{} // id -> markers of its contents, oldest first
	written = make([]string, 0, 2*n)
	var mu sync.Mutex
	// Add concurrently, so the group commit shares commits as under agents.
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range work {
				mk := newMarker()
				m, err := v.Add(vaulttest.Memory(parts[i%len(parts)], "note "+strconv.Itoa(i)+" "+mk), operator)
				if err != nil {
					t.Errorf("Add: %v", err)
					return
				}
				mu.Lock()
				ids[i] = m.ID
				hist[m.ID] = []string{mk}
				written = append(written, mk)
				mu.Unlock()
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	update := func(id string) {
		mk := newMarker()
		written = append(written, mk)
		hist[id] = append(hist[id], mk)
		if _, err := v.Update(id, vault.OpUpdate, operator, func(m *vault.Memory) error {
			m.Content = "changed " + mk
			return nil
		}); err != nil {
			t.Fatalf("Update(%s): %v", id, err)
		}
	}
	for range n / 10 {
		update(ids[rng.IntN(n)])
	}
	for range max(n/1000, 3) { // past the ten-version limit
		id := ids[rng.IntN(n)]
		for range vault.MaxVersions + 3 {
			update(id)
		}
	}
	vecs := map[string][]byte{}
	for i := range n / 20 {
		if id := ids[i*20]; id != "" {
			m, err := v.Get(id, operator)
			if err == nil && !m.Sensitive() {
				vecs[id] = []byte("vector of " + m.Content)
			}
		}
	}
	if err := v.PutVectors(vecs); err != nil {
		t.Fatal(err)
	}
	for i := range n / 5 {
		id := ids[rng.IntN(n)]
		var err error
		if i%2 == 0 {
			err = v.Delete(id, operator)
		} else {
			err = v.Purge(id, "test", operator)
		}
		if err != nil && !errors.Is(err, vault.ErrNotFound) {
			t.Fatalf("remove %s: %v", id, err)
		}
		delete(hist, id)
	}
	for i := range max(n/100, 4) {
		mk := newMarker()
		written = append(written, mk)
		data, _ := json.Marshal(map[string]string{"content": "queued " + mk})
		qid := fmt.Sprintf("q%d", i)
		if err := v.QueuePut(qid, data, i%2 == 0, vault.AuditEntry{Action: "quarantine:add", Agent: "a"}); err != nil {
			t.Fatal(err)
		}
		if err := v.QueueDelete(qid, vault.AuditEntry{Action: "quarantine:discard", Agent: vault.AgentOperator}); err != nil {
			t.Fatal(err)
		}
	}
	live = map[string]bool{}
	for _, h := range hist {
		for _, mk := range h[max(0, len(h)-vault.MaxVersions):] {
			live[mk] = true
		}
	}
	return written, live
}

// TestRemovedLeavesNoBytes is the removal property: after a workload of
// stores, updates, deletes, purges, versions pushed out and quarantine
// entries dropped, and the vault closed, no removed marker appears
// anywhere in the file's bytes. ENGRAM_SCRUB_100K=1 runs it at 100,000
// memories as well.
func TestRemovedLeavesNoBytes(t *testing.T) {
	sizes := []int{1000}
	if os.Getenv("ENGRAM_SCRUB_100K") != "" {
		sizes = append(sizes, 100_000)
	}
	for _, n := range sizes {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			v, _ := vaulttest.New(t, vaulttest.NoSync)
			rng := mrand.New(mrand.NewPCG(uint64(n), 19))
			written, live := removalWorkload(t, v, n, rng)
			var removed []string
			for _, mk := range written {
				if !live[mk] {
					removed = append(removed, mk)
				}
			}
			start := time.Now()
			st, err := v.Scrub(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("scrub: %d free pages, %d zeroed, writer pause %v, total %v", st.FreePages, st.ZeroedPages, st.Pause, time.Since(start))
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(v.Path())
			if err != nil {
				t.Fatal(err)
			}
			inFile := map[string]bool{}
			for _, mk := range markerRE.FindAll(data, -1) {
				inFile[string(mk)] = true
			}
			found, kept := 0, 0
			for mk := range live {
				if inFile[mk] {
					kept++
				}
			}
			for _, mk := range removed {
				if inFile[mk] {
					found++
					if found <= 3 {
						t.Errorf("removed marker %s is still in the file", mk)
					}
				}
			}
			t.Logf("%d memories, %d markers written, %d removed, %d of them still in the file (%d bytes); %d of %d kept markers found in clear (the rest sealed)", n, len(written), len(removed), found, len(data), kept, len(live))
			if found > 0 {
				t.Errorf("%d of %d removed markers are still in the vault file", found, len(removed))
			}
			if len(removed) < n/10 {
				t.Errorf("only %d markers removed: the workload is too small to test anything", len(removed))
			}
		})
	}
}

// TestRemovedLeavesNothingToCheckAGuess is the removal property for what
// is derived from the text: after public, internal and sensitive memories
// are deleted or purged (unlocked and locked), after versions are dropped
// (as a forget request drops those that mention its topic) or pushed out
// by the version budget, and a scrub,
// the file holds neither the removed texts nor their SHA-256 (hex or raw)
// nor the state hashes of the removed versions (hex or raw): nothing a
// guess of the text could be checked against. Keyed fingerprints may stay.
func TestRemovedLeavesNothingToCheckAGuess(t *testing.T) {
	v, _ := vaulttest.New(t)
	agent := vault.Actor{Agent: "claude-code", Reason: "test"}
	type removed struct{ what, text, state string }
	var gone []removed
	var kept []string // texts still stored in clear: their hashes must be found
	parts := []vault.Partition{vault.Public, vault.Internal, vault.Sensitive}
	var ids []string
	for i := range 12 {
		p := parts[i%len(parts)]
		m, err := v.Add(vaulttest.Memory(p, "note "+strconv.Itoa(i)+" about "+newMarker()), agent)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Get(m.ID, agent); err != nil { // a read is audited too
			t.Fatal(err)
		}
		// A second version: the first is the one dropped below.
		next, err := v.Update(m.ID, vault.OpUpdate, agent, func(m *vault.Memory) error {
			m.Content = "note " + strconv.Itoa(i) + " now about " + newMarker()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case i < 6: // the memory goes, with both versions
			gone = append(gone, removed{"memory " + m.ID + " v1", m.Content, m.StateHash()}, removed{"memory " + m.ID + " v2", next.Content, next.StateHash()})
			ids = append(ids, m.ID)
		default: // the memory stays, its first version goes
			gone = append(gone, removed{"version 1 of " + m.ID, m.Content, m.StateHash()})
			if n, err := v.DropVersions(m.ID, []int{1}, "forget topic", operator); err != nil || n != 1 {
				t.Fatalf("DropVersions = %d, %v", n, err)
			}
			if !next.Sensitive() {
				kept = append(kept, next.Content)
			}
		}
	}
	// Versions pushed out by the version budget are removed as well.
	b, err := v.Add(vaulttest.Memory(vault.Internal, "budget note "+newMarker()), agent)
	if err != nil {
		t.Fatal(err)
	}
	states := map[int]removed{1: {"version 1 of " + b.ID, b.Content, b.StateHash()}}
	for n := 2; n <= vault.MaxVersions+2; n++ {
		next, err := v.Update(b.ID, vault.OpUpdate, agent, func(m *vault.Memory) error {
			m.Content = "budget note " + strconv.Itoa(n) + " " + newMarker()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		states[n] = removed{"version " + strconv.Itoa(n) + " of " + b.ID, next.Content, next.StateHash()}
	}
	hist, err := v.History(b.ID, operator)
	if err != nil {
		t.Fatal(err)
	}
	for _, ver := range hist {
		kept = append(kept, states[ver.Version].text)
		delete(states, ver.Version)
	}
	for _, r := range states {
		gone = append(gone, r)
	}
	for i, id := range ids {
		var err error
		switch i % 3 {
		case 0:
			err = v.Delete(id, operator)
		case 1:
			err = v.Purge(id, "forget", operator)
		default: // removed while locked: no key, so no fingerprint at all
			if info, _ := v.Stat(id); info.Sealed {
				err = v.Purge(id, "forget", operator)
				break
			}
			v.Lock()
			err = v.Delete(id, operator)
			if uerr := v.Unlock(ctx, []byte(vaulttest.Passphrase)); uerr != nil {
				t.Fatal(uerr)
			}
		}
		if err != nil {
			t.Fatalf("remove %s: %v", id, err)
		}
	}
	if _, err := v.Scrub(ctx); err != nil {
		t.Fatal(err)
	}
	path := v.Path()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	find := func(what string, needle []byte) {
		if bytes.Contains(data, needle) {
			t.Errorf("the file still holds %s", what)
		}
	}
	for _, r := range gone {
		sum := sha256.Sum256([]byte(r.text))
		state, _ := hex.DecodeString(r.state)
		find("the text of "+r.what, []byte(r.text))
		find("the hex SHA-256 of "+r.what, []byte(hex.EncodeToString(sum[:])))
		find("the SHA-256 of "+r.what, sum[:])
		find("the state hash of "+r.what, []byte(r.state))
		find("the raw state hash of "+r.what, state)
	}
	// The scan sees hashes where they are: a kept plaintext memory's
	// record holds its content hash.
	for _, text := range kept {
		if !bytes.Contains(data, []byte(vault.HashContent(text))) {
			t.Errorf("the content hash of the kept %q is not in the file: the scan is blind", text)
		}
	}
	if len(gone) != 20 || len(kept) != 14 {
		t.Fatalf("%d removed, %d kept: the workload changed", len(gone), len(kept))
	}
}

// TestCloseScrubs: a command that deletes and closes leaves no byte of
// the deleted text, without calling Scrub itself.
func TestCloseScrubs(t *testing.T) {
	v, _ := vaulttest.New(t)
	mk := newMarker()
	m := mustAdd(t, v, vault.Internal, "the deploy key lives in "+mk)
	if err := v.Delete(m.ID, operator); err != nil {
		t.Fatal(err)
	}
	if !v.ScrubPending() {
		t.Error("ScrubPending() = false after a delete, want true")
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(v.Path())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(regexp.MustCompile(mk).FindAllIndex(data, -1)); n != 0 {
		t.Errorf("after Delete and Close the file holds %d copies of the deleted text, want 0", n)
	}
}

// BenchmarkScrub100k measures, at 100,000 memories (ENGRAM_BENCH_N to
// change it), a Scrub after each deletion of ten memories with fsync on:
// the writers' pause (the scrub's hold on the write lock) and the whole
// scrub, and the worst latency of a write issued every 5 ms while the
// scrubs run. Then it reports one Compact of the same vault for
// comparison: Compact holds every reader and writer for its whole run.
func BenchmarkScrub100k(b *testing.B) {
	n := 100_000
	if s := os.Getenv("ENGRAM_BENCH_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	v, _ := vaulttest.New(b, vaulttest.NoSync)
	rng := mrand.New(mrand.NewPCG(1, 2))
	_, _ = removalWorkload(b, v, n, rng)
	if _, err := v.Scrub(context.Background()); err != nil {
		b.Fatal(err)
	}
	path := v.Path()
	v.Close()
	v, err := vault.Open(path, vault.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	if err := v.Unlock(context.Background(), []byte(vaulttest.Passphrase)); err != nil {
		b.Fatal(err)
	}
	var ids []string
	if _, err := v.Each(vault.ListFilter{}, func(m *vault.Memory) error {
		ids = append(ids, m.ID)
		return nil
	}); err != nil {
		b.Fatal(err)
	}

	// A writer storing every 5 ms, as agents would, measured first beside
	// the deletions alone, then beside the deletions and their scrubs.
	var mu sync.Mutex
	var lat []time.Duration
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			start := time.Now()
			if _, err := v.Add(vaulttest.Memory(vault.Internal, "a write beside the scrub "+newMarker()), operator); err != nil {
				b.Error(err)
				return
			}
			mu.Lock()
			lat = append(lat, time.Since(start))
			mu.Unlock()
		}
	})
	i := 0
	deleteTen := func() {
		for range 10 {
			if err := v.Delete(ids[i%len(ids)], operator); err != nil && !errors.Is(err, vault.ErrNotFound) {
				b.Fatal(err)
			}
			i++
		}
	}
	pct := func(q float64) float64 {
		mu.Lock()
		defer mu.Unlock()
		s := slices.Clone(lat)
		slices.Sort(s)
		if len(s) == 0 {
			return 0
		}
		return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
	}
	for range 30 {
		deleteTen()
		// Pacing, not a wait: the baseline gives the writer a scrub's
		// time (about 50 ms) beside the deletions alone.
		time.Sleep(50 * time.Millisecond)
	}
	baseP99, baseMax := pct(0.99), pct(1)
	mu.Lock()
	lat = lat[:0]
	mu.Unlock()
	var pause, total, held, worstPause time.Duration
	zeroed := 0
	for b.Loop() {
		deleteTen()
		start := time.Now()
		st, err := v.Scrub(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		pause += st.Pause
		held += st.Held
		worstPause = max(worstPause, st.Pause)
		zeroed += st.ZeroedPages
	}
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(pause.Microseconds())/float64(b.N)/1000, "pause-ms/op")
	b.ReportMetric(float64(worstPause.Microseconds())/1000, "worst-pause-ms")
	b.ReportMetric(float64(held.Microseconds())/float64(b.N)/1000, "held-ms/op")
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "scrub-ms/op")
	b.ReportMetric(float64(zeroed)/float64(b.N), "zeroed-pages/op")
	b.ReportMetric(pct(0.99), "write-p99-ms")
	b.ReportMetric(pct(1), "write-max-ms")
	b.ReportMetric(baseP99, "write-p99-noscrub-ms")
	b.ReportMetric(baseMax, "write-max-noscrub-ms")
	start := time.Now()
	before, after, err := v.Compact(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "compact-ms")
	b.Logf("compact: %d -> %d bytes", before, after)
}
