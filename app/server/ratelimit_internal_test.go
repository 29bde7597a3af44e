package server

import (
	"fmt"
	"testing"
	"time"
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
