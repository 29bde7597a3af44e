package app

import (
	"os"
	"runtime"
	"sync"
)

var spareProc sync.Once

// SpareProc gives the Go scheduler one P more than it has (GOMAXPROCS
// defaults to the number of cores), once per process, unless the
// GOMAXPROCS environment variable sets it. With Options.IdleEmbedding the
// embedding thread holds a P even while the kernel keeps it waiting for an
// idle core; the spare P keeps every core available to requests. The
// long-running processes (the desktop app, engram serve) call it.
func SpareProc() {
	spareProc.Do(func() {
		if os.Getenv("GOMAXPROCS") == "" {
			runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
		}
	})
}
