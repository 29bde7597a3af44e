package mcppeer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestReferenceKept counts what the reference server's file still holds,
// as its concurrent clients leave it: a line cut short, an entity lost.
func TestReferenceKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memory.jsonl")
	file := `{"type":"entity","name":"clienta-note-0","entityType":"note","observations":["x"]}
{"type":"entity","name":"clientb-note-0","entityType":"note","observ
{"type":"relation","from":"clienta-note-1","to":"x","relationType":"y"}

{"type":"entity","name":"clientb-note-1","entityType":"note","observations":["y"]}
`
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	keys := []string{"clienta-note-0", "clienta-note-1", "clientb-note-0", "clientb-note-1"}
	kept, bad, err := reference("npx", path).kept(context.Background(), keys)
	if err != nil || kept != 2 || bad != 1 {
		t.Errorf("kept = %d, %d, %v; want 2, 1, nil", kept, bad, err)
	}
}

func TestPercentiles(t *testing.T) {
	ds := make([]time.Duration, 200)
	for i := range ds {
		ds[i] = time.Duration(200-i) * time.Millisecond
	}
	got := percentiles(ds)
	if got.P50 != 101*time.Millisecond || got.P99 != 199*time.Millisecond || got.N != 200 {
		t.Errorf("percentiles = %+v, want p50 101ms, p99 199ms, n 200", got)
	}
	if ds[0] != 200*time.Millisecond {
		t.Error("percentiles sorted its argument")
	}
}
