package app

import (
	"fmt"
	"strings"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// admission is the policy's decision on a write (policy.Admit) and what
// the route adds when it reads the write together with an earlier one.
type admission struct {
	policy.Decision
	// joined is the text screened for a write that completes an order
	// begun in an earlier one: the two joined (see splitOrder).
	joined string
	// joinedFindings are the guard's findings in joined.
	joinedFindings []guard.Finding
	// partner is the earlier write joined (see holdPartner).
	partner *recentWrite
}

// admit asks the write policy about a write of the request's caller.
func (s *writer) admit(req Request, p policy.Proposal) admission {
	return admission{Decision: s.pol.Admit(req.Caller, p)}
}

// refusal is a write that a route refuses itself (a merge or split whose
// text reads as an instruction), settled as an admission is.
func refusal(why string, m vault.Memory, res guard.Result) admission {
	return admission{Decision: policy.Decision{Outcome: policy.Refused, Why: why, Memory: m, Result: res}}
}

// answerOf is the answer's status for a decision that did not admit.
func answerOf(o policy.Outcome) Status {
	switch o {
	case policy.Invalid:
		return StatusInvalid
	case policy.Unauthorized:
		return StatusUnauthorized
	case policy.AskUser:
		return StatusConfirmationRequired
	}
	return StatusRejected
}

// ReportedNote describes what a writer reported of a source without the
// channel vouching for it ("reported by claude-code as user_message, not
// verified"; "spoken by the user, as reported by claude-code"), for
// history views; "" when there is nothing.
func ReportedNote(s vault.Source) string {
	who := s.AgentID
	if who == "" {
		who = "an agent"
	}
	var parts []string
	if s.Reported != "" {
		parts = append(parts, fmt.Sprintf("reported by %s as %s, not verified", who, s.Reported))
	}
	if s.Role != "" {
		if s.AgentID == "" {
			who = "the writer"
		}
		parts = append(parts, fmt.Sprintf("spoken by the %s, as reported by %s", s.Role, who))
	}
	return strings.Join(parts, "; ")
}
