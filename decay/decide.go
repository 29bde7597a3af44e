package decay

import "time"

// Action is what the sweep should do with a memory.
type Action uint8

// The actions, from mildest to strongest. The zero value is Keep.
const (
	Keep    Action = iota // leave the memory as it is (live or archived)
	Archive               // move it to the archive: out of recall, restorable
	Purge                 // delete it for good
)

func (a Action) String() string {
	switch a {
	case Keep:
		return "keep"
	case Archive:
		return "archive"
	case Purge:
		return "purge"
	}
	return "unknown"
}

// Reason is why a memory is archived or purged. The caller stores the
// reason of an Archive decision as Record.ArchiveReason.
type Reason string

// The reasons Decide gives.
const (
	ReasonExpired          Reason = "expired"           // TTL ran out: archive
	ReasonLowConfidence    Reason = "low_confidence"    // confidence below the minimum: archive
	ReasonUnused           Reason = "unused"            // not accessed for UnusedAfter: archive
	ReasonRefuted          Reason = "refuted"           // refuted: archive with a note
	ReasonSensitiveExpired Reason = "sensitive_expired" // sensitive and expired: purge, no archive
	ReasonArchiveRetention Reason = "archive_retention" // archived long enough: purge
)

// Decision is the outcome of Decide.
type Decision struct {
	Action Action
	Reason Reason // empty for Keep
	// When is the instant the rule became due: the expiry, the end of the
	// unused period or of the archive retention. For a refutation or a low
	// confidence, which have no such instant, it is now. Zero for Keep.
	// When is never after now. Record the archive time as now, not When.
	When time.Time
	// Note is a human-readable explanation for the archive, set for a
	// refutation (with Record.RefutedNote, if any).
	Note string
}

// ExpiresAt returns when r's TTL runs out under p, counted from its last
// confirmation or creation, and false if it has none. The first rule that
// applies wins:
//
//  1. pinned: no TTL;
//  2. a positive Record.TTL;
//  3. semantic and saved by the user: no TTL;
//  4. agent-written in an allowlisted field (IsAgentField): p.AgentFieldTTL;
//  5. episodic: p.EpisodicTTL;
//  6. anything else (other semantic memories, unknown tiers): no TTL.
//
// A record with neither a creation nor a confirmation time has no TTL.
// Re-confirming (Reconfirm) moves the expiry to a full TTL after now.
func ExpiresAt(r Record, p Policy) (time.Time, bool) {
	return r.expiresAt(p.normalized())
}

// expiresAt is ExpiresAt for an already normalized policy.
func (r Record) expiresAt(p Policy) (time.Time, bool) {
	start := r.start()
	if r.Pinned || start.IsZero() {
		return time.Time{}, false
	}
	var ttl time.Duration
	switch {
	case r.TTL > 0:
		ttl = r.TTL
	case r.Tier == Semantic && r.UserSaved:
		return time.Time{}, false
	case r.AgentWritten && IsAgentField(r.Field):
		ttl = p.AgentFieldTTL
	case r.Tier == Episodic:
		ttl = p.EpisodicTTL
	default:
		return time.Time{}, false
	}
	return start.Add(ttl), true
}

// Decide returns what the sweep should do with r at now under p. The rules,
// in order (the first that applies wins):
//
//  1. pinned: Keep, whatever else holds;
//  2. sensitive and past its expiry: Purge (ReasonSensitiveExpired), even
//     from the archive, without archiving first;
//  3. archived: Purge (ReasonArchiveRetention) once the retention has run,
//     otherwise Keep. Memories archived as expired are kept for
//     p.ArchiveRetention after the later of their expiry and ArchivedAt;
//     others for p.OtherArchiveRetention after ArchivedAt. A zero ArchivedAt
//     is never purged by retention;
//  4. refuted: Archive (ReasonRefuted) with a note;
//  5. past its expiry (ExpiresAt): Archive (ReasonExpired);
//  6. confidence below p.MinConfidence: Archive (ReasonLowConfidence);
//  7. created, confirmed and accessed all at least p.UnusedAfter ago:
//     Archive (ReasonUnused), except semantic memories saved by the user,
//     which never leave on their own;
//  8. otherwise Keep.
//
// "Past" means now is at or after the instant. Zero or out-of-range policy
// fields are read as their defaults (see Policy).
//
// Invariants: pinned memories are never archived or purged; only archived
// memories are purged, except sensitive ones past their expiry; for a fixed
// record the action never weakens as now moves forward; and since every
// rule but refutation compares now with an instant stored in r, moving the
// clock backwards only delays archives and purges.
func Decide(r Record, now time.Time, p Policy) Decision {
	if r.Pinned {
		return Decision{}
	}
	p = p.normalized()
	expiry, expires := r.expiresAt(p)
	if r.Sensitive && expires && !now.Before(expiry) {
		return Decision{Action: Purge, Reason: ReasonSensitiveExpired, When: expiry}
	}
	if r.Archived {
		if r.ArchivedAt.IsZero() {
			return Decision{}
		}
		var due time.Time
		if r.ArchiveReason == ReasonExpired {
			due = r.ArchivedAt
			if expires {
				due = latest(due, expiry)
			}
			due = due.Add(p.ArchiveRetention)
		} else {
			due = r.ArchivedAt.Add(p.OtherArchiveRetention)
		}
		if !now.Before(due) {
			return Decision{Action: Purge, Reason: ReasonArchiveRetention, When: due}
		}
		return Decision{}
	}
	if r.Refuted {
		note := "refuted"
		if r.RefutedNote != "" {
			note += ": " + r.RefutedNote
		}
		return Decision{Action: Archive, Reason: ReasonRefuted, When: now, Note: note}
	}
	if expires && !now.Before(expiry) {
		return Decision{Action: Archive, Reason: ReasonExpired, When: expiry}
	}
	if Confidence(r, now) < p.MinConfidence {
		return Decision{Action: Archive, Reason: ReasonLowConfidence, When: now}
	}
	if last := r.lastUse(); !last.IsZero() && !(r.UserSaved && r.Tier == Semantic) {
		if unused := last.Add(p.UnusedAfter); !now.Before(unused) {
			return Decision{Action: Archive, Reason: ReasonUnused, When: unused}
		}
	}
	return Decision{}
}
