package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
)

// TestForgetLeavesNoAgentReason: an agent writes, reads and changes a
// memory through the HTTP API with an Engram-Reason header that mentions
// what the memory is about; the user forgets the topic. Afterwards the
// vault file holds neither the memory's texts nor their SHA-256 (hex or
// raw) nor the agent's reason: nothing derived from what was forgotten
// that a guess could be checked against, except keyed fingerprints. The
// audit log says that the agent gave a reason.
func TestForgetLeavesNoAgentReason(t *testing.T) {
	e := start(t, server.Options{})
	const reason = "the user asked twice about the kestrel-4471 budget"
	withReason := func(r *http.Request) { r.Header.Set("Engram-Reason", reason) }
	texts := []string{"Project kestrel-4471 has a budget of two million", "Project kestrel-4471 has a budget of three million"}
	r := e.do("POST", "/v1/memories", e.token, `{"content":"`+texts[0]+`"}`, withReason)
	if r.code != 200 || r.body["status"] != "ok" {
		t.Fatalf("store with a reason = %d %s", r.code, r.raw)
	}
	id := r.body["id"].(string)
	if g := e.do("GET", "/v1/memories/"+id, e.token, "", withReason); g.code != 200 {
		t.Fatalf("get with a reason = %d %s", g.code, g.raw)
	}
	if p := e.do("PATCH", "/v1/memories/"+id, e.token, `{"operation":"UPDATE","content":"`+texts[1]+`"}`, withReason); p.code != 200 {
		t.Fatalf("update with a reason = %d %s", p.code, p.raw)
	}
	log, err := e.v.AuditLog(vault.AuditFilter{Agent: "claude-code"})
	if err != nil {
		t.Fatal(err)
	}
	given := 0
	for _, a := range log {
		if strings.HasSuffix(a.Reason, server.ReasonGiven) {
			given++
		}
	}
	if given < 3 {
		t.Errorf("%d audit entries of the agent say it gave a reason, want the write, the read and the update: %+v", given, log)
	}

	ctx := context.Background()
	found := e.svc.FindTopic(ctx, operator, "kestrel-4471")
	if !found.OK() || len(found.Memories) != 1 || found.Memories[0].ID != id {
		t.Fatalf("FindTopic = %+v", found)
	}
	if f := e.svc.ForgetTopic(ctx, operator, "kestrel-4471", []string{id}); !f.OK() || f.Purged != 1 {
		t.Fatalf("ForgetTopic = %+v", f)
	}
	data, err := os.ReadFile(e.v.Path())
	if err != nil {
		t.Fatal(err)
	}
	lower := bytes.ToLower(data)
	for _, s := range []string{"kestrel-4471", "asked twice about"} {
		if bytes.Contains(lower, []byte(s)) {
			t.Errorf("the vault file still holds %q after the forget", s)
		}
	}
	for _, text := range texts {
		sum := sha256.Sum256([]byte(text))
		if bytes.Contains(data, []byte(hex.EncodeToString(sum[:]))) || bytes.Contains(data, sum[:]) {
			t.Errorf("the vault file still holds the SHA-256 of the forgotten %q", text)
		}
	}
}
