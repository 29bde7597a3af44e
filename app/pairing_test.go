package app_test

import (
	"fmt"
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
	if r := s.RequestPairing(ctx, "agent-0"); r.Status != app.StatusPending {
		t.Errorf("asking again for a waiting name = %+v, want pending (it renews, it does not count twice)", r.Response)
	} else {
		secrets["agent-0"] = r.Secret
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
