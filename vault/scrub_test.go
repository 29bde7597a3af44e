package vault_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"regexp"
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
	// Add concurrently, so bbolt's Batch shares commits as under agents.
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
