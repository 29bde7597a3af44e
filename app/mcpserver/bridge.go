package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// remote forwards tool calls to a running Engram's /mcp endpoint. It
// connects on the first call and again after a failure, so a bridge
// started before Engram works once Engram is up.
type remote struct {
	endpoint string
	client   *http.Client
	stderr   io.Writer

	mu sync.Mutex
	cs *mcp.ClientSession
}

// bearer adds the token to every request of the bridge's client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func (r *remote) session(ctx context.Context) (*mcp.ClientSession, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs != nil {
		return r.cs, nil
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "engram-mcp-bridge", Version: Version}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: r.endpoint, HTTPClient: r.client, MaxRetries: 1}, nil)
	if err != nil {
		return nil, err
	}
	r.cs = cs
	return cs, nil
}

func (r *remote) drop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cs != nil {
		r.cs.Close()
		r.cs = nil
	}
}

func (r *remote) call(ctx context.Context, _, tool string, args json.RawMessage) *mcp.CallToolResult {
	cs, err := r.session(ctx)
	if err == nil {
		var res *mcp.CallToolResult
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err == nil {
			return res
		}
		r.drop()
	}
	msg := fmt.Sprintf("Engram is not reachable at %s (%v): start it with 'engram serve' or the desktop app, and check ENGRAM_TOKEN", r.endpoint, err)
	fmt.Fprintln(r.stderr, "engram mcp: "+msg)
	return errorResult(msg)
}

// Bridge serves MCP over in and out (the stdio of `engram mcp`) and
// forwards every tool call to the Engram at endpoint (its /mcp URL) with
// token. It returns when in closes or ctx ends.
func Bridge(ctx context.Context, in io.ReadCloser, out io.WriteCloser, stderr io.Writer, endpoint, token string) error {
	r := &remote{endpoint: endpoint, stderr: stderr,
		client: &http.Client{Timeout: 30 * time.Second, Transport: bearer{token: token, next: http.DefaultTransport}}}
	defer r.drop()
	s, err := newServer(r)
	if err != nil {
		return err
	}
	return s.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
}
