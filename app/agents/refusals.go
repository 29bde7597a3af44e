package agents

import (
	"sync"
	"time"
)

// Refusals holds each agent's recent refusal times, within a window.
// Its methods are safe for concurrent use.
type Refusals struct {
	Window time.Duration
	mu     sync.Mutex
	times  map[string][]time.Time
}

// Add records a refusal of agent at now and returns how many fall within
// the window.
func (r *Refusals) Add(agent string, now time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.times == nil {
		r.times = map[string][]time.Time{}
	}
	ts := r.times[agent]
	keep := ts[:0]
	for _, t := range ts {
		if now.Sub(t) < r.Window {
			keep = append(keep, t)
		}
	}
	keep = append(keep, now)
	r.times[agent] = keep
	return len(keep)
}

// Reset forgets agent's refusals (the user resumed it).
func (r *Refusals) Reset(agent string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.times, agent)
}
