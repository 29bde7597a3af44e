package app

import (
	"context"

	"github.com/engram-app/engram/vault"
)

// Confirm records that the caller confirms a memory it can read: the
// user's confirmation restarts the memory's TTL and confidence, an agent's
// adds 0.1 to its confidence (see package decay).
func (s *Service) Confirm(ctx context.Context, req Request, id, evidence string) MemoryResponse {
	return s.verify(req, id, vault.Confirmed, evidence)
}

// Refute records that the caller found a memory wrong; the next sweep
// archives it with the evidence as its note.
func (s *Service) Refute(ctx context.Context, req Request, id, evidence string) MemoryResponse {
	return s.verify(req, id, vault.Refuted, evidence)
}

func (s *Service) verify(req Request, id string, verdict vault.Verdict, evidence string) MemoryResponse {
	if r, ok := s.gate(req); !ok {
		return MemoryResponse{Response: r}
	}
	if r := s.check(req, id, s.canRead); !r.OK() {
		return MemoryResponse{Response: r}
	}
	if r := []rune(evidence); len(r) > 500 {
		evidence = string(r[:500])
	}
	m, err := s.v.Verify(id, verdict, evidence, req.actor())
	if err != nil {
		return MemoryResponse{Response: s.fail("verify", err)}
	}
	return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &m}
}
