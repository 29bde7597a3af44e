package mcpserver

import (
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ReplayTTL is how long the answer to a write sent with an idempotency
// key is kept for a retry of the same call. The bridge retries within its
// call timeout (60 s).
const ReplayTTL = 5 * time.Minute

// maxReplays bounds the answers kept; the oldest go first.
const maxReplays = 4096

const maxKeyLen = 128

// validKey reports whether k is a usable idempotency key: 1 to 128
// characters of A-Z, a-z, 0-9 and . _ : -.
func validKey(k string) bool {
	if k == "" || len(k) > maxKeyLen {
		return false
	}
	for _, c := range []byte(k) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// replays remembers, per agent and idempotency key, the answer to a
// write, so that a call sent again after its answer was lost (the
// connection dropped under it, the bridge reconnected) is answered with
// the first answer and not made twice. A second arrival while the first
// still runs waits for it. The keys live in memory only: after Engram
// restarts, a retried call runs again (the bridge retries a call whose
// session Engram no longer knows, which Engram never ran).
type replays struct {
	now func() time.Time
	ttl time.Duration
	max int

	mu    sync.Mutex
	byKey map[string]*list.Element // of *replay
	order *list.List               // oldest first
}

type replay struct {
	key   string
	call  [32]byte // the tool and its arguments
	at    time.Time
	done  chan struct{}
	reply *mcp.CallToolResult
}

func newReplays(now func() time.Time) *replays {
	return &replays{now: now, ttl: ReplayTTL, max: maxReplays, byKey: map[string]*list.Element{}, order: list.New()}
}

// do runs run once per (agent, key) within the TTL and returns its
// answer to every call with that key. A key sent again with another tool
// or other arguments is refused: it is the client's mistake, and
// answering it with the first call's result would mislead it.
func (r *replays) do(agent string, c toolCall, run func() *mcp.CallToolResult) *mcp.CallToolResult {
	if c.Key == "" || !writes[c.Tool] {
		return run()
	}
	key := agent + "\x00" + c.Key
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", c.Tool)
	h.Write(canonical(c.Args))
	var sum [32]byte
	h.Sum(sum[:0])

	r.mu.Lock()
	now := r.now()
	r.expire(now)
	if e, ok := r.byKey[key]; ok {
		p := e.Value.(*replay)
		r.mu.Unlock()
		if p.call != sum {
			return errorResult(fmt.Sprintf("the idempotency key %q was already used for another call", c.Key))
		}
		<-p.done
		return p.reply
	}
	p := &replay{key: key, call: sum, at: now, done: make(chan struct{})}
	r.byKey[key] = r.order.PushBack(p)
	for r.order.Len() > r.max {
		r.remove(r.order.Front())
	}
	r.mu.Unlock()

	defer close(p.done)
	p.reply = run()
	return p.reply
}

// expire drops the answers older than the TTL. r.mu is held.
func (r *replays) expire(now time.Time) {
	for e := r.order.Front(); e != nil && now.Sub(e.Value.(*replay).at) > r.ttl; e = r.order.Front() {
		r.remove(e)
	}
}

func (r *replays) remove(e *list.Element) {
	delete(r.byKey, e.Value.(*replay).key)
	r.order.Remove(e)
}

// writes are the tools whose calls are remembered by key: the ones that
// change the vault. Reads run again; their answer may have changed.
var writes = map[string]bool{"store_memory": true, "update_memory": true, "forget_memory": true, "confirm_memory": true, "refute_memory": true, "question_memory": true}

// canonical re-encodes JSON arguments so that the same call sent twice
// hashes the same whatever its spacing.
func canonical(args json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return args
	}
	b, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return b
}
