package upkeep

import (
	"maps"
	"slices"
	"sync"
	"time"
)

// bookkeepingChunk is the most memories one transaction of background
// bookkeeping (access times, stored vectors) rewrites. bbolt has one
// writer, so an agent's write waits for whatever commit is running: a
// flush of a thousand access times took 20-50 ms under the load
// benchmark, and a write arriving during it waited for the rest of it.
// In commits of 64 memories, taken in id order so that each rewrites
// neighbouring pages, the wait is a few milliseconds.
const bookkeepingChunk = 64

// chunked splits m into maps of at most n entries, by key order.
func chunked[V any](m map[string]V, n int) []map[string]V {
	keys := slices.Sorted(maps.Keys(m))
	out := make([]map[string]V, 0, (len(keys)+n-1)/n)
	for part := range slices.Chunk(keys, n) {
		c := make(map[string]V, len(part))
		for _, k := range part {
			c[k] = m[k]
		}
		out = append(out, c)
	}
	return out
}

// batch collects derived bookkeeping by memory id and writes it together:
// delay after the first unwritten entry, at once when full entries wait,
// on Flush, and at Close. Writes never overlap, so Close returns after the
// last one. The zero value is not usable; set every field but the state.
type batch[V any] struct {
	delay time.Duration
	full  int // 0: never written early for its size
	// merge combines an entry with the one already waiting for its id
	// (ok false: none waits).
	merge func(old V, ok bool, v V) V
	// write writes one batch; it runs on no lock of the batch's.
	write func(map[string]V)

	mu      sync.Mutex
	pending map[string]V
	timer   *time.Timer // nil when no write is due
	closed  bool
	writing sync.Mutex // held while write runs
}

// add puts entries in the batch. After Close it drops them.
func (b *batch[V]) add(entries map[string]V) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	if b.pending == nil {
		b.pending = make(map[string]V, len(entries))
	}
	for id, v := range entries {
		old, ok := b.pending[id]
		b.pending[id] = b.merge(old, ok, v)
	}
	full := b.full > 0 && len(b.pending) >= b.full
	if !full && len(b.pending) > 0 && b.timer == nil {
		b.timer = time.AfterFunc(b.delay, b.flush)
	}
	b.mu.Unlock()
	if full {
		b.flush()
	}
}

// flush writes what waits.
func (b *batch[V]) flush() {
	b.writing.Lock()
	defer b.writing.Unlock()
	b.mu.Lock()
	todo := b.pending
	b.pending = nil
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.mu.Unlock()
	if len(todo) > 0 {
		b.write(todo)
	}
}

// close writes what waits and takes no more.
func (b *batch[V]) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.flush()
}
