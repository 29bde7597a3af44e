package ui

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestSecondLaunchRaisesTheFirst: a launch finds the running app through
// its socket and asks it to show itself; with no app (or only a stale
// socket file) it does not.
func TestSecondLaunchRaisesTheFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "engram")
	if raise(dir) {
		t.Fatal("raise found an app where none runs")
	}
	var shown atomic.Int32
	stop, err := listenInstance(dir, func() { shown.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	if !raise(dir) || shown.Load() != 1 {
		t.Fatalf("raise = false or shown %d times, want the running app shown once", shown.Load())
	}
	if _, err := listenInstance(dir, func() {}); err == nil || shown.Load() != 2 {
		t.Fatal("a second app listened beside the first instead of raising it")
	}
	stop()
	if raise(dir) {
		t.Fatal("raise found the app after it stopped")
	}

	// A socket file left by an app that was killed is replaced.
	if err := os.WriteFile(instanceSocket(dir), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	stop, err = listenInstance(dir, func() { shown.Add(1) })
	if err != nil {
		t.Fatalf("a stale socket file stops the app from listening: %v", err)
	}
	defer stop()
	if !raise(dir) || shown.Load() != 3 {
		t.Fatal("the app does not answer after replacing a stale socket")
	}
}
