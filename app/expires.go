package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/vault"
)

// ExpiryDefault, as a write's expiry, clears an expiry set earlier: the
// lifecycle policy's time to live applies again.
const ExpiryDefault = "default"

// ParseExpiry reads an expiry as a writer names it: an RFC 3339 time, a
// date (YYYY-MM-DD, midnight UTC), or a duration from now in Go's syntax
// ("36h", "90m") or in days or weeks ("30d", "2w"). It answers nil for
// ExpiryDefault. An expiry at or before now, or one that cannot be read,
// is an error saying so.
func ParseExpiry(s string, now time.Time) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == ExpiryDefault {
		return nil, nil
	}
	var t time.Time
	if at, err := time.Parse(time.RFC3339, s); err == nil {
		t = at
	} else if at, err := time.Parse(time.DateOnly, s); err == nil {
		t = at
	} else if d, ok := parseDays(s); ok {
		t = now.Add(d)
	} else if d, err := time.ParseDuration(s); err == nil {
		t = now.Add(d)
	} else {
		return nil, fmt.Errorf("expiry %q: want an RFC 3339 time, a date (YYYY-MM-DD), a duration such as 36h, 30d or 2w, or %q", s, ExpiryDefault)
	}
	if !t.After(now) {
		return nil, fmt.Errorf("expiry %q is not in the future", s)
	}
	t = t.UTC()
	return &t, nil
}

// parseDays reads "30d" or "2w".
func parseDays(s string) (time.Duration, bool) {
	if len(s) < 2 {
		return 0, false
	}
	unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]]
	n, err := strconv.Atoi(s[:len(s)-1])
	if unit == 0 || err != nil || n <= 0 || n > 100*366 {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// expiryFor decides the expiry a write sets on m (new, or the memory as
// it is): the parsed spec, nil for ExpiryDefault or an empty spec. The user may set any future expiry. An agent may only shorten
// what the lifecycle policy gives m (its tier and field, counted from its
// creation or the user's last confirmation): a later one is refused,
// naming the latest it may set. The answer is StatusInvalid then.
func (s *writer) expiryFor(req Request, m vault.Memory, spec string) (*time.Time, Response) {
	if spec == "" {
		return nil, Response{Status: StatusOK}
	}
	now := s.now()
	exp, err := ParseExpiry(spec, now)
	if err != nil {
		return nil, Response{StatusInvalid, "invalid: " + err.Error()}
	}
	if req.Caller.Operator {
		return exp, Response{Status: StatusOK}
	}
	if m.Created.IsZero() {
		m.Created = now
	}
	if m.Owner == "" {
		m.Owner = req.Caller.Name()
	}
	m.Expires = nil
	limit, limited := decay.ExpiresAt(recordOf(&m), s.lifecycle)
	// Pinned (no policy expiry) or back to the policy's: no lengthening.
	if limited && exp != nil && exp.After(limit) {
		return nil, Response{StatusInvalid, fmt.Sprintf("invalid: an agent may only shorten a memory's time to live: the policy ends this one at %s", limit.UTC().Format(time.RFC3339))}
	}
	return exp, Response{Status: StatusOK}
}

// updateExpiry sets or clears a memory's expiry, as a new version.
func (s *writer) updateExpiry(ctx context.Context, req Request, id string, in UpdateInput) MemoryResponse {
	return s.apply(req, id, vault.OpUpdate, in.IfVersion, nil, func(m *vault.Memory) error {
		exp, r := s.expiryFor(req, *m, in.Expires)
		if !r.OK() {
			return fmt.Errorf("%w: %s", vault.ErrInvalid, strings.TrimPrefix(r.Message, "invalid: "))
		}
		m.Expires = exp
		return nil
	})
}
