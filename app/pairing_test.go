package app_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestPairingRequestsAreBoundedAndExpire: at most MaxPendingPairings
// requests wait for the user; they expire after PairingExpiry (refused at
// poll, no longer listed) and are gone after a restart past their expiry.
func TestPairingRequestsAreBoundedAndExpire(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{}
	for i := range 20 {
		name := fmt.Sprintf("agent-%d", i)
		r := s.RequestPairing(ctx, name)
		switch {
		case i < app.MaxPendingPairings && r.Status == app.StatusPending:
			secrets[name] = r.Secret
		case i >= app.MaxPendingPairings && r.Status == app.StatusUnavailable:
		default:
			t.Fatalf("RequestPairing(%s) #%d = %+v", name, i, r.Response)
		}
	}
	if r := s.RequestPairing(ctx, "agent-0"); r.Status != app.StatusConflict || r.Secret != "" || !strings.Contains(r.Message, "expires at "+vaulttest.Start.Add(app.PairingExpiry).Format(time.RFC3339)) {
		t.Errorf("asking again for a waiting name = %+v, want conflict saying when the waiting request expires (it neither renews nor replaces it)", r.Response)
	}
	if p := s.PendingPairings(ctx, operator); len(p.Agents) != app.MaxPendingPairings {
		t.Errorf("PendingPairings = %d, want %d", len(p.Agents), app.MaxPendingPairings)
	}
	if p := s.PendingPairings(ctx, claude); p.Status != app.StatusUnauthorized {
		t.Errorf("PendingPairings for an agent = %+v, want unauthorized", p.Response)
	}

	clock.Advance(app.PairingExpiry + time.Minute)
	if r := s.PollPairing(ctx, "agent-1", secrets["agent-1"]); r.Status != app.StatusUnauthorized {
		t.Errorf("poll after expiry = %+v, want unauthorized", r.Response)
	}
	if r := s.DecidePairing(ctx, operator, "agent-2", true); r.OK() {
		t.Errorf("approving an expired request = %+v, want refused", r.Response)
	}
	for _, a := range s.Agents(ctx, operator).Agents {
		if a.Status == vault.AgentPending {
			t.Errorf("agent %s still listed as pending after expiry", a.Name)
		}
	}
	if r := s.RequestPairing(ctx, "newcomer"); r.Status != app.StatusPending {
		t.Errorf("a request after the others expired = %+v, want pending", r.Response)
	}
	s.Close()

	// A restart past the expiry keeps nothing of the old requests.
	clock.Advance(app.PairingExpiry + time.Minute)
	s2, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	all, err := v.Agents()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range all {
		if a.Status == vault.AgentPending {
			t.Errorf("pending agent %s kept in the vault across a restart past its expiry", a.Name)
		}
	}
}

// TestPairingSaysWhoAsksAndDenied: a pairing request over a loopback
// connection names the process that sent it (here this test's); a denied
// request is shown as denied, not revoked, and polls are refused.
func TestPairingSaysWhoAsksAndDenied(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var secret string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret = s.RequestPairing(r.Context(), r.URL.Query().Get("name")).Secret
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/?name=asker")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	p := s.PendingPairings(ctx, operator)
	if len(p.Agents) != 1 {
		t.Fatalf("pending = %+v", p)
	}
	asked := app.AskedBy(p.Agents[0])
	if runtime.GOOS == "linux" && !strings.Contains(asked, fmt.Sprintf("process %d, ", os.Getpid())) {
		t.Errorf("AskedBy = %q, want this process (%d)", asked, os.Getpid())
	}
	if r := s.DecidePairing(ctx, operator, "asker", false); !r.OK() {
		t.Fatalf("deny: %+v", r.Response)
	}
	for _, a := range s.Agents(ctx, operator).Agents {
		if a.Name == "asker" && app.StatusText(a) != "denied" {
			t.Errorf("a denied request is shown as %q, want denied", app.StatusText(a))
		}
	}
	if r := s.PollPairing(ctx, "asker", secret); r.Status != app.StatusUnauthorized {
		t.Errorf("poll after deny = %+v, want unauthorized", r.Response)
	}
}
