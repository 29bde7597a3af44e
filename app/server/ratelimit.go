package server

// bucket is a token bucket for one agent.
type bucket struct {
	tokens float64
	last   int64 // unix nanoseconds
}

// Pairing requests (POST /v1/pair) need no token, so anyone on the
// machine may send them: they have a bucket of their own, shared by every
// client, far smaller than an agent's.
const (
	pairRequestRate  = 0.2 // per second: one every 5 s sustained
	pairRequestBurst = 5
)

// allow takes one token from the agent's bucket.
func (s *Server) allow(agent string) bool {
	return s.allowAt(agent, s.rate, s.burst)
}

// allowAt takes one token from bucket key, which refills at rate per
// second up to burst.
func (s *Server) allowAt(key string, rate float64, burst int) bool {
	now := s.now().UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.buckets[key]
	if b == nil {
		b = &bucket{tokens: float64(burst), last: now}
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
