package ui

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app/apptest"
	"github.com/engram-app/engram/app/host"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// fill100k makes a vault of n memories (a tenth sensitive) whose key is in
// the returned config's keyring, and returns that config.
func fill100k(b *testing.B, n int) host.Config {
	b.Helper()
	v, _ := vaulttest.New(b, vaulttest.NoSync, vaulttest.SkipCheck)
	for i := range n {
		p := vault.Internal
		if i%10 == 0 {
			p = vault.Sensitive
		}
		m := vaulttest.Memory(p, fmt.Sprintf("memory %d about build step %d and the deploy of service %d", i, i%97, i%13))
		if _, err := v.Add(m, vault.Actor{Agent: vault.AgentOperator}); err != nil {
			b.Fatal(err)
		}
	}
	keys := &apptest.Keys{}
	key, err := v.UnlockKey()
	if err != nil {
		b.Fatal(err)
	}
	keys.Set(v.ID(), key)
	dir := filepath.Dir(v.Path())
	v.Close()
	return host.Config{DataDir: dir, KeyStore: keys, Getenv: func(string) string { return "" },
		ModelDir: filepath.Join(b.TempDir(), "no-model"), NoServer: true}
}

// BenchmarkStartToUnlockedWindow100k measures the time from start to an
// unlocked main window with the memories list filled, on a vault of
// 100,000 memories, and the heap in use once it is idle.
//
//	go test ./ui -run '^$' -bench StartToUnlockedWindow100k -benchtime 3x
func BenchmarkStartToUnlockedWindow100k(b *testing.B) { benchStart(b, 100_000) }

// BenchmarkStartToUnlockedWindow1k is the same on 1,000 memories.
func BenchmarkStartToUnlockedWindow1k(b *testing.B) { benchStart(b, 1000) }

func benchStart(b *testing.B, n int) {
	cfg := fill100k(b, n)
	for b.Loop() {
		start := time.Now()
		u := New(test.NewTempApp(b), cfg)
		u.run = &inlineRunner{services: true} // its background work runs, each job at once
		u.Start()
		elapsed := time.Since(start)
		rows := u.memories.rows.data
		if u.h == nil || u.h.Locked() || len(rows) != n {
			b.Fatalf("not an unlocked window with every memory listed: %d rows", len(rows))
		}
		b.ReportMetric(elapsed.Seconds()*1000, "start-ms")
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "idle-heap-MiB")
		u.Close()
	}
}

// BenchmarkScroll100k measures one scroll step of the memories list over
// 100,000 rows: the list binds only the visible rows.
func BenchmarkScroll100k(b *testing.B) {
	cfg := fill100k(b, 100_000)
	u := New(test.NewTempApp(b), cfg)
	u.run = &inlineRunner{services: true} // its background work runs, each job at once
	u.Start()
	defer u.Close()
	u.win.Resize(u.win.Canvas().Size().Max(u.win.Content().MinSize()))
	i := 0
	for b.Loop() {
		u.memories.list.ScrollTo((i * 997) % 100_000)
		i++
	}
}

// BenchmarkSearch100k measures one search as the user types it (after the
// debounce): hybrid recall without the embedder over 100,000 memories and
// the list update.
func BenchmarkSearch100k(b *testing.B) { benchSearch(b, 100_000) }

// BenchmarkSearch1k is the same on 1,000 memories.
func BenchmarkSearch1k(b *testing.B) { benchSearch(b, 1000) }

func benchSearch(b *testing.B, n int) {
	cfg := fill100k(b, n)
	u := New(test.NewTempApp(b), cfg)
	u.run = &inlineRunner{services: true} // its background work runs, each job at once
	u.Start()
	defer u.Close()
	s := u.memories
	for b.Loop() {
		s.search.SetText("deploy of service 7")
		s.refresh()
		if rows := s.rows.data; len(rows) == 0 {
			b.Fatal("no results")
		}
	}
}

// BenchmarkUnlockToList1k measures, on 1,000 memories, the time from
// pressing Enter on the unlock screen to the main window with the list
// filled. The test vault's key derivation is cheap (vaulttest.KDF): add
// the Argon2id time the vault was tuned to (about a second) for a real
// vault.
func BenchmarkUnlockToList1k(b *testing.B) {
	cfg := fill100k(b, 1000)
	cfg.KeyStore = &apptest.Keys{} // nothing remembered: the unlock screen asks
	for b.Loop() {
		u := New(test.NewTempApp(b), cfg)
		u.run = &inlineRunner{services: true} // its background work runs, each job at once
		u.Start()
		e, ok := u.win.Canvas().Focused().(*widget.Entry)
		if !ok {
			b.Fatal("no passphrase field focused")
		}
		e.SetText(vaulttest.Passphrase)
		start := time.Now()
		e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		elapsed := time.Since(start)
		if u.h.Locked() || len(u.memories.rows.data) != 1000 {
			b.Fatalf("not unlocked with every memory listed: %d rows", len(u.memories.rows.data))
		}
		b.ReportMetric(elapsed.Seconds()*1000, "unlock-to-list-ms")
		u.Close()
	}
}
