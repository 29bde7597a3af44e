package server

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestBucketsAreBounded: per-process buckets cannot grow without bound.
// With maxBuckets refilling, a new key is refused; once they have
// refilled, they are forgotten and a new key is served.
func TestBucketsAreBounded(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := New(nil, Options{Now: func() time.Time { return now }})
	for i := range maxBuckets {
		for range 3 {
			if !s.allowAt(fmt.Sprintf("%s%d", bucketKeyAuthFail, i), authFailRate, authFailBurst) {
				t.Fatalf("key %d refused", i)
			}
		}
	}
	if s.allowAt(bucketKeyAuthFail+"new", authFailRate, authFailBurst) {
		t.Error("a new key was served while maxBuckets buckets were refilling")
	}
	now = now.Add(time.Second / authFailRate) // one token of three back: not full yet
	if s.allowAt(bucketKeyAuthFail+"new", authFailRate, authFailBurst) {
		t.Error("a new key was served before any bucket had refilled")
	}
	now = now.Add(time.Minute)
	if !s.allowAt(bucketKeyAuthFail+"new", authFailRate, authFailBurst) {
		t.Error("a new key was refused after the buckets had refilled")
	}
	if n := len(s.buckets); n != 1 {
		t.Errorf("%d buckets kept after they refilled, want 1 (the new one)", n)
	}
}

// TestPairingWhenTheOSDoesNotTell: where the asking process is unknown
// (here: a request whose remote address matches no socket), every asker
// is one, under the global scheme: it may fill all MaxPendingPairings
// slots within its burst, then gets 429.
func TestPairingWhenTheOSDoesNotTell(t *testing.T) {
	v, _ := vaulttest.New(t)
	svc, err := app.New(v, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	h := New(svc, Options{}).Handler()
	var codes []int
	for i := range app.MaxPendingPairings + 1 {
		r := httptest.NewRequest("POST", "http://127.0.0.1/v1/pair", strings.NewReader(fmt.Sprintf(`{"name":"unnamed-%d"}`, i)))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		codes = append(codes, w.Code)
	}
	want := []int{202, 202, 202, 202, 202, 429}
	if !slices.Equal(codes, want) {
		t.Errorf("pairing requests from a process the OS does not name = %v, want %v", codes, want)
	}
}
