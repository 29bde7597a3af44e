package app

import (
	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/vault"
)

// Model types, re-exported so callers (the CLI, the desktop app) need not
// import the vault package.
type (
	Memory     = vault.Memory
	Version    = vault.Version
	AuditEntry = vault.AuditEntry
	Partition  = vault.Partition
	Kind       = vault.Kind
	Field      = vault.Field
	Tier       = vault.Tier
	Source     = vault.Source
	SourceType = vault.SourceType
	Problem    = vault.Problem
)

// More model types and their values, re-exported for the desktop app,
// which imports app only.
type (
	Trust       = vault.Trust
	Operation   = vault.Operation
	AgentStatus = vault.AgentStatus
	// Finding is one span the guard flagged in a quarantined memory.
	Finding = quarantine.Finding
)

// The values a filter or a form offers, in display order.
var (
	Partitions = vault.AllPartitions
	Tiers      = vault.Tiers
	Kinds      = vault.Kinds
	Fields     = vault.AgentFields
	Trusts     = vault.TrustLevels
)

// Operations the desktop app performs through Update.
const (
	OpUpdate     = vault.OpUpdate
	OpTag        = vault.OpTag
	OpReclassify = vault.OpReclassify
)

// Agent statuses.
const (
	AgentPending = vault.AgentPending
	AgentActive  = vault.AgentActive
	AgentPaused  = vault.AgentPaused
	AgentRevoked = vault.AgentRevoked
)

// Trust levels, highest first (vault.TrustLevels is their order).
const (
	TrustSystem    = vault.TrustSystem
	TrustOperator  = vault.TrustOperator
	TrustVerified  = vault.TrustVerified
	TrustStandard  = vault.TrustStandard
	TrustUntrusted = vault.TrustUntrusted
	TrustHostile   = vault.TrustHostile
)

// The guardian's proposals for a quarantined write.
const (
	ProposeSafe       = quarantine.ProposeSafe
	ProposeSuspicious = quarantine.ProposeSuspicious
	ProposeHostile    = quarantine.ProposeHostile
)
