package ui

import (
	"time"

	"fyne.io/fyne/v2"
)

// runner is how the UI's work leaves the UI goroutine and comes back to
// it. New gives the UI fyneRunner; the tests give one that runs
// everything at once on the test's own goroutine (Fyne's test driver has
// no UI goroutine), so no production code asks whether it is under test.
type runner interface {
	// post runs fn on the UI goroutine later, without waiting: host
	// events arrive on goroutines that Close waits for, and Close runs on
	// the UI goroutine.
	post(fn func())
	// spawn runs work off the UI goroutine, then done with its error on
	// the UI goroutine.
	spawn(work func() error, done func(error))
	// after runs fn on the UI goroutine once d has passed, unless stop is
	// called first (it then reports whether it stopped fn).
	after(d time.Duration, fn func()) (stop func() bool)
	// service starts work that runs for the UI's life beside it: the
	// host's agent API, watchers, schedules and auto-lock.
	service(start func())
}

// fyneRunner is the desktop's runner: Fyne's UI goroutine, a goroutine
// per job, the runtime's timers.
type fyneRunner struct{}

func (fyneRunner) post(fn func()) { fyne.Do(fn) }

func (fyneRunner) spawn(work func() error, done func(error)) {
	go func() {
		err := work()
		fyne.Do(func() { done(err) })
	}()
}

func (fyneRunner) after(d time.Duration, fn func()) func() bool {
	return time.AfterFunc(d, func() { fyne.Do(fn) }).Stop
}

func (fyneRunner) service(start func()) { start() }
