package ui

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Go's collector lets the heap grow to twice what is live before it
// collects, and its scavenger keeps that much mapped. For a desktop app
// that mostly waits, that doubles the memory it holds: measured at 1,000
// memories, 80 MiB live held 160 MiB of heap. trimMemory returns the
// difference to the system once the app has settled, and again whenever
// use has left much garbage behind.
const (
	trimFirst = 10 * time.Second // after start: the unlock, the list and the index are built
	trimEvery = time.Minute
	trimSlack = 16 << 20 // retained heap beyond the live heap worth a collection
)

// trimMemory checks the heap trimFirst after it is called and then every
// trimEvery, until stop is closed. Each time it first calls release, which
// gives back what else the app holds for nothing (the vault's mapped pages).
func trimMemory(stop <-chan struct{}, release func()) {
	t := time.NewTimer(trimFirst)
	defer t.Stop()
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		release()
		metrics.Read(samples)
		retained := samples[1].Value.Uint64() + samples[2].Value.Uint64() + samples[3].Value.Uint64()
		if shouldTrim(samples[0].Value.Uint64(), retained) {
			debug.FreeOSMemory()
		}
		t.Reset(trimEvery)
	}
}

// shouldTrim says whether a heap of live bytes at the last collection
// that holds retained bytes (objects, live or not yet collected, and free
// pages not returned) is worth a collection that returns the rest: when
// the excess is over trimSlack and a quarter of the live heap.
func shouldTrim(live, retained uint64) bool {
	if retained <= live {
		return false
	}
	excess := retained - live
	return excess > trimSlack && excess > live/4
}
