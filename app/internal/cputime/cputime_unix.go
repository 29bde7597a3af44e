//go:build unix

// Package cputime reads the CPU time the process has used, for
// benchmarks: on a machine shared with other work, a steadier figure
// than the wall clock.
package cputime

import (
	"syscall"
	"time"
)

// Used is the CPU time (user and system, all threads) the process has
// used so far.
func Used() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
