package vaulttest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BareCommits is the floor under a vault write: n bbolt commits of one
// 500-byte value each, into a file of its own in dir, opened as the vault
// opens its file (fsync on commit), one commit every gap. It returns each
// commit's time, for a benchmark to set its writes' latencies beside.
// Such a commit writes about three pages; BareCommitsOf writes as many as
// the vault's own commits do.
func BareCommits(tb testing.TB, dir string, n int, gap time.Duration) []time.Duration {
	tb.Helper()
	ds, _ := BareCommitsOf(tb, dir, n, gap, 0)
	return ds
}

// BareCommitsOf is BareCommits with commits that change pages leaf pages
// each (one value in each of pages buckets too large to be inline) on top
// of the pages every commit writes (the root's, the freelist's): a commit
// of about the pages a vault's commit writes (vault.CommitStats), which
// the goal compares a store with. It also returns the pages its
// commits wrote on average, measured as CommitStats measures the vault's.
// pages 0 is BareCommits' single value.
func BareCommitsOf(tb testing.TB, dir string, n int, gap time.Duration, pages int) ([]time.Duration, float64) {
	tb.Helper()
	db, err := bolt.Open(filepath.Join(dir, fmt.Sprintf("bare-%d.db", pages)), 0o600, &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType, PreLoadFreelist: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	value := bytes.Repeat([]byte("x"), 500)
	names := make([][]byte, max(pages, 1))
	for i := range names {
		names[i] = fmt.Appendf(nil, "bare-%03d", i)
	}
	if pages > 0 {
		// Each bucket holds more than a quarter page, so it has a leaf
		// page of its own rather than living inline in its parent.
		fill := bytes.Repeat([]byte("f"), db.Info().PageSize/2)
		err := db.Update(func(tx *bolt.Tx) error {
			for _, name := range names {
				b, err := tx.CreateBucket(name)
				if err != nil {
					return err
				}
				if err := b.Put([]byte("fill"), fill); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	stats := db.Stats()
	before := stats.TxStats.GetPageAlloc()
	out := make([]time.Duration, 0, n)
	for i := range n {
		time.Sleep(gap)
		key := binary.BigEndian.AppendUint64(nil, uint64(i))
		start := time.Now()
		err := db.Update(func(tx *bolt.Tx) error {
			for _, name := range names {
				b, err := tx.CreateBucketIfNotExists(name)
				if err != nil {
					return err
				}
				if err := b.Put(key, value); err != nil {
					return err
				}
				if pages > 0 && i > 0 {
					// Keep the bucket at one leaf: the last value out.
					if err := b.Delete(binary.BigEndian.AppendUint64(nil, uint64(i-1))); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, time.Since(start))
	}
	stats = db.Stats()
	written := stats.TxStats.GetPageAlloc() - before
	return out, float64(written) / float64(db.Info().PageSize) / float64(max(n, 1))
}
