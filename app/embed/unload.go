package embed

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Unloading is an Embedder that lets go of its model while nothing is
// embedded and loads it again for the next text. A desktop app mostly
// waits: the built-in model's packed weights and scratch are about 25 MB
// of its heap, and loading the embedded copy again takes about a tenth of
// a second, once, when work resumes.
//
// Embed calls in flight keep the model; it is dropped when none has run
// for the idle time given to NewUnloading. Concurrent calls that find it
// dropped wait for one load. Name and Dim never load it.
type Unloading struct {
	load func() (Embedder, error)
	idle time.Duration
	name string
	dim  int

	mu    sync.Mutex
	m     Embedder // nil once dropped
	busy  int      // Embed calls in flight
	last  time.Time
	timer *time.Timer
	loads int
}

// NewUnloading wraps m, already loaded, so that it is dropped after idle
// without an Embed call and loaded again with load when next needed. A
// load that fails, or that yields a model of another Name or Dim, fails
// that Embed call with the error, and the next call tries again.
func NewUnloading(m Embedder, load func() (Embedder, error), idle time.Duration) *Unloading {
	u := &Unloading{load: load, idle: idle, name: m.Name(), dim: m.Dim(), m: m, last: time.Now(), loads: 1}
	u.timer = time.AfterFunc(idle, u.check)
	return u
}

// Name is the wrapped model's Name.
func (u *Unloading) Name() string { return u.name }

// Dim is the wrapped model's Dim.
func (u *Unloading) Dim() int { return u.dim }

// Embed embeds texts with the model, loading it first if it was dropped.
func (u *Unloading) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	m, err := u.acquire()
	if err != nil {
		return nil, err
	}
	defer u.release()
	return m.Embed(ctx, texts)
}

// Loaded reports whether the model is held now, and how many times it
// has been loaded in all.
func (u *Unloading) Loaded() (held bool, loads int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.m != nil, u.loads
}

func (u *Unloading) acquire() (Embedder, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.m == nil {
		m, err := u.load()
		if err != nil {
			return nil, fmt.Errorf("embed: load the model again: %w", err)
		}
		if m.Name() != u.name || m.Dim() != u.dim {
			return nil, fmt.Errorf("embed: load the model again: got %s (%d dimensions), had %s (%d)", m.Name(), m.Dim(), u.name, u.dim)
		}
		u.m = m
		u.loads++
	}
	u.busy++
	return u.m, nil
}

func (u *Unloading) release() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.busy--
	u.last = time.Now()
	if u.busy == 0 {
		u.timer.Reset(u.idle)
	}
}

// check drops the model if nothing has used it for the idle time, and
// otherwise looks again when that time will have passed.
func (u *Unloading) check() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.busy > 0 || u.m == nil {
		return // release arms the timer again
	}
	if left := u.idle - time.Since(u.last); left > 0 {
		u.timer.Reset(left)
		return
	}
	u.m = nil
}
