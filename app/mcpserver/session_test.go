package mcpserver_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var operator = app.Request{Caller: app.Caller{Operator: true}, Authorized: true}

// postInSession sends one JSON-RPC tools/call to the MCP endpoint with
// token, in the MCP session sid, and returns the HTTP status and body.
func postInSession(t *testing.T, base, token, sid, version, tool, args string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	req, _ := http.NewRequest("POST", base+"/mcp", bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestSessionBelongsToItsAgent checks that an MCP session is its agent's
// alone: another agent that learns the session's id (a memory's source
// carries it) and sends calls in it with its own valid token is refused,
// and nothing is written or read in the first agent's name. The token,
// not the session id a request names, says who calls.
func TestSessionBelongsToItsAgent(t *testing.T) {
	base, tokenA, svc := startEngramOpts(t, server.Options{})
	tokenB := svc.AddAgent(ctx, operator, app.AgentSpec{Name: "cursor"}).Token
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "a", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{tokenA}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	store(t, cs, "The billing service is owned by the payments team")
	sid, version := cs.ID(), cs.InitializeResult().ProtocolVersion

	for _, call := range []struct{ tool, args string }{
		{"store_memory", `{"content":"written by cursor in claude-code's session"}`},
		{"recall_memory", `{"query":"billing service owner"}`},
	} {
		code, body := postInSession(t, base, tokenB, sid, version, call.tool, call.args)
		if code != http.StatusForbidden || strings.Contains(body, "payments") {
			t.Errorf("%s by another agent in claude-code's session: %d %s", call.tool, code, body)
		}
	}
	// Nor may it end the session.
	req, _ := http.NewRequest("DELETE", base+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+tokenB)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", version)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("DELETE of claude-code's session by cursor: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// Each attempt is in the audit log, as cursor's, denied.
	denied := 0
	for _, e := range svc.Audit(ctx, operator, app.AuditInput{Agent: "cursor"}).Entries {
		if e.Action == vault.ActionReject && e.Result == vault.ResultDenied && strings.Contains(e.Reason, "another agent opened") {
			denied++
		}
	}
	if denied != 3 {
		t.Errorf("%d denied attempts audited, want 3", denied)
	}
	list := svc.List(ctx, operator, app.ListInput{})
	for _, m := range list.Memories {
		if strings.Contains(m.Content, "written by cursor") {
			t.Errorf("a memory was written through another agent's session, as %s", m.Owner)
		}
	}
	// The session's own agent goes on using it.
	if code, body := postInSession(t, base, tokenA, sid, version, "recall_memory", `{"query":"billing service owner"}`); code != http.StatusOK || !strings.Contains(body, "payments") {
		t.Errorf("the session's own agent: %d %s", code, body)
	}
}

// TestSessionFollowsGrants checks that a change to an agent's grants
// applies to the MCP sessions it already has open, from the next call:
// an editor keeps a session for hours, and the user's decision must not
// wait for it to reconnect.
func TestSessionFollowsGrants(t *testing.T) {
	base, token, svc := startEngramOpts(t, server.Options{})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "a", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	prefs := map[string]any{"content": "The user prefers tabs to spaces", "field": "preferences"}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: prefs}); err != nil || res.IsError {
		t.Fatalf("store before the change: %v %v", err, res)
	}
	if r := svc.SetAgentGrants(ctx, operator, "claude-code", []app.Field{vault.Learnings}, nil); !r.OK() {
		t.Fatal(r.Message)
	}
	prefs["content"] = "The user prefers dark themes"
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "store_memory", Arguments: prefs})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Errorf("a field the user took back was written in a session opened before: %s", text(t, res))
	}
}
