package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

func TestParseExpiry(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time // zero: nil (the policy's)
		err  string
	}{
		{"30d", now.Add(30 * 24 * time.Hour), ""},
		{"2w", now.Add(14 * 24 * time.Hour), ""},
		{"36h", now.Add(36 * time.Hour), ""},
		{"2026-04-01", time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), ""},
		{"2026-04-01T08:00:00+02:00", time.Date(2026, 4, 1, 6, 0, 0, 0, time.UTC), ""},
		{"default", time.Time{}, ""},
		{"2026-01-01", time.Time{}, "not in the future"},
		{"-3h", time.Time{}, "not in the future"},
		{"0d", time.Time{}, "want an RFC 3339 time"},
		{"soon", time.Time{}, "want an RFC 3339 time"},
	} {
		got, err := app.ParseExpiry(tc.in, now)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseExpiry(%q) = %v, %v; want an error saying %q", tc.in, got, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseExpiry(%q) = %v", tc.in, err)
		case tc.want.IsZero() && got != nil, !tc.want.IsZero() && (got == nil || !got.Equal(tc.want)):
			t.Errorf("ParseExpiry(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestExpiryTheUserSets: the user sets an expiry on a new memory and
// changes it on an existing one, the sweep archives the memory then; an
// agent may only shorten what the policy gives its memory.
func TestExpiryTheUserSets(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	day := 24 * time.Hour
	m := mustStore(t, s, operator, app.StoreInput{Content: "The office is closed this week", Tier: vault.Semantic, Expires: "7d"})
	if want := clock.Now().Add(7 * day); m.Expires == nil || !m.Expires.Equal(want) {
		t.Fatalf("stored with expires 7d: Expires = %v, want %v", m.Expires, want)
	}
	kept := mustStore(t, s, operator, app.StoreInput{Content: "The office moves to Lyon in spring", Tier: vault.Semantic})
	r := s.Update(ctx, operator, kept.ID, app.UpdateInput{Expires: "3d"})
	if !r.OK() || r.Memory.Expires == nil || r.Memory.Content != kept.Content {
		t.Fatalf("Update(expires 3d) = %+v", r)
	}
	if r := s.Update(ctx, operator, kept.ID, app.UpdateInput{Expires: "default"}); !r.OK() || r.Memory.Expires != nil {
		t.Fatalf("Update(expires default) = %+v; want the expiry cleared", r)
	}
	if r := s.Update(ctx, operator, kept.ID, app.UpdateInput{Expires: "yesterday"}); r.Status != app.StatusInvalid {
		t.Fatalf("Update(expires yesterday) = %+v; want invalid", r.Response)
	}

	// An agent: the policy gives its learnings AgentFieldTTL.
	writer := register(t, s, app.AgentSpec{Name: "writer"})
	limit := decay.DefaultPolicy().AgentFieldTTL
	short := mustStore(t, s, writer, app.StoreInput{Content: "The deploy freeze lasts two days", Expires: "2d"})
	if short.Expires == nil {
		t.Fatal("an agent's shorter expiry was not kept")
	}
	long := s.Store(ctx, writer, app.StoreInput{Content: "The build cache is warm", Expires: (limit + day).String()})
	if long.Status != app.StatusInvalid || !strings.Contains(long.Message, "only shorten") {
		t.Fatalf("agent's Store with an expiry past the policy's = %+v; want invalid", long.Response)
	}
	if r := s.Update(ctx, writer, short.ID, app.UpdateInput{Expires: (limit + day).String()}); r.Status != app.StatusInvalid {
		t.Fatalf("agent's Update lengthening the expiry = %+v; want invalid", r.Response)
	}
	if r := s.Update(ctx, writer, short.ID, app.UpdateInput{Expires: "1d"}); !r.OK() {
		t.Fatalf("agent's Update shortening the expiry = %+v", r.Response)
	}

	clock.Advance(7 * day)
	sw := sweepNow(t, s, clock)
	archived := map[string]bool{}
	for _, a := range sw.Actions {
		archived[a.ID] = true
	}
	if !archived[m.ID] || !archived[short.ID] || archived[kept.ID] {
		t.Fatalf("sweep after 7 days archived %v; want the two memories with an expiry, not the one whose expiry was cleared", sw.Actions)
	}
}
