package app_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// modelMemory is what the model knows of one memory.
type modelMemory struct {
	content      string
	pinned       bool
	userSemantic bool // saved by the user as semantic memory: never expires
	gone         bool // deleted or purged: must never come back
	purged       bool // purged by a sweep: its text must leave the file
	archived     bool // as the model last saw it
}

// TestLifecycleModel drives the service with random operations (writes by
// the user and by agents, pins, confirmations, refutations, deletions,
// restores, time passing, sweeps) and checks after every step what must
// hold whatever the decay rules decide:
//   - a memory that is gone (deleted, purged) never reappears, and its
//     purge or deletion is in the audit log;
//   - every other memory is either live or archived, never lost;
//   - pinned memories and the user's semantic memories are never swept;
//   - archived memories are out of recall, restored ones back in it;
//   - at most ten versions are kept;
//   - the audit chain verifies, and purged text is not in the file.
func TestLifecycleModel(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { runLifecycleModel(t, seed, 300) })
	}
}

func runLifecycleModel(t *testing.T, seed uint64, steps int) {
	v, clock := vaulttest.New(t, vaulttest.NoSync) // durability is not what this checks
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	model := map[string]*modelMemory{}
	var ids []string
	agents := []app.Request{claude, cursor}
	pick := func() (string, *modelMemory) {
		if len(ids) == 0 {
			return "", nil
		}
		id := ids[rng.IntN(len(ids))]
		return id, model[id]
	}
	archives, purges, restores := 0, 0, 0
	fields := []app.Field{"learnings", "preferences", "conventions", "decisions"}
	kinds := []app.Kind{"fact", "preference", "event", "pattern", "knowledge"}

	for step := 0; step < steps; step++ {
		var what string
		switch op := rng.IntN(100); {
		case op < 30: // a write
			n := len(ids)
			content := fmt.Sprintf("memory %d of seed %d: zq%dx%d", n, seed, seed, n)
			in := app.StoreInput{Content: content, Kind: kinds[rng.IntN(len(kinds))], Tier: "episodic", Field: fields[rng.IntN(len(fields))]}
			req := operator
			if rng.IntN(2) == 0 {
				req = agents[rng.IntN(2)]
			} else if rng.IntN(2) == 0 {
				in.Tier = "semantic"
			}
			in.Pinned = rng.IntN(8) == 0
			r := s.Store(ctx, req, in)
			if !r.OK() {
				t.Fatalf("step %d: store: %s %s", step, r.Status, r.Message)
			}
			ids = append(ids, r.Memory.ID)
			model[r.Memory.ID] = &modelMemory{content: content, pinned: in.Pinned, userSemantic: req.Caller.Operator && in.Tier == "semantic"}
			what = "store"
		case op < 40:
			id, m := pick()
			if m == nil || m.gone || m.archived {
				continue
			}
			text := m.content + " (edited)"
			if r := s.Update(ctx, operator, id, app.UpdateInput{Content: &text}); !r.OK() {
				t.Fatalf("step %d: update: %s", step, r.Message)
			}
			m.content = text
			what = "update"
		case op < 48:
			id, m := pick()
			if m == nil || m.gone || m.archived {
				continue
			}
			if r := s.SetPinned(ctx, operator, id, !m.pinned); !r.OK() {
				t.Fatalf("step %d: pin: %s", step, r.Message)
			}
			m.pinned = !m.pinned
			what = "pin"
		case op < 55:
			id, m := pick()
			if m == nil || m.gone || m.archived {
				continue
			}
			if r := s.Confirm(ctx, operator, id, "still true"); !r.OK() {
				t.Fatalf("step %d: confirm: %s", step, r.Message)
			}
			what = "confirm"
		case op < 58:
			id, m := pick()
			if m == nil || m.gone || m.archived || m.pinned || m.userSemantic {
				continue // a refuted memory is archived: keep the invariants simple
			}
			if r := s.Refute(ctx, operator, id, "no longer true"); !r.OK() {
				t.Fatalf("step %d: refute: %s", step, r.Message)
			}
			what = "refute"
		case op < 63:
			id, m := pick()
			if m == nil || m.gone {
				continue
			}
			if r := s.Delete(ctx, operator, id); !r.OK() {
				t.Fatalf("step %d: delete: %s", step, r.Message)
			}
			m.gone = true
			what = "delete"
		case op < 68:
			id, m := pick()
			if m == nil || m.gone || !m.archived {
				continue
			}
			if r := s.Restore(ctx, operator, id); !r.OK() {
				t.Fatalf("step %d: restore: %s", step, r.Message)
			}
			m.archived = false
			restores++
			what = "restore"
		case op < 88:
			clock.Advance(time.Duration(1+rng.IntN(120)) * 24 * time.Hour)
			what = "time"
		default:
			r := s.Sweep(ctx, operator, clock.Now(), decay.DefaultPolicy(), 0)
			if !r.OK() {
				t.Fatalf("step %d: sweep: %s", step, r.Message)
			}
			for _, a := range r.Actions {
				m := model[a.ID]
				switch {
				case m == nil:
					t.Fatalf("step %d: the sweep acted on unknown memory %s", step, a.ID)
				case m.pinned:
					t.Fatalf("step %d: the sweep %sd pinned memory %s (%s)", step, a.Action, a.ID, a.Reason)
				case m.userSemantic && a.Action == "archive" && a.Reason != string(decay.ReasonRefuted):
					t.Fatalf("step %d: the sweep archived the user's semantic memory %s (%s)", step, a.ID, a.Reason)
				case a.Action == "purge":
					m.gone, m.purged = true, true
					purges++
				default:
					archives++
				}
			}
			what = "sweep"
		}
		checkModel(t, s, v, model, step, what)
	}
	// A run that never archived, purged or restored checked nothing.
	if archives == 0 || purges == 0 || restores == 0 {
		t.Fatalf("the run archived %d, purged %d and restored %d memories: too few to test the lifecycle", archives, purges, restores)
	}
	t.Logf("%d steps: %d memories, %d archived, %d purged, %d restored", steps, len(ids), archives, purges, restores)
}

func checkModel(t *testing.T, s *app.Service, v *vault.Vault, model map[string]*modelMemory, step int, what string) {
	t.Helper()
	all := s.List(ctx, operator, app.ListInput{Partitions: app.Partitions})
	seen := map[string]bool{}
	for _, m := range all.Memories {
		mm := model[m.ID]
		if mm == nil {
			t.Fatalf("step %d (%s): unknown memory %s", step, what, m.ID)
		}
		if mm.gone {
			t.Fatalf("step %d (%s): memory %s came back after it was deleted or purged", step, what, m.ID)
		}
		mm.archived = m.Partition == vault.Archive
		seen[m.ID] = true
		if what == "sweep" {
			if h := s.History(ctx, operator, m.ID); len(h.Versions) > 10 {
				t.Fatalf("step %d: %d versions of %s kept", step, len(h.Versions), m.ID)
			}
		}
	}
	for id, mm := range model {
		if !mm.gone && !seen[id] {
			t.Fatalf("step %d (%s): memory %s was lost (neither live, archived nor purged)", step, what, id)
		}
	}
	if what != "sweep" && what != "delete" {
		return
	}
	rep, r := s.VerifyAudit(ctx, operator)
	if !r.OK() || !rep.OK() {
		t.Fatalf("step %d: audit chain: %+v %v", step, r, rep.Problems)
	}
	gone := map[string]bool{}
	entries := s.Audit(ctx, operator, app.AuditInput{}).Entries
	for _, e := range entries {
		if e.Action == "memory:purged" || e.Action == "memory:delete" {
			gone[e.MemoryID] = true
		}
	}
	for id, mm := range model {
		if mm.gone && !gone[id] {
			t.Fatalf("step %d: memory %s is gone without a purge or delete in the audit log", step, id)
		}
	}
	if what == "sweep" {
		// Compaction after purges: their text must not be in the file.
		raw, err := os.ReadFile(v.Path())
		if err != nil {
			t.Fatal(err)
		}
		for id, mm := range model {
			if mm.purged && bytes.Contains(raw, []byte(mm.content)) {
				t.Fatalf("step %d: text of purged memory %s is still in the vault file", step, id)
			}
		}
	}
}
