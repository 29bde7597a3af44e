package app

import (
	"context"
	"time"

	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/vault"
)

// AuditReport is the result of verifying the audit chain.
type AuditReport = vault.AuditReport

// VerifyAudit checks the audit log's hash chain. Operator only.
func (s *Service) VerifyAudit(ctx context.Context, req Request) (AuditReport, Response) {
	if r, ok := s.operatorGate(req); !ok {
		return AuditReport{}, r
	}
	rep, err := s.v.VerifyAudit()
	if err != nil {
		return rep, s.fail("audit verify", err)
	}
	return rep, Response{Status: StatusOK}
}

// CurrentConfidence is m's confidence decayed to now, as recall ranks it
// and the sweep judges it.
func CurrentConfidence(m *Memory, now time.Time) float64 {
	return decay.Confidence(recordOf(m), now)
}

// ExpiresAt is when m's time to live ends under p (the sweep then
// archives it), or false when it has none: pinned, semantic, or no TTL.
func ExpiresAt(m *Memory, p decay.Policy) (time.Time, bool) {
	return decay.ExpiresAt(recordOf(m), p)
}

// StrengthHint returns a sentence about a weak passphrase, or "".
func StrengthHint(p []byte) string {
	n := len([]rune(string(p)))
	switch {
	case n < 8:
		return "this passphrase is short: anyone with the vault file can guess it quickly. Four or more random words are better."
	case n < 14:
		return "a longer passphrase (four or more random words) would be stronger."
	}
	return ""
}

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
