package app

import (
	"context"
	"time"
)

// L3DueResponse is the removal of L3 access records that the sweep
// proposes: Due records (entries about the sensitive partition) were
// written before Before, past their retention, and stay until the user
// approves their removal (PruneL3 with the same now and retention).
type L3DueResponse struct {
	Response
	Due    int       `json:"due"`
	Before time.Time `json:"before"`
}

// L3Due reports the L3 access records past their retention as of now,
// for the audit retention retention (the larger of it and the sensitive
// retention applies, as in PruneL3). It counts what the sweep proposes
// (SweepResponse.L3Proposed) and changes nothing. Operator only.
func (s *Service) L3Due(ctx context.Context, req Request, now time.Time, retention time.Duration) L3DueResponse {
	if r, ok := s.operatorGate(req); !ok {
		return L3DueResponse{Response: r}
	}
	n, err := s.l3Due(now, retention)
	if err != nil {
		return L3DueResponse{Response: s.fail("l3 due", err)}
	}
	return L3DueResponse{Response: Response{Status: StatusOK}, Due: n, Before: s.sensitiveCutoff(now, retention)}
}
