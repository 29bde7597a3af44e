package quarantine

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/engram-app/engram/vault"
)

// listOrder compares two memories as vault.List lists them: by partition
// in the order of vault.LivePartitions, then by id.
func listOrder(a, b vault.Memory) int {
	if c := cmp.Compare(slices.Index(vault.LivePartitions, a.Partition), slices.Index(vault.LivePartitions, b.Partition)); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// TestReviewIndex: a review made by NewReview and grown by Add finds the
// same conflict as a plain scan of the same memories in listing order,
// whatever the words, fields, partitions and order of the additions.
// Texts are drawn from a few words, so that most items overlap several
// memories and the first in listing order decides.
func TestReviewIndex(t *testing.T) {
	vocab := strings.Fields("the deploy runs tests nightly builds cache staging ledger billing must never always retry queue for our")
	fields := []vault.Field{vault.Conventions, vault.Learnings}
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 39))
		text := func() string {
			ws := make([]string, 2+rng.IntN(6))
			for i := range ws {
				ws[i] = vocab[rng.IntN(len(vocab))]
			}
			return strings.Join(ws, " ")
		}
		n := 0 // ids are unique, in random order
		mem := func() vault.Memory {
			n++
			return vault.Memory{ID: fmt.Sprintf("m%05d-%04d", rng.IntN(100000), n), Partition: vault.LivePartitions[rng.IntN(len(vault.LivePartitions))],
				Field: fields[rng.IntN(len(fields))], Content: text()}
		}
		var listed []vault.Memory
		for range rng.IntN(30) {
			listed = append(listed, mem())
		}
		slices.SortFunc(listed, listOrder)
		r := NewReview(slices.Clone(listed))
		all := slices.Clone(listed)
		found := 0
		for i := range 200 {
			if rng.IntN(3) == 0 {
				m := mem()
				r.Add(m)
				all = append(all, m)
				continue
			}
			it := vault.Memory{Field: fields[rng.IntN(len(fields))], Content: text()}
			if rng.IntN(10) == 0 && len(all) > 0 {
				it.Content = all[rng.IntN(len(all))].Content
			}
			plain := Review{Existing: slices.SortedFunc(slices.Values(all), listOrder)}
			want := plain.conflicts(it)
			if got := r.conflicts(it); got != want {
				t.Fatalf("seed %d, item %d %q: conflicts with %q, a scan of the listing finds %q", seed, i, it.Content, got, want)
			}
			if want != "" {
				found++
			}
		}
		if found == 0 {
			t.Fatalf("seed %d: no item conflicted: the test compares nothing", seed)
		}
	}
}
