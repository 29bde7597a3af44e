package app

import (
	"context"
	"strings"

	"github.com/engram-app/engram/quarantine/guard"

	"github.com/engram-app/engram/vault"
)

// Confirm records that the caller confirms a memory it can read: the
// user's confirmation restarts the memory's TTL and confidence, an agent's
// adds 0.1 to its confidence, once per agent and never for the memory's own
// writer (see recordOf and package decay).
func (s *Service) Confirm(ctx context.Context, req Request, id, evidence string) MemoryResponse {
	return s.verify(ctx, req, id, vault.Confirmed, evidence)
}

// Refute records that the caller found a memory wrong; the next sweep
// archives it with the evidence as its note.
func (s *Service) Refute(ctx context.Context, req Request, id, evidence string) MemoryResponse {
	if strings.TrimSpace(evidence) == "" {
		return MemoryResponse{Response: Response{StatusInvalid, "invalid: a refutation needs the evidence that shows the memory wrong"}}
	}
	return s.verify(ctx, req, id, vault.Refuted, evidence)
}

func (s *Service) verify(ctx context.Context, req Request, id string, verdict vault.Verdict, evidence string) MemoryResponse {
	if r, ok := s.gate(req); !ok {
		return MemoryResponse{Response: r}
	}
	if r := s.check(req, id, s.canRead); !r.OK() {
		return MemoryResponse{Response: r}
	}
	if r := []rune(evidence); len(r) > 500 {
		evidence = string(r[:500])
	}
	if r := s.checkEvidence(req, evidence); !r.OK() {
		return MemoryResponse{Response: r}
	}
	m, err := s.v.Verify(id, verdict, evidence, req.actor())
	if err != nil {
		return MemoryResponse{Response: s.fail("verify", err)}
	}
	// Recall ranks by the confidence now, which a verification changes.
	s.index(ctx, &m)
	return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &m}
}

// checkEvidence screens the free text of a confirmation or refutation as
// content is screened: it is stored in the memory's provenance and shown
// to agents with its history, so it may hold no secret, no personal data
// and, from an agent, nothing that reads as instructions.
func (s *Service) checkEvidence(req Request, evidence string) Response {
	if strings.TrimSpace(evidence) == "" {
		return Response{Status: StatusOK}
	}
	res := s.guard.Check(guard.Input{Text: evidence, Source: string(vault.SourceAIInference)})
	switch {
	case res.HasSecret || res.NeedsConfirm:
		return Response{StatusInvalid, "invalid: the evidence may not hold secrets"}
	case res.HasPII:
		return Response{StatusInvalid, "invalid: the evidence may not hold personal data"}
	case !req.Caller.Operator && res.Verdict != guard.Safe:
		return Response{StatusInvalid, "invalid: the evidence may not hold instructions (" + strings.Join(res.Reasons, "; ") + ")"}
	}
	return Response{Status: StatusOK}
}
