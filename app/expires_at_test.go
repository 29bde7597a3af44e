package app_test

import (
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/decay"
)

func TestExpiresAt(t *testing.T) {
	svc, _ := newService(t)
	agent := app.Request{Caller: app.Caller{Agent: "claude-code", Session: "s1"}, Authorized: true}
	r := svc.Store(t.Context(), agent, app.StoreInput{Content: "the cache lives in /tmp/cache", Field: "learnings"})
	if !r.OK() {
		t.Fatal(r.Message)
	}
	m := r.Memory
	at, ok := app.ExpiresAt(m, decay.DefaultPolicy())
	if want := m.Created.Add(30 * 24 * time.Hour); !ok || !at.Equal(want) {
		t.Fatalf("ExpiresAt(agent note) = %v, %v; want %v", at, ok, want)
	}
	m.Pinned = true
	if _, ok := app.ExpiresAt(m, decay.DefaultPolicy()); ok {
		t.Fatal("a pinned memory has an expiry")
	}
}
