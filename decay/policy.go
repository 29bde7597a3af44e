package decay

import (
	"fmt"
	"time"
)

// MaxEpisodicTTL is the longest episodic TTL a Policy may set.
const MaxEpisodicTTL = 365 * 24 * time.Hour

// Policy holds the sweep's tunable periods. The zero value of every field
// means its default, so Policy{} behaves as DefaultPolicy().
type Policy struct {
	// EpisodicTTL is how long an episodic memory lives after its last
	// confirmation or creation. Default 90 days, at most MaxEpisodicTTL.
	EpisodicTTL time.Duration
	// AgentFieldTTL is how long an agent-written memory in an allowlisted
	// field (IsAgentField) lives. Default 30 days.
	AgentFieldTTL time.Duration
	// ArchiveRetention is how long a memory archived because it expired
	// stays restorable, counted from its expiry (or from its archiving, if
	// that was later). Default 180 days.
	ArchiveRetention time.Duration
	// OtherArchiveRetention is how long a memory archived for any other
	// reason stays restorable, counted from its archiving. Default 365 days.
	OtherArchiveRetention time.Duration
	// UnusedAfter is how long a memory may go without being recalled,
	// confirmed or created before it is archived. Default 365 days.
	UnusedAfter time.Duration
	// MinConfidence is the confidence below which a memory is archived.
	// Default 0.1; at most 1.
	MinConfidence float64
}

// DefaultPolicy returns the documented defaults, every field filled in.
func DefaultPolicy() Policy {
	return Policy{
		EpisodicTTL:           90 * day,
		AgentFieldTTL:         30 * day,
		ArchiveRetention:      180 * day,
		OtherArchiveRetention: 365 * day,
		UnusedAfter:           365 * day,
		MinConfidence:         0.1,
	}
}

// Validate reports a field out of range: a negative period, an EpisodicTTL
// over MaxEpisodicTTL, or a MinConfidence that is negative, NaN or over 1.
// Zero fields are valid (they mean the default). The error wraps
// ErrInvalidPolicy.
func (p Policy) Validate() error {
	for _, f := range []struct {
		name string
		d    time.Duration
	}{
		{"episodic TTL", p.EpisodicTTL},
		{"agent field TTL", p.AgentFieldTTL},
		{"archive retention", p.ArchiveRetention},
		{"other archive retention", p.OtherArchiveRetention},
		{"unused period", p.UnusedAfter},
	} {
		if f.d < 0 {
			return fmt.Errorf("%s %v is negative: %w", f.name, f.d, ErrInvalidPolicy)
		}
	}
	if p.EpisodicTTL > MaxEpisodicTTL {
		return fmt.Errorf("episodic TTL %v exceeds 365 days: %w", p.EpisodicTTL, ErrInvalidPolicy)
	}
	if !(p.MinConfidence >= 0 && p.MinConfidence <= 1) {
		return fmt.Errorf("minimum confidence %v outside [0, 1]: %w", p.MinConfidence, ErrInvalidPolicy)
	}
	return nil
}

// normalized returns p with every zero or out-of-range field replaced by its
// default and EpisodicTTL capped at MaxEpisodicTTL, so that the rules stay
// total even for a policy that fails Validate: a bad setting never turns
// into "expire everything now".
func (p Policy) normalized() Policy {
	d := DefaultPolicy()
	pick := func(v, def time.Duration) time.Duration {
		if v <= 0 {
			return def
		}
		return v
	}
	p.EpisodicTTL = min(pick(p.EpisodicTTL, d.EpisodicTTL), MaxEpisodicTTL)
	p.AgentFieldTTL = pick(p.AgentFieldTTL, d.AgentFieldTTL)
	p.ArchiveRetention = pick(p.ArchiveRetention, d.ArchiveRetention)
	p.OtherArchiveRetention = pick(p.OtherArchiveRetention, d.OtherArchiveRetention)
	p.UnusedAfter = pick(p.UnusedAfter, d.UnusedAfter)
	if !(p.MinConfidence > 0 && p.MinConfidence <= 1) { // also catches NaN
		p.MinConfidence = d.MinConfidence
	}
	return p
}
