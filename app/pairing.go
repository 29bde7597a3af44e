package app

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/engram-app/engram/vault"
)

// Pairing lets an agent ask for access instead of being added by hand
// (the way KeePassXC's browser integration asks): the agent posts its name
// and gets a pairing secret; the user approves or denies it; the agent
// polls with the secret and receives its token once. The token waits in
// memory only: if Engram restarts before the agent collects it, the agent
// pairs again.

// Limits of pairing: anyone on the machine can ask to pair (it needs no
// token), so what waits for the user is bounded. At most
// MaxPendingPairings requests wait at once; a request not answered within
// PairingExpiry expires: it is refused at its next poll, no longer listed,
// and removed (audited) at the next request, listing or start. The loopback
// server also rate-limits POST /v1/pair.
const (
	MaxPendingPairings = 5
	PairingExpiry      = 10 * time.Minute
)

// pairingExpired reports whether a is a pairing request past its expiry.
func pairingExpired(a vault.Agent, now time.Time) bool {
	return a.Status == vault.AgentPending && now.Sub(a.Created) > PairingExpiry
}

// livePairings removes the expired pairing requests and returns the
// agents that still wait, in name order.
func (s *Service) livePairings() ([]vault.Agent, error) {
	all, err := s.v.Agents()
	if err != nil {
		return nil, err
	}
	now := s.now()
	var live []vault.Agent
	for _, a := range all {
		if a.Status != vault.AgentPending {
			continue
		}
		if !pairingExpired(a, now) {
			live = append(live, a)
			continue
		}
		if s.v.ReadOnly() {
			continue
		}
		e := vault.AuditEntry{Action: vault.ActionAgent, Agent: a.Name, Result: vault.ResultOK, Reason: "pairing request expired"}
		if err := s.v.DeletePendingAgent(a.Name, e); err != nil && !errors.Is(err, vault.ErrNotFound) && !errors.Is(err, vault.ErrInvalid) {
			return nil, err
		}
		s.agents.drop()
	}
	return live, nil
}

// A pending agent's Note says which process asked (see Peer), when the
// OS tells; a denied one is revoked with DeniedNote, so that it is never
// taken for an agent the user once trusted.
const (
	askedBy    = "asked by "
	DeniedNote = "the user denied its pairing request"
)

// AskedBy is the process that sent a pending agent's pairing request, as
// the OS told it, or "" when it did not.
func AskedBy(a Agent) string {
	if a.Status != vault.AgentPending {
		return ""
	}
	s, _ := strings.CutPrefix(a.Note, askedBy)
	if s == a.Note {
		return ""
	}
	return s
}

// StatusText is how an agent's status is shown: "denied" for a pairing
// request the user denied, else the status.
func StatusText(a Agent) string {
	if a.Status == vault.AgentRevoked && a.Note == DeniedNote {
		return "denied"
	}
	return string(a.Status)
}

// PendingPairings returns the pairing requests waiting for the user (at
// most MaxPendingPairings, none expired), for the app's one pop-up with a
// count. Operator only.
func (s *Service) PendingPairings(ctx context.Context, req Request) AgentsResponse {
	if r, ok := s.operatorGate(req); !ok {
		return AgentsResponse{Response: r}
	}
	live, err := s.livePairings()
	if err != nil {
		return AgentsResponse{Response: s.fail("pairing", err)}
	}
	for i := range live {
		live[i].TokenHash, live[i].PairHash = "", ""
	}
	return AgentsResponse{Response: Response{Status: StatusOK}, Agents: live}
}

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
	existing, err := s.v.GetAgent(name)
	if err == nil && existing.Status != vault.AgentPending {
		return PairResponse{Response: Response{StatusConflict, fmt.Sprintf("an agent named %q is already registered", name)}}
	}
	live, lerr := s.livePairings()
	if lerr != nil {
		return PairResponse{Response: s.fail("pair", lerr)}
	}
	renew := slices.ContainsFunc(live, func(a vault.Agent) bool { return a.Name == name })
	if !renew && len(live) >= MaxPendingPairings {
		return PairResponse{Response: Response{StatusUnavailable, fmt.Sprintf("%d pairing requests already wait for the user; ask again in a few minutes", len(live))}}
	}
	secret, hash, err := newToken()
	if err != nil {
		return PairResponse{Response: s.fail("pair", err)}
	}
	a := vault.Agent{Name: name, Status: vault.AgentPending, PairHash: hash, Fields: DefaultAgentFields,
		Read: []Partition{vault.Public, vault.Internal}, Trust: vault.TrustStandard, Created: s.now().UTC()}
	reason := "pairing requested by " + name
	if p, ok := peerOf(ctx); ok && p.String() != "" {
		a.Note = askedBy + p.String()
		reason += ", " + p.String()
	}
	e := vault.AuditEntry{Action: vault.ActionAgent, Agent: name, Result: vault.ResultOK, Reason: reason}
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
		if pairingExpired(*a, s.now()) {
			return "", errors.New("this pairing request expired; the agent must ask again")
		}
		if !approve {
			a.Status, a.PairHash, a.Note = vault.AgentRevoked, "", DeniedNote
			return "", nil
		}
		a.Note = ""
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
	if pairingExpired(a, s.now()) {
		_, _ = s.livePairings() // removes it
		return PairResponse{Response: Response{StatusUnauthorized, "the pairing request expired before the user answered; ask again"}}
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
