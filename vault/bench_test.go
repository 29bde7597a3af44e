package vault_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

var content500 = strings.Repeat("The staging deploy needs VPN access first. ", 12)[:500]

// BenchmarkWrite stores a 500-character memory: one bbolt transaction with
// the record, its first version and the audit entry.
func BenchmarkWrite(b *testing.B) {
	for _, sync := range []bool{false, true} {
		for _, p := range vault.LivePartitions {
			name := string(p) + "/nosync"
			opts := []vaulttest.Option{vaulttest.NoSync}
			if sync {
				name, opts = string(p)+"/fsync", nil
			}
			b.Run(name, func(b *testing.B) {
				v, _ := vaulttest.New(b, opts...)
				m := vaulttest.Memory(p, content500)
				for b.Loop() {
					if _, err := v.Add(m, operator); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkRead(b *testing.B) {
	for _, p := range vault.LivePartitions {
		b.Run(string(p), func(b *testing.B) {
			v, _ := vaulttest.New(b, vaulttest.NoSync)
			m, _ := v.Add(vaulttest.Memory(p, content500), operator)
			for b.Loop() {
				if _, err := v.Get(m.ID, operator); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRollback(b *testing.B) {
	for _, p := range []vault.Partition{vault.Internal, vault.Sensitive} {
		b.Run(string(p), func(b *testing.B) {
			v, _ := vaulttest.New(b, vaulttest.NoSync)
			m, _ := v.Add(vaulttest.Memory(p, content500), operator)
			cur, _ := v.Update(m.ID, vault.OpUpdate, operator, func(m *vault.Memory) error { m.Content = "changed"; return nil })
			for b.Loop() {
				// Roll back to the version before the newest, which is always kept.
				next, err := v.Rollback(m.ID, cur.Version-1, operator)
				if err != nil {
					b.Fatal(err)
				}
				cur = next
			}
		})
	}
}

func BenchmarkAuditAppend(b *testing.B) {
	v, _ := vaulttest.New(b, vaulttest.NoSync)
	e := vault.AuditEntry{Action: vault.ActionReject, Agent: "bench", Field: vault.Learnings, Result: vault.ResultDenied, Reason: "bench"}
	for b.Loop() {
		if err := v.Audit(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWritePaced is the disk's floor under the agent latency targets:
// one write every 20 ms, as a lightly loaded server sees them, each a
// bbolt commit with its two fdatasyncs, and beside it a bare 4 KB write
// and fdatasync to a file in the same directory. On a virtual disk a
// flush that follows a pause takes longer, and its tail is long, than one
// of a busy loop (BenchmarkWrite). Read p50 and p99.
//
//	go test ./vault -run '^$' -bench WritePaced -benchtime 300x
func BenchmarkWritePaced(b *testing.B) {
	const gap = 20 * time.Millisecond
	v, _ := vaulttest.New(b)
	f, err := os.Create(filepath.Join(filepath.Dir(v.Path()), "flush-probe"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, 4096)
	m := vaulttest.Memory(vault.Internal, content500)
	var commits, flushes []time.Duration
	i := 0
	for b.Loop() {
		// Pacing, not a wait: the pause before each write is what this
		// benchmark measures (a flush after idle, as an agent writes).
		time.Sleep(gap)
		start := time.Now()
		if _, err := v.Add(m, operator); err != nil {
			b.Fatal(err)
		}
		commits = append(commits, time.Since(start))
		time.Sleep(gap) // pacing, as above, before the raw flush
		start = time.Now()
		if _, err := f.WriteAt(page, int64(i%64)*4096); err != nil {
			b.Fatal(err)
		}
		if err := unix.Fdatasync(int(f.Fd())); err != nil {
			b.Fatal(err)
		}
		flushes = append(flushes, time.Since(start))
		i++
	}
	report := func(name string, ds []time.Duration) {
		slices.Sort(ds)
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, name+"-p50-ms")
		b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, name+"-p99-ms")
	}
	report("write", commits)
	report("fdatasync", flushes)
}

// BenchmarkWriteBesideTouch is BenchmarkWritePaced at 10,000 memories,
// while once a second the access times of 1,000 recalled memories are
// written, as the app's bookkeeping does: in one transaction, or in
// transactions of 64 memories in id order. bbolt has one writer, so a
// write that arrives during a long bookkeeping commit waits for all of
// it. Read write-p99.
//
//	go test ./vault -run '^$' -bench WriteBesideTouch -benchtime 300x
func BenchmarkWriteBesideTouch(b *testing.B) {
	for _, chunk := range []int{1000, 64} {
		b.Run(fmt.Sprintf("chunk-%d", chunk), func(b *testing.B) {
			v, clock := vaulttest.New(b, vaulttest.NoSync)
			var ids []string
			for i := range 10000 {
				m := vaulttest.Memory(vault.Internal, fmt.Sprintf("note %d: %s", i, content500[:200]))
				got, err := v.Add(m, operator)
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, got.ID)
			}
			path := v.Path()
			v.Close()
			v, err := vault.Open(path, vault.Options{Timeout: time.Second, Now: clock.Now})
			if err != nil {
				b.Fatal(err)
			}
			defer v.Close()
			if err := v.Unlock(context.Background(), []byte(vaulttest.Passphrase)); err != nil {
				b.Fatal(err)
			}
			stop := make(chan struct{})
			done := make(chan struct{})
			var touches []time.Duration
			go func() {
				defer close(done)
				at := clock.Now()
				for round := 0; ; round++ {
					select {
					case <-stop:
						return
					case <-time.After(time.Second):
					}
					at = at.Add(2 * vault.AccessStep)
					times := map[string]time.Time{}
					for i := range 1000 {
						times[ids[(round*1000+i*7)%len(ids)]] = at
					}
					keys := slices.Sorted(maps.Keys(times))
					start := time.Now()
					for part := range slices.Chunk(keys, chunk) {
						sub := map[string]time.Time{}
						for _, k := range part {
							sub[k] = at
						}
						if _, err := v.Touch(sub); err != nil {
							b.Error(err)
							return
						}
					}
					touches = append(touches, time.Since(start))
				}
			}()
			m := vaulttest.Memory(vault.Internal, content500)
			var commits []time.Duration
			for b.Loop() {
				// Pacing, not a wait: writes come 20 ms apart, as an
				// agent's do, while the toucher runs beside them.
				time.Sleep(20 * time.Millisecond)
				start := time.Now()
				if _, err := v.Add(m, operator); err != nil {
					b.Fatal(err)
				}
				commits = append(commits, time.Since(start))
			}
			close(stop)
			<-done
			slices.Sort(commits)
			b.ReportMetric(float64(commits[len(commits)/2].Microseconds())/1000, "write-p50-ms")
			b.ReportMetric(float64(commits[len(commits)*99/100].Microseconds())/1000, "write-p99-ms")
			b.ReportMetric(float64(commits[len(commits)-1].Microseconds())/1000, "write-max-ms")
			if len(touches) > 0 {
				slices.Sort(touches)
				b.ReportMetric(float64(touches[len(touches)/2].Microseconds())/1000, "touch-p50-ms")
			}
		})
	}
}

// BenchmarkEachPlain lists 10,000 plaintext memories of 500 bytes: the
// cost per record of reading one, record check (content hash) included.
func BenchmarkEachPlain(b *testing.B) {
	v, _ := vaulttest.New(b, vaulttest.NoSync)
	for i := range 10_000 {
		if _, err := v.Add(vaulttest.Memory(vault.Internal, fmt.Sprintf("%d %s", i, content500)), operator); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	for b.Loop() {
		if _, err := v.Each(vault.ListFilter{Partitions: []vault.Partition{vault.Internal}}, func(*vault.Memory) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
}

// BenchmarkCheck runs Check (what `engram doctor` runs) over 2,000
// memories of 500 characters with three versions each, unlocked: every
// record decoded and hashed, each memory compared with its newest
// snapshot and the audit log's fingerprints, the audit chain verified.
func BenchmarkCheck(b *testing.B) {
	v, _ := vaulttest.New(b, vaulttest.NoSync)
	for i := range 2000 {
		m, err := v.Add(vaulttest.Memory(vault.Internal, fmt.Sprintf("%d %s", i, content500)), operator)
		if err != nil {
			b.Fatal(err)
		}
		for j := range 2 {
			if _, err := v.Update(m.ID, vault.OpUpdate, operator, func(m *vault.Memory) error {
				m.Content = fmt.Sprintf("%d.%d %s", i, j, content500)
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	}
	for b.Loop() {
		r, err := v.Check(context.Background())
		if err != nil || len(r.Problems) > 0 {
			b.Fatalf("Check = %+v, %v", r, err)
		}
	}
}

// BenchmarkWriteConcurrent is BenchmarkWritePaced under many writers:
// 20 writers store 500-character memories at 100 writes a second in all,
// at random (Poisson) moments, each writer one write at a time, with
// fsync, as agents' stores reach the vault under load. A write's latency
// is counted from the moment it was due. Concurrent writes share commits
// (group commit); beside them, in the same run, 300 bare bbolt commits of
// one 500-byte value at half the pace are the floor
// (vaulttest.BareCommits), then 300 that write as many pages as the
// writes' commits did on average (vaulttest.BareCommitsOf). Read
// write-p99, write/bare-p99 and write/same-pages-p99.
//
//	go test ./vault -run '^$' -bench WriteConcurrent -benchtime 1x
func BenchmarkWriteConcurrent(b *testing.B) {
	const writers, rate, n = 20, 100.0, 1000
	v, _ := vaulttest.New(b)
	m := vaulttest.Memory(vault.Internal, content500)
	var lat []time.Duration
	before, err := v.CommitStats()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		// The due moments, drawn ahead: a Poisson process at rate.
		rng := rand.New(rand.NewPCG(1, 39))
		due := make([]time.Duration, n)
		at := time.Duration(0)
		for i := range due {
			at += time.Duration(rng.ExpFloat64() / rate * float64(time.Second))
			due[i] = at
		}
		next := make(chan int, n)
		for i := range n {
			next <- i
		}
		close(next)
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := time.Now()
		for range writers {
			wg.Go(func() {
				for i := range next {
					// Pacing, not a wait: the write is due then.
					time.Sleep(time.Until(start.Add(due[i])))
					if _, err := v.Add(m, operator); err != nil {
						b.Error(err)
						return
					}
					d := time.Since(start.Add(due[i]))
					mu.Lock()
					lat = append(lat, d)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	bare := vaulttest.BareCommits(b, b.TempDir(), 300, time.Duration(float64(time.Second)/(rate/2)))
	p := func(ds []time.Duration, q int) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)*q/100].Microseconds()) / 1000
	}
	b.ReportMetric(p(lat, 50), "write-p50-ms")
	b.ReportMetric(p(lat, 99), "write-p99-ms")
	b.ReportMetric(p(bare, 50), "bare-p50-ms")
	b.ReportMetric(p(bare, 99), "bare-p99-ms")
	b.ReportMetric(p(lat, 99)/p(bare, 99), "write/bare-p99")
	// And a commit of the pages the writes' commits wrote on average.
	after, err := v.CommitStats()
	if err != nil {
		b.Fatal(err)
	}
	pages := float64(after.Pages-before.Pages) / float64(max(after.Commits-before.Commits, 1))
	same, _ := vaulttest.BareCommitsOf(b, b.TempDir(), 300, time.Duration(float64(time.Second)/(rate/2)), max(1, int(math.Round(pages-2))))
	b.ReportMetric(pages, "pages/commit")
	b.ReportMetric(p(same, 99), "same-pages-p99-ms")
	b.ReportMetric(p(lat, 99)/p(same, 99), "write/same-pages-p99")
}
