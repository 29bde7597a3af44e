package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault/vaulttest"
)

// FuzzAPI sends arbitrary bodies to every route that decodes one, as an
// authenticated agent, through the real handler. Whatever the bytes, the
// server must answer with a JSON reply and a 2xx or 4xx status: never a
// 5xx, a panic or a non-JSON body.
//
//	go test ./app/server -run '^$' -fuzz FuzzAPI -fuzztime 30s
func FuzzAPI(f *testing.F) {
	for _, seed := range []string{
		`{"content":"the build uses make","field":"learnings"}`,
		`{"content":"x","supersedes":"00000000-0000-0000-0000-000000000000"}`,
		`{"query":"how do we deploy?","limit":5,"mode":"hybrid","filters":{"partitions":["internal"]}}`,
		`{"operation":"UPDATE","content":"new text","if_version":1}`,
		`{"name":"cursor"}`, `{"name":"cursor","pair_secret":"abc"}`,
		`{"content":"` + strings.Repeat("a", 600) + `"}`, `{"content":1}`, `{}`, `[]`, `null`, ``, `{"content":"a"}{"content":"b"}`,
		`{"content":"\u0000\ud800"}`, `{"filters":{"after":"yesterday"}}`, `{"tags":[1,2]}`,
	} {
		for route := range 6 {
			f.Add(uint8(route), []byte(seed))
		}
	}
	v, _ := vaulttest.New(f, vaulttest.NoSync)
	svc, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		f.Fatal(err)
	}
	add := svc.AddAgent(context.Background(), operator, app.AgentSpec{Name: "claude-code"})
	if !add.OK() {
		f.Fatal(add.Message)
	}
	m := svc.Store(context.Background(), operator, app.StoreInput{Content: "a memory to update"})
	h := server.New(svc, server.Options{Rate: 1e9, Burst: 1e9}).Handler()
	routes := []struct{ method, path string }{
		{"POST", "/v1/memories"}, {"POST", "/v1/recall"}, {"PATCH", "/v1/memories/" + m.Memory.ID},
		{"POST", "/v1/memories/" + m.Memory.ID + "/confirm"}, {"POST", "/v1/pair"}, {"POST", "/v1/pair/poll"},
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		r := routes[int(route)%len(routes)]
		req := httptest.NewRequest(r.method, "http://127.0.0.1:7474"+r.path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+add.Token)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s with %q: %d %s", r.method, r.path, body, rec.Code, rec.Body)
		}
		var reply map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &reply); err != nil || reply["status"] == nil {
			t.Fatalf("%s %s with %q: %d, not a JSON reply with a status: %q", r.method, r.path, body, rec.Code, rec.Body)
		}
		if rec.Code != http.StatusOK && rec.Code/100 != 4 && rec.Code != http.StatusCreated && rec.Code != http.StatusAccepted {
			t.Fatalf("%s %s: unexpected status %d", r.method, r.path, rec.Code)
		}
	})
}

// FuzzMCP sends arbitrary JSON-RPC bodies to the MCP endpoint as an
// authenticated agent: the server must answer without a 5xx or a panic,
// whatever the tool arguments.
//
//	go test ./app/server -run '^$' -fuzz FuzzMCP -fuzztime 30s
func FuzzMCP(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"store","arguments":{"content":"the build uses make"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recall","arguments":{"query":"build","limit":-1}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"forget","arguments":{"id":7}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `[]`, `{}`, `not json`, ``,
	} {
		f.Add([]byte(seed))
	}
	v, _ := vaulttest.New(f, vaulttest.NoSync)
	svc, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		f.Fatal(err)
	}
	add := svc.AddAgent(context.Background(), operator, app.AgentSpec{Name: "claude-code"})
	if !add.OK() {
		f.Fatal(add.Message)
	}
	h := server.New(svc, server.Options{Rate: 1e9, Burst: 1e9}).Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "http://127.0.0.1:7474/mcp", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+add.Token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("POST /mcp with %q: %d %s", body, rec.Code, rec.Body)
		}
	})
}
