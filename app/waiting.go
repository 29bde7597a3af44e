package app

import (
	"context"
	"time"

	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/vault"
)

// Waiting is what waits for the user's decision, as engram doctor lists
// it and doctor --json gives it to scripts.
type Waiting struct {
	// Quarantine counts the writes waiting in the quarantine for review;
	// Held the stored memories held there, their source found unreliable;
	// Hostile the hostile copies kept as evidence; SealedHidden the sealed
	// items not counted while the vault is locked.
	Quarantine   int `json:"quarantine"`
	Held         int `json:"held"`
	Hostile      int `json:"hostile"`
	SealedHidden int `json:"sealed_hidden"`
	// SyncConflicts counts the edits that lost to a concurrent edit on
	// another device (quarantine.KindSyncConflict).
	SyncConflicts int `json:"sync_conflicts"`
	// PausedAgents and PairingRequests count the paused agents and the
	// agents asking to pair; the names are in PausedNames and PairingNames.
	PausedAgents    int      `json:"paused_agents"`
	PairingRequests int      `json:"pairing_requests"`
	PausedNames     []string `json:"paused_agent_names,omitempty"`
	PairingNames    []string `json:"pairing_request_names,omitempty"`
	// Questioned counts the live memories with a standing question
	// (Questions).
	Questioned int `json:"questioned"`
	// L3Proposed counts the L3 access records past the sensitive
	// retention whose removal waits for the user's approval (PruneL3).
	L3Proposed int `json:"l3_removal_proposed"`
}

// WaitingResponse reports what waits.
type WaitingResponse struct {
	Response
	Waiting Waiting `json:"waiting"`
}

// WaitingFor gathers what waits for the user as of now. A part that
// cannot be read is left at zero. Operator only.
func (s *Service) WaitingFor(ctx context.Context, req Request, now time.Time) WaitingResponse {
	if r, ok := s.operatorGate(req); !ok {
		return WaitingResponse{Response: r}
	}
	var w Waiting
	if q := s.Quarantine(ctx, req); q.OK() {
		for _, it := range q.Items {
			switch {
			case it.Kind == quarantine.KindReevaluation:
				w.Held++
			case it.Kind == quarantine.KindSyncConflict:
				w.SyncConflicts++
			case it.State == quarantine.Pending:
				w.Quarantine++
			case it.State == quarantine.Hostile:
				w.Hostile++
			}
		}
		w.SealedHidden = q.Hidden
	}
	if a := s.Agents(ctx, req); a.OK() {
		for _, ag := range a.Agents {
			if ag.Status == vault.AgentPaused {
				w.PausedNames = append(w.PausedNames, ag.Name)
			}
		}
	}
	if p := s.PendingPairings(ctx, req); p.OK() {
		for _, ag := range p.Agents {
			w.PairingNames = append(w.PairingNames, ag.Name)
		}
	}
	w.PausedAgents, w.PairingRequests = len(w.PausedNames), len(w.PairingNames)
	if q := s.Questions(ctx, req); q.OK() {
		w.Questioned = len(q.Memories)
	}
	if n, err := s.life.l3Due(now, DefaultAuditRetention); err == nil {
		w.L3Proposed = n
	}
	return WaitingResponse{Response: Response{Status: StatusOK}, Waiting: w}
}
