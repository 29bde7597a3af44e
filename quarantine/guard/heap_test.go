package guard

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// heapChildEnv, when set, makes the test binary measure the guard's heap
// (see measureGuardHeap) and exit instead of running tests.
const heapChildEnv = "ENGRAM_GUARD_HEAP_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(heapChildEnv) != "" {
		measureGuardHeap()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// measureGuardHeap prints, on one line, the live heap in bytes that
// New(Policy{}) and one Check of memory500 add (the Guard and every table
// built on first use), and the live bytes allocated by the package's
// initialisation (by the package's code under runtime.doInit1; the
// memory profile keeps 32 frames of a stack, and an allocation deeper
// than that in a compiler's recursion is missed). It must run in a fresh
// process, before anything else builds the lazily made tables, and with
// GODEBUG=memprofilerate=1, so that the memory profile holds every
// allocation.
func measureGuardHeap() {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	g, err := New(Policy{})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	g.Check(Input{Text: memory500, Source: SourceToolOutput, Field: "learnings"})
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(g)

	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		recs = make([]runtime.MemProfileRecord, n+64)
		var ok bool
		if n, ok = runtime.MemProfile(recs, true); ok {
			recs = recs[:n]
			break
		}
	}
	var initBytes int64
	for _, r := range recs {
		var inInit, inGuard bool
		frames := runtime.CallersFrames(r.Stack())
		for {
			f, more := frames.Next()
			inInit = inInit || f.Function == "runtime.doInit1"
			inGuard = inGuard || strings.HasPrefix(f.Function, "github.com/engram-app/engram/quarantine/guard.")
			if !more {
				break
			}
		}
		if inInit && inGuard {
			initBytes += r.InUseBytes()
		}
	}
	fmt.Printf("heap %d init %d\n", int64(after.HeapAlloc)-int64(before.HeapAlloc), initBytes)
}

// BenchmarkGuardHeap reports the guard's live heap in MiB: heap-MiB is
// what New and one Check add (the Guard and the tables built on first
// use), init-MiB what the package's initialisation keeps. Each iteration
// measures in a fresh process (the test binary run again), so the figures
// do not depend on what ran before; -benchtime 1x is enough.
//
//	go test ./quarantine/guard -run '^$' -bench BenchmarkGuardHeap -benchtime 1x
func BenchmarkGuardHeap(b *testing.B) {
	var heap, init int64
	for b.Loop() {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), heapChildEnv+"=1", "GODEBUG=memprofilerate=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("heap measurement: %v: %s", err, out)
		}
		if _, err := fmt.Sscanf(string(out), "heap %d init %d", &heap, &init); err != nil {
			b.Fatalf("heap measurement printed %q: %v", out, err)
		}
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(init)/(1<<20), "init-MiB")
}
