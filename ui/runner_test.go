package ui

import (
	"sync"
	"time"
)

// inlineRunner is the tests' runner. Fyne's test driver has no UI
// goroutine: what the desktop hands to it runs on the caller's. So work
// runs at once on the test's goroutine, host events (which may come from
// the host's goroutines) one at a time, and the host's background work
// only when services is set: otherwise tests deliver its events
// themselves. Timers run only when a test runs them: timer, if set, is
// handed each one.
type inlineRunner struct {
	mu       sync.Mutex
	services bool
	timer    func(d time.Duration, fn func())
}

func (r *inlineRunner) post(fn func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn()
}

func (r *inlineRunner) spawn(work func() error, done func(error)) { done(work()) }

func (r *inlineRunner) after(d time.Duration, fn func()) func() bool {
	if r.timer != nil {
		r.timer(d, fn)
	}
	return func() bool { return false }
}

func (r *inlineRunner) service(start func()) {
	if r.services {
		start()
	}
}

// holdTimers hands the timers u starts from now on to fn instead of running
// them (u must run on an inlineRunner).
func holdTimers(u *UI, fn func(d time.Duration, fn func())) { u.run.(*inlineRunner).timer = fn }
