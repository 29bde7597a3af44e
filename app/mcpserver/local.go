package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// local runs tool calls on the memory service as one authenticated caller.
type local struct {
	svc    *app.Service
	caller app.Caller
	// replays answers a write sent again with its idempotency key; it is
	// shared by all the sessions of a Handler.
	replays *replays
}

func (l local) call(ctx context.Context, c toolCall) *mcp.CallToolResult {
	if c.Caller != nil {
		// The caller of this call's own request, not the one that opened
		// the session: the same agent (Handler refuses any other), with
		// the grants the user gives it now.
		l.caller = *c.Caller
	}
	return l.replays.do(l.caller.Agent, c, func() *mcp.CallToolResult {
		out, status, err := l.run(ctx, c.Session, c.Tool, c.Args)
		if err != nil {
			return errorResult(err.Error())
		}
		return result(out, status)
	})
}

func (l local) run(ctx context.Context, session, tool string, args json.RawMessage) (json.RawMessage, app.Status, error) {
	c := l.caller
	if session != "" {
		c.Session = session
	}
	req := app.Request{Caller: c, Authorized: true}
	svc := l.svc
	hidden := hiddenOf(tool)
	switch tool {
	case "store_memory":
		return runTool(args, hidden, func(in app.StoreInput) app.MemoryResponse { return svc.Store(ctx, req, in) }, storeView)
	case "update_memory":
		return runTool(args, hidden, func(in updateArgs) app.MemoryResponse { return svc.Update(ctx, req, in.ID, in.UpdateInput) }, nil)
	case "forget_memory":
		return runTool(args, hidden, func(in memoryID) app.Response { return svc.Delete(ctx, req, in.ID) }, nil)
	case "recall_memory":
		return runTool(args, hidden, func(in app.RecallInput) app.RecallResponse { return svc.Recall(ctx, req, in) }, nil)
	case "confirm_memory":
		return runTool(args, hidden, func(in confirmArgs) app.MemoryResponse { return svc.Confirm(ctx, req, in.ID, in.Evidence) }, nil)
	case "refute_memory":
		return runTool(args, hidden, func(in refuteArgs) app.MemoryResponse { return svc.Refute(ctx, req, in.ID, in.Evidence) }, nil)
	case "question_memory":
		return runTool(args, hidden, func(in questionArgs) app.MemoryResponse { return svc.Question(ctx, req, in.ID, in.Reason) }, nil)
	case "memory_history":
		return runTool(args, hidden, func(in memoryID) app.HistoryResponse { return svc.History(ctx, req, in.ID) }, nil)
	}
	return nil, app.StatusInvalid, errUnknownTool(tool)
}

// runTool decodes a tool's arguments as In, refusing its hidden fields,
// calls the service through call, and encodes its answer (as view shows
// it, when view is set).
func runTool[In any, Out interface{ Answer() app.Response }](args json.RawMessage, hidden []string, call func(In) Out, view func(Out) any) (json.RawMessage, app.Status, error) {
	var in In
	if err := decodeArgs(args, &in, hidden); err != nil {
		return nil, app.StatusInvalid, err
	}
	r := call(in)
	var out any = r
	if view != nil {
		out = view(r)
	}
	b, err := json.Marshal(out)
	return b, r.Answer().Status, err
}

type errUnknownTool string

func (e errUnknownTool) Error() string { return "unknown tool " + string(e) }

// storeView is what a model needs back from store_memory.
func storeView(r app.MemoryResponse) any {
	v := struct {
		Status    app.Status `json:"status"`
		Message   string     `json:"message,omitempty"`
		ID        string     `json:"id,omitempty"`
		Partition string     `json:"partition,omitempty"`
		QueueID   string     `json:"queue_id,omitempty"`
		Warnings  []string   `json:"warnings,omitempty"`
	}{Status: r.Status, Message: r.Message, QueueID: r.QueueID, Warnings: r.Warnings}
	if r.Memory != nil {
		v.ID, v.Partition = r.Memory.ID, string(r.Memory.Partition)
	}
	return v
}

// newLocal returns an MCP server whose tools act as caller on svc, in
// process (the benchmarks' baseline for the transports).
func newLocal(svc *app.Service, caller app.Caller) (*mcp.Server, error) {
	return newServer(local{svc: svc, caller: caller, replays: newReplays(time.Now)})
}

// CallerFunc returns the authenticated caller of an HTTP request; the
// loopback server's authentication step puts it in the request context.
type CallerFunc func(r *http.Request) (app.Caller, bool)

// callerExtra is the key of the caller in the SDK's token info.
const callerExtra = "engram.caller"

// bindSessions makes the caller of each request the SDK's token info:
// the SDK then refuses (403) a request in a session that another agent
// opened, whatever session id the request names, and hands each tool call
// its own request's caller (requestCaller). The loopback server has
// authenticated the bearer token before; the token itself is not read
// again. Before the SDK, the sessions' owners as Engram saw them open
// refuse such a request themselves, so that it is audited
// (Service.ForeignSession).
func bindSessions(h http.Handler, svc *app.Service, callerOf CallerFunc) http.Handler {
	verify := func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		c, ok := callerOf(r)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: userOf(c), Extra: map[string]any{callerExtra: c}}, nil
	}
	h = auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	owners := &sessionOwners{byID: map[string]string{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := callerOf(r)
		sid := r.Header.Get(sessionHeader)
		if ok && sid != "" && !owners.mine(sid, userOf(c)) {
			svc.ForeignSession(app.Request{Caller: c, Authorized: true}, sid)
			http.Error(w, "this MCP session belongs to another agent", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
		switch {
		case !ok:
		case sid == "" && r.Method == http.MethodPost:
			// An initialize: the SDK names the new session in the answer.
			if id := w.Header().Get(sessionHeader); id != "" {
				owners.add(id, userOf(c))
			}
		case r.Method == http.MethodDelete:
			owners.end(sid)
		}
	})
}

// sessionHeader carries a streamable HTTP session's id.
const sessionHeader = "Mcp-Session-Id"

// userOf names the agent a caller is, for binding sessions.
func userOf(c app.Caller) string {
	if c.Operator {
		return "operator"
	}
	return "agent:" + c.Agent
}

// sessionOwners maps the MCP sessions opened through a Handler to their
// agents.
type sessionOwners struct {
	mu   sync.Mutex
	byID map[string]string
}

// maxSessionOwners bounds the map; past it, the oldest entries are not
// told apart and the SDK's own check alone refuses (without the audit).
const maxSessionOwners = 1 << 16

func (o *sessionOwners) add(id, user string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.byID) >= maxSessionOwners {
		clear(o.byID)
	}
	o.byID[id] = user
}

// mine reports whether the session id is user's, or unknown here (the
// SDK then decides: it answers an unknown session 404).
func (o *sessionOwners) mine(id, user string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	owner, ok := o.byID[id]
	return !ok || owner == user
}

func (o *sessionOwners) end(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.byID, id)
}

// requestCaller returns the caller that bindSessions put in a request's
// token info, or nil.
func requestCaller(extra *mcp.RequestExtra) *app.Caller {
	if extra == nil || extra.TokenInfo == nil {
		return nil
	}
	if c, ok := extra.TokenInfo.Extra[callerExtra].(app.Caller); ok {
		return &c
	}
	return nil
}

// Handler serves MCP over streamable HTTP. A session belongs to the agent
// that opened it: a request in it with another agent's token is refused
// (bindSessions), and each tool call acts as its own request's caller,
// with the grants the agent has when the call arrives. A write sent again
// with the same idempotency key (IdempotencyKey), on any of the agent's
// sessions, gets the first answer. Sessions do not expire: an editor may
// keep one idle for hours. The SDK's own DNS-rebinding protection stays
// on, behind the loopback server's Host and Origin checks.
func Handler(svc *app.Service, callerOf CallerFunc) http.Handler {
	rp := newReplays(time.Now)
	servers := &serverCache{byCaller: map[string]*mcp.Server{}}
	return bindSessions(mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		c, ok := callerOf(r)
		if !ok {
			return nil
		}
		return servers.get(c, func() (*mcp.Server, error) {
			return newServer(local{svc: svc, caller: c, replays: rp})
		})
	}, &mcp.StreamableHTTPOptions{JSONResponse: true}), svc, callerOf)
}

// serverCache keeps the MCP server of each caller. The SDK asks for a
// server on every request, not only for a new session, and building one
// (its tools' schemas) cost about a millisecond of CPU a call. A server is
// keyed by everything the caller carries (agent, session, grants from the
// registration), so a changed registration gets a new server, and one
// agent's server never serves another.
type serverCache struct {
	mu       sync.Mutex
	byCaller map[string]*mcp.Server
}

// maxCachedServers bounds the cache; when full it starts again.
const maxCachedServers = 256

func (sc *serverCache) get(c app.Caller, build func() (*mcp.Server, error)) *mcp.Server {
	key := fmt.Sprintf("%#v", c) // every field, unexported ones too
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if s, ok := sc.byCaller[key]; ok {
		return s
	}
	s, err := build()
	if err != nil {
		return nil
	}
	if len(sc.byCaller) >= maxCachedServers {
		clear(sc.byCaller)
	}
	sc.byCaller[key] = s
	return s
}
