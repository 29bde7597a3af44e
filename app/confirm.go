package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/engram-app/engram/vault"
)

// ConfirmInput is the body of a confirmation (Confirm takes the evidence
// alone). The jsonschema tags are the descriptions the MCP tools give
// models, as for StoreInput.
type ConfirmInput struct {
	Evidence string `json:"evidence,omitempty" jsonschema:"what you checked that shows it still holds; kept in the memory's history. At most 500 characters (longer is cut), with no secrets, personal data or instructions"`
}

// RefuteInput is the body of a refutation (Refute takes the evidence
// alone), described for models as ConfirmInput is.
type RefuteInput struct {
	Evidence string `json:"evidence" jsonschema:"what shows the memory is wrong (kept in its history, and as its archive note)"`
}

// Confirm records that the caller confirms a memory it can read: the
// user's confirmation restarts the memory's TTL and confidence, an agent's
// adds 0.1 to its confidence, once per agent and never for the memory's own
// writer (see recordOf and package decay).
func (s *Service) Confirm(ctx context.Context, req Request, id, evidence string) MemoryResponse {
	return s.life.Confirm(ctx, req, id, evidence)
}

// Confirm implements Service.Confirm.
func (l *lifecycle) Confirm(ctx context.Context, req Request, id, evidence string) MemoryResponse {
	return l.verify(ctx, req, id, vault.Confirmed, evidence)
}

// Refute records that the caller found a memory wrong. The user's
// refutation, and an agent's of a memory no more trusted than the agent,
// make the next sweep archive it with the evidence as its note.
//
// Higher trust wins, as it does for supersedes: an agent's refutation of
// a memory more trusted than the agent (the user's, or one the user
// confirmed or restored since: the user's verdict stands over any
// agent's) is recorded as that agent's report, a QUESTIONED verification
// with the evidence, which the lifecycle ignores. It archives nothing; the
// user sees it in the memory's history ("bob reports it wrong: ...", see
// VerificationLine) and decides. The agent is told so.
func (s *Service) Refute(ctx context.Context, req Request, id, evidence string) MemoryResponse {
	return s.life.Refute(ctx, req, id, evidence)
}

// Refute implements Service.Refute.
func (l *lifecycle) Refute(ctx context.Context, req Request, id, evidence string) MemoryResponse {
	if strings.TrimSpace(evidence) == "" {
		return MemoryResponse{Response: Response{StatusInvalid, "invalid: a refutation needs the evidence that shows the memory wrong"}}
	}
	return l.verify(ctx, req, id, vault.Refuted, evidence)
}

// refutationReport says why an agent trusted as t only reports m wrong
// rather than refuting it, or "" when its refutation stands: m is more
// trusted than t (the order supersedes uses, vault.TrustLevels), or the user's
// latest verdict on m is a confirmation (a confirm, or a restore).
func refutationReport(m *vault.Memory, t vault.Trust) string {
	if m.Trust.Above(t) {
		return fmt.Sprintf("this memory's trust (%s) is above yours (%s)", m.Trust, t)
	}
	vs := m.Provenance.Verifications
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].Agent != vault.AgentOperator {
			continue
		}
		if vs[i].Verdict == vault.Confirmed {
			return "the user confirmed this memory since it was written"
		}
		break
	}
	return ""
}

func (l *lifecycle) verify(ctx context.Context, req Request, id string, verdict vault.Verdict, evidence string) MemoryResponse {
	if r, ok := l.gate(req); !ok {
		return MemoryResponse{Response: r}
	}
	if r := l.check(req, id, vault.ActionUpdate, l.canRead); !r.OK() {
		return MemoryResponse{Response: r}
	}
	if r := []rune(evidence); len(r) > 500 {
		evidence = string(r[:500])
	}
	if r := l.checkEvidence(req, evidence); !r.OK() {
		return MemoryResponse{Response: r}
	}
	if verdict != vault.Refuted || req.Caller.Operator {
		m, err := l.v.Verify(id, verdict, evidence, req.actor())
		if err != nil {
			return MemoryResponse{Response: l.fail("verify", err)}
		}
		// Recall ranks by the confidence now, which a verification changes.
		l.idx.Put(&m)
		return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &m}
	}
	// An agent's refutation: weighed against the memory as it is at the
	// version the verification is written to (a change of its trust makes
	// a version: Verify then answers ErrConflict and it is weighed again).
	var err error
	for range 3 {
		var cur vault.Memory
		if cur, err = l.v.Peek(id); err != nil {
			break
		}
		a := req.actor()
		a.IfVersion = cur.Version
		why := refutationReport(&cur, req.Caller.WriteTrust())
		v := vault.Refuted
		if why != "" {
			v = vault.Questioned
		}
		var m vault.Memory
		if m, err = l.v.Verify(id, v, evidence, a); errors.Is(err, vault.ErrConflict) {
			continue
		}
		if err != nil {
			break
		}
		l.idx.Put(&m)
		out := MemoryResponse{Response: Response{Status: StatusOK}, Memory: &m}
		if why != "" {
			out.Message = "recorded as your report, not a refutation: " + why + ", so the user decides; the memory stays until then"
		}
		return out
	}
	return MemoryResponse{Response: l.fail("verify", err)}
}

// VerificationLine describes a verification for the memory's history
// ("CONFIRMED by claude-code: checked the CI log"). An agent's QUESTIONED
// is its report that the memory is wrong, which archives nothing:
// "bob reports it wrong: the linter config asks for spaces".
func VerificationLine(v vault.Verification) string {
	ev := ""
	if v.Evidence != "" {
		ev = ": " + v.Evidence
	}
	if v.Verdict == vault.Questioned {
		return v.Agent + " reports it wrong" + ev + " (a report; only the user's refutation archives it)"
	}
	return string(v.Verdict) + " by " + v.Agent + ev
}

// checkEvidence screens the free text of a confirmation or refutation as
// content is screened: it is stored in the memory's provenance and shown
// to agents with its history, so it may hold no secret, no personal data
// and, from an agent, nothing that reads as instructions.
func (l *lifecycle) checkEvidence(req Request, evidence string) Response {
	if bad := l.pol.Clean(evidence, vault.SourceAIInference, !req.Caller.Operator); bad != "" {
		return Response{StatusInvalid, "invalid: the evidence may not hold " + bad}
	}
	return Response{Status: StatusOK}
}
