package vault_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
	bolt "go.etcd.io/bbolt"
)

// versionNumbers lists the kept versions of id.
func versionNumbers(t *testing.T, v *vault.Vault, id string) ([]int, []vault.Version) {
	t.Helper()
	hist, err := v.History(id, operator)
	if err != nil {
		t.Fatalf("History(%s) = %v", id, err)
	}
	var nums []int
	for _, h := range hist {
		nums = append(nums, h.Version)
	}
	return nums, hist
}

// TestConfirmationsKeepRollback is issue 17's item 6: twelve confirmations
// and a run of tag changes after two edits must leave the original and
// both edits in the history, and each must roll back.
func TestConfirmationsKeepRollback(t *testing.T) {
	for _, p := range []vault.Partition{vault.Internal, vault.Sensitive} {
		t.Run(string(p), func(t *testing.T) {
			v, clock := vaulttest.New(t)
			m := mustAdd(t, v, p, "the original text")
			contents := []string{"the original text", "the first edit", "the second edit"}
			for _, c := range contents[1:] {
				clock.Advance(time.Minute)
				if _, err := v.Update(m.ID, vault.OpUpdate, operator, func(m *vault.Memory) error { m.Content = c; return nil }); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 12 {
				clock.Advance(time.Minute)
				who := operator
				if i%2 == 1 {
					who = vault.Actor{Agent: "claude-code"}
				}
				if _, err := v.Verify(m.ID, vault.Confirmed, "still true", who); err != nil {
					t.Fatalf("Verify #%d = %v", i+1, err)
				}
			}
			for i := range 12 {
				clock.Advance(time.Minute)
				if _, err := v.Update(m.ID, vault.OpTag, operator, func(m *vault.Memory) error { m.Tags = []string{fmt.Sprint("tag-", i)}; return nil }); err != nil {
					t.Fatalf("tag change #%d = %v", i+1, err)
				}
			}
			nums, hist := versionNumbers(t, v, m.ID)
			for n := 1; n <= 3; n++ {
				if !slices.Contains(nums, n) {
					t.Fatalf("kept versions = %v after 12 confirmations and 12 tag changes; version %d (%q) was pushed out", nums, n, contents[n-1])
				}
			}
			if len(hist) > vault.MaxVersions+vault.MaxMetadataVersions || hist[len(hist)-1].Version != 15 {
				t.Fatalf("kept versions = %v, want at most %d ending at 15 (3 contents and 12 tag changes; confirmations make none)", nums, vault.MaxVersions+vault.MaxMetadataVersions)
			}
			cur, err := v.Get(m.ID, operator)
			if err != nil || len(cur.Provenance.Verifications) != 12 {
				t.Fatalf("Get = %d verifications, %v; want 12", len(cur.Provenance.Verifications), err)
			}
			for n := 1; n <= 3; n++ {
				rb, err := v.Rollback(m.ID, n, operator)
				if err != nil || rb.Content != contents[n-1] || rb.StateHash() != hist[slices.Index(nums, n)].StateHash {
					t.Fatalf("Rollback(%d) = %q, %v; want %q with its state hash", n, rb.Content, err, contents[n-1])
				}
				if len(rb.Provenance.Verifications) != 12 {
					t.Fatalf("Rollback(%d) kept %d verifications, want 12: a rollback restores state, not provenance", n, len(rb.Provenance.Verifications))
				}
			}
			// The rollbacks are content versions too: every content is still there.
			nums, _ = versionNumbers(t, v, m.ID)
			for n := 1; n <= 3; n++ {
				if !slices.Contains(nums, n) {
					t.Fatalf("kept versions after the rollbacks = %v; version %d was pushed out", nums, n)
				}
			}
		})
	}
}

// TestVersionBudgets checks the two budgets: content versions beyond
// MaxVersions go oldest first together with the metadata versions after
// them, metadata versions beyond MaxMetadataVersions go oldest first, and
// pinned versions stay.
func TestVersionBudgets(t *testing.T) {
	v, clock := vaulttest.New(t)
	m := mustAdd(t, v, vault.Internal, "content 1")
	content := map[int]string{1: "content 1"}
	n := 1
	edit := func(op vault.Operation, fn func(m *vault.Memory)) {
		t.Helper()
		clock.Advance(time.Minute)
		got, err := v.Update(m.ID, op, operator, func(m *vault.Memory) error { fn(m); return nil })
		if err != nil {
			t.Fatal(err)
		}
		n = got.Version
		content[n] = got.Content
	}
	// 14 contents, each followed by a tag change; version 4 is pinned.
	for i := 2; i <= 14; i++ {
		edit(vault.OpUpdate, func(m *vault.Memory) { m.Content = fmt.Sprint("content ", i); m.Pinned = i == 3 })
		edit(vault.OpTag, func(m *vault.Memory) { m.Tags = []string{fmt.Sprint("t", i)} })
	}
	nums, _ := versionNumbers(t, v, m.ID)
	// Version 1 is content 1, then versions 2k and 2k+1 are content k+1
	// and its tag change, up to 27. Versions 4 and 5 (content 3 and its
	// tag change) are pinned. 14 contents: the four oldest unpinned ones
	// go (1, 2, 6, 8) with their tag changes; ten contents and ten tag
	// changes stay.
	want := []int{4, 5, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27}
	if fmt.Sprint(nums) != fmt.Sprint(want) {
		t.Fatalf("kept versions = %v, want %v", nums, want)
	}
	// A long run of attribute changes keeps MaxMetadataVersions of them
	// (the pinned 5 and the newest nine) and every content version.
	for i := range 25 {
		edit(vault.OpPin, func(m *vault.Memory) { m.Pinned = false; m.Tags = []string{fmt.Sprint("p", i)} })
	}
	nums, hist := versionNumbers(t, v, m.ID)
	contents, meta := 0, 0
	for i, h := range hist {
		if i == 0 || h.ContentHash != hist[i-1].ContentHash {
			contents++
		} else {
			meta++
		}
	}
	if contents != vault.MaxVersions || meta != vault.MaxMetadataVersions || nums[len(nums)-1] != n {
		t.Fatalf("kept versions = %v: %d content and %d metadata versions, want %d and %d ending at %d", nums, contents, meta, vault.MaxVersions, vault.MaxMetadataVersions, n)
	}
	for _, want := range []int{4, 10, 12, 14, 16, 18, 20, 22, 24, 26} {
		if !slices.Contains(nums, want) {
			t.Fatalf("kept versions = %v: content version %d (%q) was pushed out by attribute changes", nums, want, content[want])
		}
	}
}

// TestVerifyMakesNoVersion: a verification rewrites the record in place,
// audited with equal versions, honours IfVersion, and needs the key for a
// sensitive memory.
func TestVerifyMakesNoVersion(t *testing.T) {
	for _, p := range []vault.Partition{vault.Public, vault.Sensitive} {
		t.Run(string(p), func(t *testing.T) {
			v, _ := vaulttest.New(t)
			m := mustAdd(t, v, p, "the API limit is 100/min")
			stale := vault.Actor{Agent: "claude-code", IfVersion: 2}
			if _, err := v.Verify(m.ID, vault.Confirmed, "", stale); !errors.Is(err, vault.ErrConflict) {
				t.Fatalf("Verify(if version 2) = %v, want ErrConflict", err)
			}
			got, err := v.Verify(m.ID, vault.Questioned, "the docs say 120", vault.Actor{Agent: "claude-code", IfVersion: 1})
			if err != nil || got.Version != 1 || !got.Updated.Equal(m.Updated) || len(got.Provenance.Modifications) != 0 {
				t.Fatalf("Verify = version %d, updated %v, %d modifications, %v; want version 1 unchanged", got.Version, got.Updated, len(got.Provenance.Modifications), err)
			}
			if nums, _ := versionNumbers(t, v, m.ID); fmt.Sprint(nums) != "[1]" {
				t.Fatalf("versions after Verify = %v, want [1]", nums)
			}
			log, _ := v.AuditLog(vault.AuditFilter{Action: vault.ActionUpdate})
			if len(log) != 1 || log[0].Reason != "VERIFY: QUESTIONED" || log[0].VersionBefore != 1 || log[0].VersionAfter != 1 || log[0].MemoryID != m.ID {
				t.Fatalf("verify audit = %+v", log)
			}
			// The rewritten record reads back after a restart.
			v = reopen(t, v)
			if err := v.Unlock(context.Background(), []byte(vaulttest.Passphrase)); err != nil {
				t.Fatal(err)
			}
			back, err := v.Get(m.ID, operator)
			if err != nil || len(back.Provenance.Verifications) != 1 || back.Provenance.Verifications[0].Evidence != "the docs say 120" {
				t.Fatalf("Get after reopen = %+v, %v", back.Provenance, err)
			}
			v.Lock()
			_, err = v.Verify(m.ID, vault.Confirmed, "", operator)
			if p == vault.Sensitive && !errors.Is(err, vault.ErrLocked) {
				t.Fatalf("Verify(sensitive, locked) = %v, want ErrLocked", err)
			}
			if p != vault.Sensitive && err != nil {
				t.Fatalf("Verify(%s, locked) = %v", p, err)
			}
		})
	}
}

// TestProvenanceForgetsDroppedStates: a plain memory's provenance keeps
// the state hash of the version before each change only while that
// version is kept (a dropped version's state hash would confirm a guess
// of its text), and one that an older Engram left is cleared at the
// memory's next change. A sealed memory's provenance, sealed, keeps them.
func TestProvenanceForgetsDroppedStates(t *testing.T) {
	for _, p := range []vault.Partition{vault.Internal, vault.Sensitive} {
		t.Run(string(p), func(t *testing.T) {
			v, _ := vaulttest.New(t)
			m := mustAdd(t, v, p, "budget note 0")
			first := m.StateHash()
			for i := range vault.MaxVersions + 2 {
				if _, err := v.Update(m.ID, vault.OpUpdate, operator, func(m *vault.Memory) error {
					m.Content = fmt.Sprintf("budget note %d", i+1)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			nums, hist := versionNumbers(t, v, m.ID)
			kept := map[int]string{}
			for _, h := range hist {
				kept[h.Version] = h.StateHash
			}
			got, err := v.Get(m.ID, operator)
			if err != nil {
				t.Fatal(err)
			}
			cleared := 0
			for _, mod := range got.Provenance.Modifications {
				s, ok := kept[mod.Version-1]
				switch {
				case ok && mod.PrevHash != s:
					t.Errorf("change to version %d names state %.12s, want version %d's %.12s", mod.Version, mod.PrevHash, mod.Version-1, s)
				case !ok && mod.PrevHash == "":
					cleared++
				case !ok && p != vault.Sensitive:
					t.Errorf("change to version %d keeps the state hash of version %d, which is not kept (kept: %v)", mod.Version, mod.Version-1, nums)
				}
			}
			if want := map[vault.Partition]int{vault.Internal: 3, vault.Sensitive: 0}[p]; cleared != want {
				t.Errorf("%d state hashes of dropped versions cleared, want %d (kept %v)", cleared, want, nums)
			}
			if p == vault.Sensitive {
				return
			}
			// As an older Engram left it: the state hash of version 1 (not
			// kept) in the change to version 2.
			path := v.Path()
			v.Close()
			tamper(t, path, func(tx *bolt.Tx) error {
				return forgeRecord(t, tx, p, m.ID, func(m *vault.Memory) { m.Provenance.Modifications[0].PrevHash = first })
			})
			v2, err := vault.Open(path, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer v2.Close()
			if r, err := v2.Check(context.Background()); err != nil || len(r.Problems) > 0 {
				t.Fatalf("Check of an older Engram's provenance = %+v, %v; want no problem", r, err)
			}
			if _, err := v2.Update(m.ID, vault.OpTag, operator, func(m *vault.Memory) error { m.Tags = []string{"x"}; return nil }); err != nil {
				t.Fatal(err)
			}
			got, err = v2.Get(m.ID, operator)
			if err != nil {
				t.Fatal(err)
			}
			if mods := got.Provenance.Modifications; mods[0].Version != 2 || mods[0].PrevHash != "" {
				t.Errorf("after the next change, the change to version %d names state %.12s; want none", mods[0].Version, mods[0].PrevHash)
			}
		})
	}
}
