package quarantine

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/engram-app/engram/vault"
)

// State is where an item is in review.
type State string

// States. Pending items wait for the user; hostile items are forensic
// copies kept, escaped and never served to agents, until the user discards
// them or HostileRetention passes. Approved, rejected and discarded items
// leave the queue (the audit log keeps the decision).
const (
	Pending   State = "pending"
	Hostile   State = "hostile"
	Approved  State = "approved"
	Rejected  State = "rejected"
	Discarded State = "discarded"
)

// HostileRetention is how long a hostile forensic copy is kept.
const HostileRetention = 30 * 24 * time.Hour

// Proposal is the guardian's suggestion for a pending item.
type Proposal string

// Proposals.
const (
	ProposeSafe       Proposal = "safe"       // promote to standard trust
	ProposeSuspicious Proposal = "suspicious" // the user must decide
	ProposeHostile    Proposal = "hostile"    // discard
)

// Finding is one detection, with byte offsets into the item's
// Memory.Content (the text as it would be stored), or Start and End -1
// when the span is not in it (a redacted secret).
type Finding struct {
	Kind   string `json:"kind"`
	Type   string `json:"type"`
	Level  string `json:"level,omitempty"`  // secrets: definite, probable or possible
	Reason string `json:"reason,omitempty"` // the guard's explanation
	Start  int    `json:"start"`
	End    int    `json:"end"`
}

// Kind says what an item holds.
type Kind string

// Kinds of item.
const (
	// KindWrite (the zero value, absent from the stored JSON) is a write
	// waiting to be stored: suspicious, from the web, a confirmation
	// request, a conflict for the user to settle, or a hostile copy.
	KindWrite Kind = ""
	// KindReevaluation is a stored memory held for the user's review
	// because the user found its source (an agent, one of its sessions,
	// an import run) unreliable. The memory itself waits in the vault's
	// archive, out of every agent's reach, under its own id; Memory is a
	// copy of it as it was when held, for the review screen. Approving
	// brings it back as it was, rejecting deletes it.
	KindReevaluation Kind = "re-evaluation"
	// KindSyncConflict is a state of a stored memory that lost to a
	// concurrent edit on another device (vault/DESIGN.md, "Sync across
	// devices"): the memory is live with the later edit, and this state
	// is one of its versions. Memory is that state (its ID the memory's).
	// Approving makes it the live state again, rejecting keeps the live
	// one.
	KindSyncConflict Kind = "sync-conflict"
)

// Item is one quarantined write, or one memory held for re-evaluation.
type Item struct {
	ID    string `json:"id"`
	State State  `json:"state"`
	Kind  Kind   `json:"kind,omitempty"`
	// Memory is the memory as it would be stored (a write), or as it was
	// when it was held (a re-evaluation: its ID is the held memory's).
	Memory vault.Memory `json:"memory"`
	// Agent and Session are the writer of a queued write, or the source
	// the user found unreliable (a re-evaluation).
	Agent    string    `json:"agent"`
	Session  string    `json:"session,omitempty"`
	Reason   string    `json:"reason"`
	Reasons  []string  `json:"reasons,omitempty"`
	Risk     float64   `json:"risk"`
	Threat   int       `json:"threat"` // 0..10
	Findings []Finding `json:"findings,omitempty"`
	// Joined is set for a write that completes an order begun in an
	// earlier write of the session: the two joined, the text the guard
	// found suspicious. Findings are offsets into Memory.Content, never
	// into Joined.
	Joined string `json:"joined,omitempty"`
	// JoinedFindings are what the guard found in Joined, with offsets
	// into it.
	JoinedFindings []Finding `json:"joined_findings,omitempty"`
	// Partner is the other half of a split order, already stored as a
	// memory when this write came; nil for any other item.
	Partner  *Partner `json:"partner,omitempty"`
	Proposal Proposal `json:"proposal"`
	// Guardian explains the proposal.
	Guardian []string  `json:"guardian,omitempty"`
	Created  time.Time `json:"created"`
	// Expires is set for hostile copies: they are purged after it.
	Expires *time.Time `json:"expires,omitempty"`
}

// Partner is the stored half of a split order: an earlier write of the
// same agent that this item's write completes.
type Partner struct {
	// ID is the stored memory.
	ID string `json:"id"`
	// Content is its text as the agent wrote it (the item is sealed).
	Content string `json:"content"`
	// Held is set when the memory was held out of every caller's recall
	// (archived) until the user decides: approving the item brings it
	// back, rejecting it deletes it unless the user keeps it. A memory
	// the user changed since the agent wrote it, or one the agent only
	// repeated, is not held (Why says so).
	Held bool   `json:"held"`
	Why  string `json:"why,omitempty"`
}

// RiskLevel says in words how risky the guard found the item, for a
// person: "hostile", "high risk", "medium risk", "low risk" or "no risk
// found". Suspicious (the guard's 0.5) and above is medium or high.
func (it *Item) RiskLevel() string {
	switch {
	case it.State == Hostile:
		return "hostile"
	case it.Risk >= 0.75 || it.Threat >= 7:
		return "high risk"
	case it.Risk >= suspiciousRisk || it.Threat >= 4:
		return "medium risk"
	case it.Risk >= 0.25:
		return "low risk"
	}
	return "no risk found"
}

// Effects says what the guard found the memory would make an agent do,
// or what it holds, one line per finding that has a reason, each once:
// "tells agents to run a script fetched from get.example".
func (it *Item) Effects() []string {
	var out []string
	for _, f := range append(slices.Clip(it.Findings), it.JoinedFindings...) {
		if f.Reason != "" && f.Kind == "injection" && !slices.Contains(out, f.Reason) {
			out = append(out, f.Reason)
		}
	}
	return out
}

// Sensitive reports whether the item must be sealed at rest: it holds
// personal data (a sensitive memory, archived or not), or it is a hostile
// copy (whatever it holds, it is never left in the file in clear).
func (it *Item) Sensitive() bool {
	return it.Memory.Sensitive() || it.State == Hostile
}

// next lists the allowed transitions.
var next = map[State][]State{
	Pending: {Approved, Rejected},
	Hostile: {Discarded},
}

// Waiting reports whether the item waits for the user's verdict.
func (it *Item) Waiting() bool { return it.State == Pending }

// Forensic reports whether the item is the sealed copy of a hostile write,
// kept only as evidence: it can only be discarded.
func (it *Item) Forensic() bool { return it.State == Hostile }

// SafeToApprove reports whether the guardian proposes approving the item:
// a waiting item it found safe. Only these are approved without a
// question, one at a time or all together ("approve safe").
func (it *Item) SafeToApprove() bool { return it.State == Pending && it.Proposal == ProposeSafe }

// CanBecome reports (nil) whether the state machine lets the item move
// to s, or why not (ErrTransition). It changes nothing: the move is made
// by whoever stores or removes the item.
func (it *Item) CanBecome(s State) error {
	for _, ok := range next[it.State] {
		if ok == s {
			return nil
		}
	}
	return fmt.Errorf("%w: %s item cannot become %s", ErrTransition, it.State, s)
}

// Encode returns the item's stored form.
func (it *Item) Encode() (json.RawMessage, error) {
	return json.Marshal(it)
}

// Decode parses a stored item.
func Decode(data []byte) (*Item, error) {
	var it Item
	if err := json.Unmarshal(data, &it); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrItem, err)
	}
	switch it.State {
	case Pending, Hostile:
	default:
		return nil, fmt.Errorf("%w: state %q", ErrItem, it.State)
	}
	switch {
	case it.Kind == KindWrite:
	case it.Kind == KindReevaluation && it.State == Pending && it.Memory.ID != "":
	case it.Kind == KindSyncConflict && it.State == Pending && it.Memory.ID != "":
	default:
		// An item of a kind this Engram does not know is refused rather
		// than approved as a write.
		return nil, fmt.Errorf("%w: a %s item of kind %q", ErrItem, it.State, it.Kind)
	}
	if it.ID == "" {
		return nil, fmt.Errorf("%w: no id", ErrItem)
	}
	return &it, nil
}

// Expired reports whether a hostile copy is past its retention at now.
func (it *Item) Expired(now time.Time) bool {
	return it.State == Hostile && it.Expires != nil && now.After(*it.Expires)
}
