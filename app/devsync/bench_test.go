package devsync_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/engram-app/engram/app/devsync"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// quantiles reports the p50 and p99 of ds (milliseconds) on b.
func quantiles(b *testing.B, name string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), name+"-p50-ms")
	b.ReportMetric(at(0.99), name+"-p99-ms")
}

// BenchmarkConvergeSyncthing measures, over two Syncthing instances on
// loopback, the time from a store on device A to the memory being in
// device B's vault: A's exchange writes its segment, Syncthing is asked
// to scan A's folder (as its folder watcher would, after its delay),
// carries the file to B, and B's exchange applies it.
func BenchmarkConvergeSyncthing(b *testing.B) {
	tr := newSyncthingPair(b)
	ctx := context.Background()
	av, _ := vaulttest.New(b)
	sa := devsync.New(av, devsync.Options{})
	if _, err := sa.Setup(ctx, tr.a.folder, "a"); err != nil {
		b.Fatal(err)
	}
	tr.settle(b)
	bv, _, err := devsync.Join(ctx, tr.b.folder, filepath.Join(b.TempDir(), "vault.db"), []byte(vaulttest.Passphrase), "b", devsync.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer bv.Close()
	sb := devsync.New(bv, devsync.Options{})
	var ds []time.Duration
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		m, err := av.Add(vaulttest.Memory(vault.Internal, "converge note "+strconv.Itoa(i)), vault.Actor{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sa.Now(ctx); err != nil {
			b.Fatal(err)
		}
		tr.a.scan(b)
		tr.settle(b)
		if r, err := sb.Now(ctx); err != nil || r.Changed != 1 {
			b.Fatalf("B's exchange: %+v, %v", r, err)
		}
		ds = append(ds, time.Since(start))
		if _, err := bv.Peek(m.ID); err != nil {
			b.Fatal(err)
		}
	}
	quantiles(b, "converge", ds)
}

// BenchmarkJoin measures setting up sync for a vault of N memories
// (ENGRAM_SYNC_N, default 10,000), the bytes it writes to the folder per
// memory, and joining a second device from that folder.
func BenchmarkJoin(b *testing.B) {
	n := 10000
	if s := os.Getenv("ENGRAM_SYNC_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	av, _ := vaulttest.New(b, vaulttest.NoSync)
	for i := range n {
		m := vaulttest.Memory(vault.Internal, fmt.Sprintf("Memory %d: the build of service %d runs on the ci-%d runner and takes about %d minutes", i, i%97, i%13, i%40))
		m.Tags = []string{"build", "ci"}
		if _, err := av.Add(m, vault.Actor{}); err != nil {
			b.Fatal(err)
		}
	}
	folder := b.TempDir()
	start := time.Now()
	if _, err := devsync.New(av, devsync.Options{}).Setup(ctx, folder, "a"); err != nil {
		b.Fatal(err)
	}
	setup := time.Since(start)
	var size int64
	filepath.WalkDir(folder, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	var joins []time.Duration
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "vault.db")
		start := time.Now()
		bv, r, err := devsync.Join(ctx, folder, path, []byte(vaulttest.Passphrase), "b", devsync.Options{})
		if err != nil {
			b.Fatal(err)
		}
		joins = append(joins, time.Since(start))
		if r.Changed != n {
			b.Fatalf("joined %d memories, want %d", r.Changed, n)
		}
		bv.Close()
	}
	// Reported after the loop: b.Loop drops metrics reported before it.
	b.ReportMetric(setup.Seconds(), "setup-s")
	b.ReportMetric(float64(size)/float64(n), "folder-bytes/memory")
	b.ReportMetric(slices.Max(joins).Seconds(), "join-s")
}

// BenchmarkStoreBesideSync measures a store's latency (vault.Add with
// fsync) with no sync ("off"), with a running Engram's watch beside it
// ("watch": an exchange every WatchInterval while stores arrive), and
// with this device exchanging with the folder without pause ("busy", the
// worst case), to show that the sync is not in the write path: what it
// costs a store is sharing the vault's one writer and the disk. Run them
// alternately, each in its own process:
// -bench 'StoreBesideSync/off' -benchtime 2000x, then /watch, then /busy.
func BenchmarkStoreBesideSync(b *testing.B) {
	for _, mode := range []string{"off", "watch", "busy"} {
		b.Run(mode, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			v, _ := vaulttest.New(b)
			s := devsync.New(v, devsync.Options{})
			if _, err := s.Setup(ctx, b.TempDir(), "a"); err != nil {
				b.Fatal(err)
			}
			done := make(chan struct{})
			exchanges := 0
			switch mode {
			case "off":
				close(done)
			case "watch":
				t := time.NewTicker(devsync.WatchInterval)
				go func() {
					defer close(done)
					defer t.Stop()
					s.Watch(ctx, t.C, func(devsync.Report, error) { exchanges++ })
				}()
			case "busy":
				go func() {
					defer close(done)
					for ctx.Err() == nil {
						s.Now(ctx)
						exchanges++
					}
				}()
			}
			var ds []time.Duration
			i := 0
			for b.Loop() {
				i++
				start := time.Now()
				if _, err := v.Add(vaulttest.Memory(vault.Internal, "store beside sync "+strconv.Itoa(i)), vault.Actor{}); err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
			}
			cancel()
			<-done
			quantiles(b, "store", ds)
			b.ReportMetric(float64(exchanges), "exchanges")
		})
	}
}

// BenchmarkSegmentPerStore measures the bytes one store adds to the
// folder when it is synced on its own: one segment carrying one memory
// (a sentence of about 90 characters, two tags) and its first version.
func BenchmarkSegmentPerStore(b *testing.B) {
	ctx := context.Background()
	v, _ := vaulttest.New(b, vaulttest.NoSync)
	s := devsync.New(v, devsync.Options{})
	if _, err := s.Setup(ctx, b.TempDir(), "a"); err != nil {
		b.Fatal(err)
	}
	var total int64
	i := 0
	for b.Loop() {
		i++
		m := vaulttest.Memory(vault.Internal, fmt.Sprintf("Memory %d: the build of service %d runs on the ci-%d runner and takes about %d minutes", i, i%97, i%13, i%40))
		m.Tags = []string{"build", "ci"}
		if _, err := v.Add(m, vault.Actor{}); err != nil {
			b.Fatal(err)
		}
		r, err := s.Now(ctx)
		if err != nil || r.Sent != 1 {
			b.Fatalf("%+v, %v", r, err)
		}
		info, err := os.Stat(r.Segment)
		if err != nil {
			b.Fatal(err)
		}
		total += info.Size()
	}
	b.ReportMetric(float64(total)/float64(i), "segment-bytes/store")
}
