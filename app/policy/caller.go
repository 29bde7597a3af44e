package policy

import (
	"slices"

	"github.com/engram-app/engram/vault"
)

// Caller is who makes a request. The agent id of a request from the
// loopback API comes from its token, never from the body.
type Caller struct {
	Agent    string // agent id; empty for the operator
	Operator bool   // the local user at the CLI or desktop app
	Session  string
	// Fields are the agent fields this agent may write, from its
	// registration; nil means DefaultAgentFields.
	Fields []vault.Field
	// Read lists the partitions the agent may read (nil: public and
	// internal); Group and Product widen what it reads of other agents'
	// internal memories. All come from its registration.
	Read           []vault.Partition
	Group, Product string
	// Trust is the trust the user gave the agent at registration: its
	// writes never get more. MayConfirm is the user's grant that its
	// "the user confirmed" counts as the user's confirmation.
	Trust      vault.Trust
	MayConfirm bool
}

// DefaultAgentFields are the fields an agent may write unless its
// registration says otherwise: gotchas must be granted explicitly.
var DefaultAgentFields = []vault.Field{vault.Learnings, vault.Preferences, vault.Conventions, vault.Decisions}

// MayWrite reports whether the caller may write field f: the operator
// every field, an agent the fields its registration grants.
func (c Caller) MayWrite(f vault.Field) bool {
	if c.Operator {
		return true
	}
	fields := c.Fields
	if fields == nil {
		fields = DefaultAgentFields
	}
	return slices.Contains(fields, f) && !slices.Contains(vault.ReservedFields, f)
}

// Name is the caller's name in provenance and audit entries.
func (c Caller) Name() string {
	if c.Operator || c.Agent == "" {
		return vault.AgentOperator
	}
	return c.Agent
}

// WriteTrust is the trust the caller's writes get: the user's for the
// operator; for an agent its registered trust, never above standard.
func (c Caller) WriteTrust() vault.Trust {
	if c.Operator {
		return vault.TrustOperator
	}
	return LowerTrust(vault.TrustStandard, c.Trust)
}

// LowerTrust is a capped by b (the lower of the two); an empty b caps
// nothing.
func LowerTrust(a, b vault.Trust) vault.Trust {
	if b != "" && a.Above(b) {
		return b
	}
	return a
}
