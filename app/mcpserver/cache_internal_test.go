package mcpserver

import (
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServerCacheKeysEveryField: a caller gets its own server back; an
// agent with another name, session or grant never gets it.
func TestServerCacheKeysEveryField(t *testing.T) {
	sc := &serverCache{byCaller: map[string]*mcp.Server{}}
	builds := 0
	get := func(c app.Caller) *mcp.Server {
		return sc.get(c, func() (*mcp.Server, error) {
			builds++
			return mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil), nil
		})
	}
	base := app.Caller{Agent: "claude-code", Session: "s1", Fields: []app.Field{"learnings"}}
	first := get(base)
	if again := get(app.Caller{Agent: "claude-code", Session: "s1", Fields: []app.Field{"learnings"}}); again != first {
		t.Errorf("the same caller got a new server")
	}
	others := []app.Caller{
		{Agent: "cursor", Session: "s1", Fields: []app.Field{"learnings"}},
		{Agent: "claude-code", Session: "s2", Fields: []app.Field{"learnings"}},
		{Agent: "claude-code", Session: "s1", Fields: []app.Field{"learnings", "decisions"}},
		{Agent: "claude-code", Session: "s1", Fields: []app.Field{"learnings"}, MayConfirm: true},
		{Agent: "claude-code", Session: "s1", Fields: []app.Field{"learnings"}, Read: []app.Partition{"sensitive"}},
	}
	for _, c := range others {
		if s := get(c); s == first {
			t.Errorf("caller %+v got the server of %+v", c, base)
		}
	}
	if builds != 1+len(others) {
		t.Errorf("%d servers built, want %d", builds, 1+len(others))
	}
}
