package app

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"

	"github.com/engram-app/engram/vault"
)

// Pairing lets an agent ask for access instead of being added by hand
// (the way KeePassXC's browser integration asks): the agent posts its name
// and gets a pairing secret; the user approves or denies it; the agent
// polls with the secret and receives its token once. The token waits in
// memory only: if Engram restarts before the agent collects it, the agent
// pairs again.

// PairResponse answers a pairing request or poll.
type PairResponse struct {
	Response
	// Secret is returned by RequestPairing; the agent polls with it.
	Secret string `json:"pair_secret,omitempty"`
	// Token is returned once, by the first poll after approval.
	Token string `json:"token,omitempty"`
}

// RequestPairing registers name as a pending agent. It needs no token.
// A name already registered and not pending is refused.
func (s *Service) RequestPairing(ctx context.Context, name string) PairResponse {
	if s.v == nil {
		return PairResponse{Response: Response{StatusUnavailable, "memory is unavailable"}}
	}
	if !agentName.MatchString(name) || name == vault.AgentOperator {
		return PairResponse{Response: Response{StatusInvalid, "an agent name is 1 to 64 letters, digits, dots, dashes or underscores"}}
	}
	if a, err := s.v.GetAgent(name); err == nil && a.Status != vault.AgentPending {
		return PairResponse{Response: Response{StatusConflict, fmt.Sprintf("an agent named %q is already registered", name)}}
	}
	secret, hash, err := newToken()
	if err != nil {
		return PairResponse{Response: s.fail("pair", err)}
	}
	a := vault.Agent{Name: name, Status: vault.AgentPending, PairHash: hash, Fields: DefaultAgentFields,
		Read: []Partition{vault.Public, vault.Internal}, Trust: vault.TrustStandard, Created: s.now().UTC()}
	e := vault.AuditEntry{Action: vault.ActionAgent, Agent: name, Result: vault.ResultOK, Reason: "pairing requested by " + name}
	defer s.agents.drop()
	if err := s.v.PutAgent(a, e); err != nil {
		return PairResponse{Response: s.fail("pair", err)}
	}
	return PairResponse{Response: Response{StatusPending, fmt.Sprintf("waiting for the user to approve %q (engram agent approve %s)", name, name)}, Secret: secret}
}

// DecidePairing approves or denies a pending agent. On approval its token
// is created and held for the agent's next poll. Operator only.
func (s *Service) DecidePairing(ctx context.Context, req Request, name string, approve bool) AgentResponse {
	if r, ok := s.operatorGate(req); !ok {
		return AgentResponse{Response: r}
	}
	var token string
	r := s.changeAgent(req, name, map[bool]string{true: "approve", false: "deny"}[approve], func(a *vault.Agent) (string, error) {
		if a.Status != vault.AgentPending {
			return "", errors.New("this agent is not waiting for approval")
		}
		if !approve {
			a.Status, a.PairHash = vault.AgentRevoked, ""
			return "", nil
		}
		t, hash, err := newToken()
		if err != nil {
			return "", err
		}
		a.Status, a.TokenHash = vault.AgentActive, hash
		token = t
		return "", nil
	})
	if r.OK() && approve {
		s.agents.hold(name, token)
	}
	return r
}

// PollPairing is the agent's side: pending until the user decides, then
// the token (once), or unauthorized when denied or the secret is wrong.
func (s *Service) PollPairing(ctx context.Context, name, secret string) PairResponse {
	if s.v == nil {
		return PairResponse{Response: Response{StatusUnavailable, "memory is unavailable"}}
	}
	a, err := s.v.GetAgent(name)
	if err != nil || a.PairHash == "" || subtle.ConstantTimeCompare([]byte(a.PairHash), []byte(hashToken(secret))) != 1 {
		return PairResponse{Response: s.authFailed("pairing poll with an unknown name or secret")}
	}
	switch a.Status {
	case vault.AgentPending:
		return PairResponse{Response: Response{StatusPending, "still waiting for the user's approval"}}
	case vault.AgentActive:
		if token, ok := s.agents.collect(name); ok {
			return PairResponse{Response: Response{Status: StatusOK, Message: "approved: keep this token; it is not shown again"}, Token: token}
		}
		return PairResponse{Response: Response{StatusConflict, "the token was already collected"}}
	}
	return PairResponse{Response: Response{StatusUnauthorized, "the user denied this agent"}}
}
