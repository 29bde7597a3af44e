package server

// bucket is a token bucket for one agent.
type bucket struct {
	tokens float64
	last   int64 // unix nanoseconds
}

// allow takes one token from the agent's bucket.
func (s *Server) allow(agent string) bool {
	now := s.now().UnixNano()
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.buckets[agent]
	if b == nil {
		b = &bucket{tokens: float64(s.burst), last: now}
		s.buckets[agent] = b
	}
	if elapsed := float64(now-b.last) / 1e9; elapsed > 0 {
		b.tokens = min(float64(s.burst), b.tokens+elapsed*s.rate)
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
