// Package idleprof lets the idle-memory measurement (cmd/engram's
// TestIdleMemory) look into a running desktop process: on SIGUSR1 it
// writes the runtime's account of its memory to ENGRAM_IDLE_HEAPPROF.txt,
// collects garbage and writes the heap profile to ENGRAM_IDLE_HEAPPROF.
// It is linked only into binaries built with the tag engram_idleprof,
// never into the product.
package idleprof

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"syscall"
)

// Start installs the handler when ENGRAM_IDLE_HEAPPROF is set; each
// SIGUSR1 overwrites the files.
func Start() {
	path := os.Getenv("ENGRAM_IDLE_HEAPPROF")
	if path == "" {
		return
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	go func() {
		for range c {
			os.WriteFile(path+".txt", []byte(account()), 0o644)
			runtime.GC()
			f, err := os.Create(path + ".tmp")
			if err != nil {
				continue
			}
			err = pprof.Lookup("heap").WriteTo(f, 0)
			if f.Close() == nil && err == nil {
				os.Rename(path+".tmp", path)
			}
		}
	}()
}

// account lists the runtime's memory classes, the live heap at the last
// collection and the goroutines, in MiB.
func account() string {
	var samples []metrics.Sample
	for _, d := range metrics.All() {
		if d.Kind == metrics.KindUint64 && (strings.HasPrefix(d.Name, "/memory/classes/") || d.Name == "/gc/heap/live:bytes" || d.Name == "/sched/goroutines:goroutines") {
			samples = append(samples, metrics.Sample{Name: d.Name})
		}
	}
	metrics.Read(samples)
	var b strings.Builder
	for _, s := range samples {
		v := s.Value.Uint64()
		if strings.HasSuffix(s.Name, ":bytes") {
			fmt.Fprintf(&b, "  %-50s %8.1f MiB\n", s.Name, float64(v)/(1<<20))
		} else {
			fmt.Fprintf(&b, "  %-50s %8d\n", s.Name, v)
		}
	}
	return b.String()
}
