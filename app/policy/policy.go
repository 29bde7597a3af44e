package policy

import (
	"fmt"
	"strings"

	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// Policy is the write policy over one write guard. It holds no state and
// is safe for concurrent use.
type Policy struct {
	guard *guard.Guard
	// piiStays: personal data is kept, in the sensitive partition, rather
	// than redacted (guard.Policy.PII).
	piiStays bool
}

// New returns the policy of the guard built from gp.
func New(gp guard.Policy) (*Policy, error) {
	g, err := guard.New(gp)
	if err != nil {
		return nil, err
	}
	return &Policy{guard: g, piiStays: gp.PII != guard.PIIRedact}, nil
}

// Guard is the write guard the policy judges with, for the checks that
// are not a write's admission (split orders, merges, re-evaluation).
func (p *Policy) Guard() *guard.Guard { return p.guard }

// FieldLimit is the configured size limit of a field, in characters (0:
// none).
func (p *Policy) FieldLimit(f vault.Field) int { return p.guard.FieldLimit(string(f)) }

// Clean says what a short free text stored as it is beside a memory (a
// tag, a verification's evidence, a request's reason, the name of an
// imported file) holds that it may not: "" when it is clean, else
// "secrets", "personal data", or "instructions (the guard's reasons)".
// Such texts are shown with the memory and its history and never pass
// the admission, so this is the only check they get. Instructions count
// when the text comes from an agent or a file (instructions set), not
// from the user. from is the source the text is judged as.
func (p *Policy) Clean(text string, from vault.SourceType, instructions bool) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	res := p.guard.Check(guard.Input{Text: text, Source: string(from)})
	switch {
	case res.HasSecret || res.NeedsConfirm:
		return "secrets"
	case res.HasPII:
		return "personal data"
	case instructions && res.Verdict != guard.Safe:
		return "instructions (" + strings.Join(res.Reasons, "; ") + ")"
	}
	return ""
}

// MaxIDLen bounds identifiers in a write's metadata.
const MaxIDLen = 128

// ValidID reports whether s is a usable identifier (a session, a message,
// a tool): 1 to 128 characters of A-Z, a-z, 0-9 and . _ : / @ -.
func ValidID(s string) bool {
	if s == "" || len(s) > MaxIDLen {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == ':', c == '/', c == '@', c == '-':
		default:
			return false
		}
	}
	return true
}

// CheckIDs refuses metadata identifiers outside the grammar, or holding a
// secret or personal data (a token or an SSN fits the grammar): they are
// stored as they are and returned by history, so they must not be a way
// to store text the guard never saw. It returns why, or "".
func (p *Policy) CheckIDs(src vault.Source, session string) string {
	ids := []struct{ name, v string }{
		{"source.session_id", src.SessionID}, {"source.message_id", src.MessageID}, {"source.tool", src.Tool}, {"the session (Engram-Session)", session},
	}
	var all []string
	for _, f := range ids {
		if f.v == "" {
			continue
		}
		if !ValidID(f.v) {
			return fmt.Sprintf("invalid: %s must be at most %d characters of A-Z, a-z, 0-9 and ._:/@-", f.name, MaxIDLen)
		}
		all = append(all, f.v)
	}
	if len(all) == 0 {
		return ""
	}
	if secret, personal := p.guard.Data(strings.Join(all, " ")); secret || personal {
		for _, f := range ids {
			if f.v == "" {
				continue
			}
			if secret, personal := p.guard.Data(f.v); secret || personal {
				return fmt.Sprintf("invalid: %s may not hold a secret or personal data; it is an identifier", f.name)
			}
		}
		return "invalid: the write's identifiers may not hold a secret or personal data"
	}
	return ""
}
