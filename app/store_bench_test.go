package app_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault/vaulttest"
)

// BenchmarkStore measures an agent's write of a 480-character memory
// through the guard, the duplicate and conflict checks and the keyword
// index, without fsync (the disk is measured by the vault's benchmarks).
//
//	go test ./app -run '^$' -bench Store -benchtime 2000x
func BenchmarkStore(b *testing.B) {
	v, _ := vaulttest.New(b, vaulttest.NoSync, vaulttest.SkipCheck)
	s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("The deploy script lives in ops/deploy.sh and needs two reviewers. ", 8)[:460]
	i := 0
	c0 := v.Changes()
	defer func() { b.ReportMetric(float64(v.Changes()-c0)/float64(b.N), "commits/op") }()
	for b.Loop() {
		r := s.Store(ctx, claude, app.StoreInput{Content: fmt.Sprintf("note %d: %s", i, text)})
		if !r.OK() {
			b.Fatal(r.Message)
		}
		i++
	}
}
