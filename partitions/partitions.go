package partitions

import (
	"fmt"
	"strings"
)

// Level is a memory's sensitivity. Higher is more sensitive.
type Level int

const (
	Public          Level = 0 // L0
	Operational     Level = 1 // L1
	ProductInternal Level = 2 // L2
	Sensitive       Level = 3 // L3
)

// Bucket names, one per storage partition.
const (
	BucketPublic    = "public"
	BucketInternal  = "internal"
	BucketSensitive = "sensitive"
)

// Valid reports whether l is one of the four levels.
func (l Level) Valid() bool { return l >= Public && l <= Sensitive }

// String returns "L0".."L3", or "L?" for an invalid level.
func (l Level) String() string {
	if !l.Valid() {
		return "L?"
	}
	return fmt.Sprintf("L%d", int(l))
}

// Bucket returns the partition holding memories of level l: L0 is
// "public", L1 and L2 are "internal", L3 is "sensitive". An invalid level
// maps to "sensitive", the most protected partition.
func (l Level) Bucket() string {
	switch l {
	case Public:
		return BucketPublic
	case Operational, ProductInternal:
		return BucketInternal
	}
	return BucketSensitive
}

// Facts are what classification looks at.
type Facts struct {
	// HasPII is set when the write guard found personal data.
	HasPII bool
	// Product names the product the memory is scoped to; empty means none.
	Product string
	// Requested is the level the writer asked for, if HasRequested.
	Requested    Level
	HasRequested bool
	// UserChoice is set when the requested level is the user's own
	// choice (the local user at the command line or in the app), not a
	// writer's request: the user may go below the automatic level, down to
	// Floor (a memory with neither personal data nor a product scope may
	// be made public).
	UserChoice bool
}

// Decision is the outcome of Classify.
type Decision struct {
	Level  Level
	Bucket string
	// RequestIgnored is set when the writer asked for a level lower than
	// the automatic one (the user: lower than Floor), or an invalid level,
	// and was overruled.
	RequestIgnored bool
	Reasons        []string
}

// Floor returns the lowest level the facts allow, which only the user's
// own choice may reach: L3 with personal data, L2 with a product scope, L0
// otherwise.
func Floor(f Facts) Level {
	switch {
	case f.HasPII:
		return Sensitive
	case strings.TrimSpace(f.Product) != "":
		return ProductInternal
	}
	return Public
}

// Automatic returns the level a memory gets when the writer asks for
// none: the floor, but at least L1 (operational).
func Automatic(f Facts) Level {
	return max(Floor(f), Operational)
}

// Classify returns the level and bucket of a memory. Without a request
// the level is Automatic(f). A requested level is honoured when it is
// valid and not below Automatic(f): a writer can raise protection, never
// lower it. The user's own choice (f.UserChoice) is honoured down to
// Floor(f): personal data is always L3 and product-scoped memories at
// least L2, while the user may make public a memory with neither.
func Classify(f Facts) Decision {
	least := Automatic(f)
	if f.UserChoice {
		least = Floor(f)
	}
	d := Decision{Level: Automatic(f)}
	switch {
	case f.HasPII:
		d.Reasons = append(d.Reasons, "personal data requires L3")
	case Floor(f) == ProductInternal:
		d.Reasons = append(d.Reasons, "product scope requires at least L2")
	default:
		d.Reasons = append(d.Reasons, "default level L1")
	}
	if f.HasRequested {
		switch {
		case !f.Requested.Valid():
			d.RequestIgnored = true
			d.Reasons = append(d.Reasons, "requested level is invalid")
		case f.Requested < least:
			d.RequestIgnored = true
			d.Reasons = append(d.Reasons, fmt.Sprintf("requested %v is below the required %v", f.Requested, least))
		default:
			if f.Requested != d.Level {
				d.Reasons = append(d.Reasons, fmt.Sprintf("requested %v", f.Requested))
			}
			d.Level = f.Requested
		}
	}
	d.Bucket = d.Level.Bucket()
	return d
}

// Reader is an agent (or the operator) asking to read.
type Reader struct {
	Agent   string
	Group   string
	Product string
	// Operator is the local human operator of the vault.
	Operator bool
	// SensitiveGrant is set for agents explicitly granted L3 access.
	SensitiveGrant bool
}

// Memory is what access control needs to know about a memory.
type Memory struct {
	Level      Level
	OwnerGroup string
	Product    string
}

// CanRead is the read access matrix:
//
//	L0  every agent
//	L1  agents in the memory's owner group
//	L2  agents working on the memory's product
//	L3  the local operator and agents with SensitiveGrant
//
// The operator can read every level. Empty group or product names never
// match, and an invalid level denies everyone but the operator.
func CanRead(r Reader, m Memory) bool {
	if r.Operator {
		return true
	}
	switch m.Level {
	case Public:
		return true
	case Operational:
		return m.OwnerGroup != "" && r.Group == m.OwnerGroup
	case ProductInternal:
		return m.Product != "" && r.Product == m.Product
	case Sensitive:
		return r.SensitiveGrant
	}
	return false
}
