package mcpserver

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReplaysExpireAndAreBounded: an answer is replayed within the TTL,
// to the same agent only, and is forgotten after the TTL or when the
// cache is full.
func TestReplaysExpireAndAreBounded(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	r := newReplays(func() time.Time { return now })
	r.max = 3
	runs := 0
	run := func() *mcp.CallToolResult { runs++; return errorResult("answer") }
	store := func(agent, key string) {
		r.do(agent, toolCall{Tool: "store_memory", Args: json.RawMessage(`{"content": "x"}`), Key: key}, run)
	}
	store("a", "k1")
	store("a", "k1")
	if runs != 1 {
		t.Fatalf("a keyed write sent twice ran %d times; want 1", runs)
	}
	// The same arguments with other spacing are the same call.
	r.do("a", toolCall{Tool: "store_memory", Args: json.RawMessage(`{"content":"x"}`), Key: "k1"}, run)
	if runs != 1 {
		t.Fatalf("the same call re-spaced ran again (%d runs)", runs)
	}
	store("b", "k1") // another agent's key is its own
	if runs != 2 {
		t.Fatalf("another agent's call with the same key ran %d times in all; want 2", runs)
	}
	// Reads and unkeyed writes always run.
	r.do("a", toolCall{Tool: "recall_memory", Args: json.RawMessage(`{}`), Key: "k1"}, run)
	store("a", "")
	if runs != 4 {
		t.Fatalf("reads and unkeyed writes ran %d times in all; want 4", runs)
	}
	now = now.Add(ReplayTTL + time.Second)
	store("a", "k1")
	if runs != 5 {
		t.Fatalf("a key past its TTL was replayed (%d runs); want it run again", runs)
	}
	store("a", "k2")
	store("a", "k3")
	store("a", "k4") // pushes k1 out
	store("a", "k1")
	if runs != 9 || len(r.byKey) != 3 {
		t.Fatalf("after overflowing the cache: %d runs, %d kept; want 9 and 3", runs, len(r.byKey))
	}
}
