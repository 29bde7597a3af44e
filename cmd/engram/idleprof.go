//go:build engram_idleprof

package main

import "github.com/engram-app/engram/cmd/engram/internal/idleprof"

// A binary built with the tag engram_idleprof writes its heap profile on
// SIGUSR1 (TestIdleMemory with ENGRAM_IDLE_PROFILE).
func init() { idleprof.Start() }
