package vaulttest

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BareCommits is the floor under a vault write: n bbolt commits of one
// 500-byte value each, into a file of its own in dir, opened as the vault
// opens its file (fsync on commit), one commit every gap. It returns each
// commit's time, for a benchmark to set its writes' latencies beside.
func BareCommits(tb testing.TB, dir string, n int, gap time.Duration) []time.Duration {
	tb.Helper()
	db, err := bolt.Open(filepath.Join(dir, "bare.db"), 0o600, &bolt.Options{Timeout: time.Second, FreelistType: bolt.FreelistMapType, PreLoadFreelist: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	value := bytes.Repeat([]byte("x"), 500)
	out := make([]time.Duration, 0, n)
	for i := range n {
		time.Sleep(gap)
		start := time.Now()
		err := db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("bare"))
			if err != nil {
				return err
			}
			return b.Put(binary.BigEndian.AppendUint64(nil, uint64(i)), value)
		})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, time.Since(start))
	}
	return out
}
