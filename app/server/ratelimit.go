package server

import (
	"net/http"

	"github.com/engram-app/engram/app"
)

// bucket is a token bucket for one agent or asking process.
type bucket struct {
	tokens float64
	last   int64 // unix nanoseconds
	rate   float64
	burst  int
}

// The requests anyone on the machine may send without a token are limited
// per asking process (app.Service.ProcessKey), so that one process that
// floods them slows itself, not the others:
//
//   - POST /v1/pair: pairRequestBurst at once, then one every 5 s, per
//     process, under a ceiling for all processes together (each accepted
//     request is a write to the vault);
//   - pairing polls: an agent's rate, per process;
//   - a failed authentication (a wrong token, a wrong pairing secret):
//     authFailBurst at once, then authFailRate a second, per process;
//     beyond, 429. The failures are counted in memory and audited as a
//     summary (app.AuthFailPeriod), so they cost no write either way.
//
// Where the OS does not name the process (off Linux), every such request
// shares one bucket per kind: the global scheme.
const (
	pairRequestRate  = 0.2 // per second: one every 5 s sustained
	pairRequestBurst = 5
	pairCeilingRate  = 1
	pairCeilingBurst = 20
	authFailRate     = 2
	authFailBurst    = 20
	maxBuckets       = 4096
	// Bucket keys: a prefix and the process key (app.Service.ProcessKey,
	// "" when the OS does not tell), or the ceiling's own key.
	bucketKeyPairing  = "pairing:"
	bucketKeyPairAsk  = "pair-request:"
	bucketKeyAuthFail = "auth-failed:"
	bucketPairCeiling = "pair-request-all"
)

// allow takes one token from the agent's bucket.
func (s *Server) allow(agent string) bool {
	return s.allowAt(agent, s.rate, s.burst)
}

// allowAt takes one token from bucket key, which refills at rate per
// second up to burst. Buckets that have refilled are forgotten once there
// are maxBuckets; while that many are still refilling, a new key is
// refused (the per-process limits then act as one global limit).
func (s *Server) allowAt(key string, rate float64, burst int) bool {
	now := s.now().UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.buckets[key]
	if b == nil {
		if len(s.buckets) >= maxBuckets {
			s.pruneBuckets(now)
			if len(s.buckets) >= maxBuckets {
				return false
			}
		}
		b = &bucket{tokens: float64(burst), last: now, rate: rate, burst: burst}
		s.buckets[key] = b
	}
	if elapsed := float64(now-b.last) / 1e9; elapsed > 0 {
		b.tokens = min(float64(burst), b.tokens+elapsed*rate)
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// pruneBuckets forgets the buckets that have refilled (a new one starts
// full). s.mu must be held.
func (s *Server) pruneBuckets(now int64) {
	for k, b := range s.buckets {
		if b.tokens+float64(now-b.last)/1e9*b.rate >= float64(b.burst) {
			delete(s.buckets, k)
		}
	}
}

// refuseAuth answers a failed authentication: 401, or 429 once the
// asking process has failed more than its burst.
func (s *Server) refuseAuth(w http.ResponseWriter, r *http.Request, msg string) {
	if !s.allowAt(bucketKeyAuthFail+s.svc.ProcessKey(r.Context()), authFailRate, authFailBurst) {
		w.Header().Set("Retry-After", "10")
		replyError(w, http.StatusTooManyRequests, app.StatusUnavailable, "too many requests with a wrong token from this process; wait before trying again")
		return
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="engram", error="invalid_token"`)
	replyError(w, http.StatusUnauthorized, app.StatusUnauthorized, msg)
}
