package decay

import (
	"fmt"
	"math"
	"time"
)

// Kind is what a memory records; it selects the decay profile.
type Kind string

// The kinds with a decay profile.
const (
	Fact       Kind = "fact"
	Preference Kind = "preference"
	Event      Kind = "event"
	Pattern    Kind = "pattern"
	Knowledge  Kind = "knowledge"
)

const day = 24 * time.Hour

// profile returns the half-life and floor of k. ok is false for a kind
// without a profile.
func (k Kind) profile() (halfLife time.Duration, floor float64, ok bool) {
	switch k {
	case Fact:
		return 365 * day, 0.3, true
	case Preference:
		return 90 * day, 0.2, true
	case Event:
		return 180 * day, 0.1, true
	case Pattern:
		return 60 * day, 0.3, true
	case Knowledge:
		return 730 * day, 0.4, true
	}
	return 0, 0, false
}

// Tier is the memory tier: short-lived episodic memories or lasting semantic
// ones.
type Tier string

// The tiers.
const (
	Episodic Tier = "episodic"
	Semantic Tier = "semantic"
)

// unknownConfidence is the initial confidence of a record that gives none
// (NaN). The initial confidence by source is the vault's
// (vault.InitialConfidence): the caller sets Record.Initial from it.
const unknownConfidence = 0.50

// IsAgentField reports whether field is one of the fields agents may write
// to, whose agent-written memories expire after Policy.AgentFieldTTL:
// learnings, preferences, gotchas, conventions and decisions. The match is
// exact.
func IsAgentField(field string) bool {
	switch field {
	case "learnings", "preferences", "gotchas", "conventions", "decisions":
		return true
	}
	return false
}

// Boosts added on top of the decayed confidence.
const (
	verificationBoost = 0.1
	observationBoost  = 0.05
)

// Record is what the lifecycle rules need to know about one memory. The
// caller fills it from its own memory type. A zero time means "not known"
// and never makes a rule fire.
type Record struct {
	Kind Kind // selects the decay profile; an unknown kind does not decay
	Tier Tier // an unknown tier gets no tier TTL (see ExpiresAt)

	Field        string // the field the memory was written to, see IsAgentField
	AgentWritten bool   // written by an agent rather than the user
	UserSaved    bool   // explicitly saved by the user
	Pinned       bool   // pinned by an agent or the user: no TTL, never swept
	Sensitive    bool   // sensitive data: purged, not archived, once expired

	// Initial is the confidence at creation or last re-confirmation, usually
	// the vault's initial confidence for its source. NaN is read as 0.50
	// (unknown); values
	// outside [0, 1] are clamped.
	Initial float64
	// Verifications and Observations count the verifications (+0.1 each)
	// and consistent observations (+0.05 each) since the last
	// confirmation. Negative counts are read as zero.
	Verifications, Observations int

	Created   time.Time // when the memory was written
	Confirmed time.Time // last re-confirmation by the user; zero if never
	Accessed  time.Time // last recall; zero if never

	// TTL, when positive, overrides the policy's TTL for this memory (for
	// example a short TTL chosen for sensitive data). Like the policy TTL
	// it counts from the last confirmation or creation, so re-confirming
	// restarts it. Zero or negative means "use the policy".
	TTL time.Duration

	Refuted     bool   // the memory was refuted; the sweep archives it
	RefutedNote string // optional explanation, carried into the archive note

	Archived      bool      // in the archive: excluded from recall, restorable
	ArchivedAt    time.Time // when it was archived; zero means never purged by retention
	ArchiveReason Reason    // why it was archived; selects the retention
}

// Validate reports whether r is well-formed: a known kind and tier, a finite
// initial confidence in [0, 1], a creation time, non-negative counts, and an
// archive time on archived records. The rules accept any Record; Validate is
// for the code that writes them. The error wraps ErrInvalidRecord.
func (r Record) Validate() error {
	if _, _, ok := r.Kind.profile(); !ok {
		return fmt.Errorf("kind %q: %w", r.Kind, ErrInvalidRecord)
	}
	if r.Tier != Episodic && r.Tier != Semantic {
		return fmt.Errorf("tier %q: %w", r.Tier, ErrInvalidRecord)
	}
	if !(r.Initial >= 0 && r.Initial <= 1) { // also rejects NaN
		return fmt.Errorf("initial confidence %v outside [0, 1]: %w", r.Initial, ErrInvalidRecord)
	}
	if r.Created.IsZero() {
		return fmt.Errorf("creation time missing: %w", ErrInvalidRecord)
	}
	if r.Verifications < 0 || r.Observations < 0 {
		return fmt.Errorf("negative verification or observation count: %w", ErrInvalidRecord)
	}
	if r.TTL < 0 {
		return fmt.Errorf("negative TTL %v: %w", r.TTL, ErrInvalidRecord)
	}
	if r.Archived && r.ArchivedAt.IsZero() {
		return fmt.Errorf("archived without an archive time: %w", ErrInvalidRecord)
	}
	return nil
}

// start is the instant age is counted from: the later of Created and
// Confirmed, ignoring zero values. It is zero when both are.
func (r Record) start() time.Time { return latest(r.Created, r.Confirmed) }

// lastUse is the later of Created, Confirmed and Accessed.
func (r Record) lastUse() time.Time { return latest(latest(r.Created, r.Confirmed), r.Accessed) }

func latest(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

// initial returns r.Initial made safe: NaN is 0.50, the rest clamped to [0, 1].
func (r Record) initial() float64 {
	if math.IsNaN(r.Initial) {
		return unknownConfidence
	}
	return clamp01(r.Initial)
}

func clamp01(x float64) float64 {
	switch {
	case x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// Confidence returns r's confidence at now:
//
//	min(initial, max(initial * 0.5^(days/halfLife), floor)) + boosts, capped at 1
//
// where days run from r's last confirmation or creation and boosts are 0.1
// per verification and 0.05 per observation.
//
// Invariants: the result is always within [0, 1], never NaN. Without boosts
// it never exceeds the initial value (the floor does not lift a memory that
// started below it), and it does not increase as now moves forward. If now
// is before the start (the clock moved backwards) no time has passed. A
// record of an unknown kind, or with no timestamps, does not decay.
func Confidence(r Record, now time.Time) float64 {
	c := r.initial()
	if halfLife, floor, ok := r.Kind.profile(); ok {
		if start := r.start(); !start.IsZero() && now.After(start) {
			// Sub saturates at about 292 years, far past every floor.
			halves := float64(now.Sub(start)) / float64(halfLife)
			c = min(c, max(c*math.Exp2(-halves), floor))
		}
	}
	c += verificationBoost*float64(max(r.Verifications, 0)) +
		observationBoost*float64(max(r.Observations, 0))
	return clamp01(c)
}

// Reconfirm returns r as re-confirmed by the user at now: confidence is back
// to the initial value (the boosts are cleared) and the TTL and the unused
// period start again from now (Confirmed; Accessed, the last recall, only
// moves forward). It does not unarchive or unrefute.
func Reconfirm(r Record, now time.Time) Record {
	r.Confirmed = now
	r.Accessed = latest(r.Accessed, now)
	r.Verifications, r.Observations = 0, 0
	return r
}
