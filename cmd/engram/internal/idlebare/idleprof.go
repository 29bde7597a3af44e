//go:build engram_idleprof

package main

import "github.com/engram-app/engram/cmd/engram/internal/idleprof"

func init() { idleprof.Start() }
