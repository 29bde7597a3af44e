package app

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/engram-app/engram/app/agents"
	"github.com/engram-app/engram/vault"
)

// Pairing lets an agent ask for access instead of being added by hand
// (the way KeePassXC's browser integration asks): the agent posts its name
// and gets a pairing secret; the user approves or denies it; the agent
// polls with the secret and receives its token once. The token waits in
// memory only: if Engram restarts before the agent collects it, the agent
// pairs again.

// Limits of pairing: anyone on the machine can ask to pair (it needs no
// token), so what waits for the user is bounded, per asking process as
// well as in all.
//
//   - A pending name stays bound to its first request (the hash of the
//     secret it was given) until the user approves or denies it or it
//     expires: a second request under that name is refused (conflict)
//     and replaces and renews nothing, so no other process can collect
//     the token the user grants, and no process keeps a request alive by
//     asking again. A refused request from another process is kept in
//     memory for the pop-up (RefusedPairings) and audited once per
//     process.
//   - At most MaxPendingPairings requests wait at once, and at most
//     MaxPendingPerProcess of them from one process (Service.ProcessKey):
//     a process that asks under many names leaves the other slots to
//     other processes. Processes of a user Engram did not inspect count
//     as one process. Where the OS does not name the asking process (off
//     Linux), every request counts as the same asker, which may hold all
//     MaxPendingPairings: there, as before, one process can fill them.
//     A program that starts many processes can still fill them on Linux;
//     each of its requests shows the user its own process.
//   - A request not answered within PairingExpiry expires: it is refused
//     at its next poll, no longer listed, and removed (audited) at the
//     next request, listing or start.
//
// The loopback server also rate-limits POST /v1/pair per process, under a
// ceiling for all processes together.
const (
	MaxPendingPairings   = 5
	MaxPendingPerProcess = 2
	PairingExpiry        = 10 * time.Minute
)

// maxRefusedShown is how many distinct processes a RefusedPairing names.
const maxRefusedShown = 3

// pairingState serialises pairing requests (the check that a name is
// free and the write that takes it are one step) and keeps the refused
// requests for the pop-up.
type pairingState struct {
	mu sync.Mutex
	// refused holds, by pending name, the requests refused because it
	// waited; an entry counts only while the request it refers to
	// (Created) is pending.
	refused map[string]*RefusedPairing
}

// RefusedPairing says that other requests asked to pair under the name
// of a pending request, and were refused because it waited.
type RefusedPairing struct {
	Name string `json:"name"`
	// Count is the refused requests from processes other than the one
	// that asked first (or from any, where the OS does not tell).
	Count int `json:"count"`
	// By lists the distinct processes that sent them, as the OS told
	// (Peer.String; "" when it did not), the first maxRefusedShown.
	By   []string  `json:"by"`
	Last time.Time `json:"last"`
	// created is the Created of the pending request it refers to.
	created time.Time
}

// RefusedPairingsResponse lists the refused requests by pending name.
type RefusedPairingsResponse struct {
	Response
	Refused []RefusedPairing `json:"refused"`
}

// RefusedPairings returns, for the pairing requests that still wait,
// the requests under the same name that were refused, so that the
// pairing pop-up can say that another process asked for that name too.
// They are kept in memory: a restart forgets them (the audit log keeps
// the first from each process). Operator only.
func (s *Service) RefusedPairings(ctx context.Context, req Request) RefusedPairingsResponse {
	return s.reg.RefusedPairings(ctx, req)
}

// RefusedPairings is Service.RefusedPairings's work.
func (s *registrar) RefusedPairings(ctx context.Context, req Request) RefusedPairingsResponse {
	if r, ok := s.operatorGate(req); !ok {
		return RefusedPairingsResponse{Response: r}
	}
	s.pairing.mu.Lock()
	defer s.pairing.mu.Unlock()
	live, err := s.livePairings()
	if err != nil {
		return RefusedPairingsResponse{Response: s.fail("pairing", err)}
	}
	s.pairing.forgetDecided(live)
	out := []RefusedPairing{}
	for _, a := range live {
		if r := s.pairing.refused[a.Name]; r != nil {
			c := *r
			c.By = slices.Clone(r.By)
			out = append(out, c)
		}
	}
	return RefusedPairingsResponse{Response: Response{Status: StatusOK}, Refused: out}
}

// forgetDecided drops the refused requests of names that no longer wait
// (decided, expired or asked anew); p.mu must be held.
func (p *pairingState) forgetDecided(live []vault.Agent) {
	for name, r := range p.refused {
		if !slices.ContainsFunc(live, func(a vault.Agent) bool { return a.Name == name && a.Created.Equal(r.created) }) {
			delete(p.refused, name)
		}
	}
}

// askerOf is the key (Peer.key) of the process that sent a pending
// agent's request, from its Note; "" when the OS did not tell.
func askerOf(a vault.Agent) string {
	if a.Status != vault.AgentPending {
		return ""
	}
	return keyOfString(AskedBy(a))
}

// pairingExpired reports whether a is a pairing request past its expiry.
func pairingExpired(a vault.Agent, now time.Time) bool {
	return a.Status == vault.AgentPending && now.Sub(a.Created) > PairingExpiry
}

// livePairings removes the expired pairing requests and returns the
// agents that still wait, in name order.
func (s *registrar) livePairings() ([]vault.Agent, error) {
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
		s.agents.Drop()
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
	return s.reg.PendingPairings(ctx, req)
}

// PendingPairings is Service.PendingPairings's work.
func (s *registrar) PendingPairings(ctx context.Context, req Request) AgentsResponse {
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
// A name already registered and not pending is refused; so is a name
// pending already (see the limits above: the request that waits keeps
// it), and a request beyond the limits (unavailable).
func (s *Service) RequestPairing(ctx context.Context, name string) PairResponse {
	return s.reg.RequestPairing(ctx, name)
}

// RequestPairing is Service.RequestPairing's work.
func (s *registrar) RequestPairing(ctx context.Context, name string) PairResponse {
	if !agents.ValidName.MatchString(name) || name == vault.AgentOperator {
		return PairResponse{Response: Response{StatusInvalid, "an agent name is 1 to 64 letters, digits, dots, dashes or underscores"}}
	}
	peer, known := s.Peer(ctx)
	asker := ""
	if known {
		asker = peer.key()
	}
	s.pairing.mu.Lock()
	defer s.pairing.mu.Unlock()
	live, lerr := s.livePairings()
	if lerr != nil {
		return PairResponse{Response: s.fail("pair", lerr)}
	}
	existing, err := s.v.GetAgent(name)
	if err == nil && existing.Status != vault.AgentPending {
		return PairResponse{Response: Response{StatusConflict, fmt.Sprintf("an agent named %q is already registered", name)}}
	}
	s.pairing.forgetDecided(live)
	if i := slices.IndexFunc(live, func(a vault.Agent) bool { return a.Name == name }); i >= 0 {
		return s.refusePairing(live[i], peer, known, asker)
	}
	limit := MaxPendingPerProcess
	if asker == "" {
		limit = MaxPendingPairings // the OS does not tell: every asker is one
	}
	if mine := len(slices.DeleteFunc(slices.Clone(live), func(a vault.Agent) bool { return askerOf(a) != asker })); mine >= limit {
		return PairResponse{Response: Response{StatusUnavailable, fmt.Sprintf("%d pairing requests from this process already wait for the user; ask again when the user has answered one or it has expired (after %v)", mine, PairingExpiry)}}
	}
	if len(live) >= MaxPendingPairings {
		return PairResponse{Response: Response{StatusUnavailable, fmt.Sprintf("%d pairing requests already wait for the user; ask again in a few minutes", len(live))}}
	}
	secret, hash, err := agents.NewToken()
	if err != nil {
		return PairResponse{Response: s.fail("pair", err)}
	}
	a := vault.Agent{Name: name, Status: vault.AgentPending, PairHash: hash, Fields: DefaultAgentFields,
		Read: []Partition{vault.Public, vault.Internal}, Trust: vault.TrustStandard, Created: s.now().UTC()}
	reason := "pairing requested by " + name
	if known && peer.String() != "" {
		a.Note = askedBy + peer.String()
		reason += ", " + peer.label()
	}
	e := vault.AuditEntry{Action: vault.ActionAgent, Agent: name, Result: vault.ResultOK, Reason: reason}
	defer s.agents.Drop()
	if err := s.v.PutAgent(a, e); err != nil {
		return PairResponse{Response: s.fail("pair", err)}
	}
	return PairResponse{Response: Response{StatusPending, fmt.Sprintf("waiting for the user to approve %q (engram agent approve %s)", name, name)}, Secret: secret}
}

// refusePairing answers a request under the name of pending request a,
// which keeps it. A request from another process than a's (or where the
// OS does not tell) is counted for the pop-up, and audited the first time
// that process asks for the name. s.pairing.mu must be held.
func (s *registrar) refusePairing(a vault.Agent, peer Peer, known bool, asker string) PairResponse {
	expires := a.Created.Add(PairingExpiry).UTC().Format(time.RFC3339)
	msg := fmt.Sprintf("a request for %q already waits for the user; it expires at %s: poll with the pairing secret that request was given, or ask again after it expires", a.Name, expires)
	if asker != "" && asker == askerOf(a) {
		return PairResponse{Response: Response{StatusConflict, msg}}
	}
	if s.pairing.refused == nil {
		s.pairing.refused = map[string]*RefusedPairing{}
	}
	r := s.pairing.refused[a.Name]
	if r == nil {
		r = &RefusedPairing{Name: a.Name, created: a.Created}
		s.pairing.refused[a.Name] = r
	}
	by := ""
	if known {
		by = peer.String()
	}
	r.Count++
	r.Last = s.now().UTC()
	if !slices.Contains(r.By, by) && len(r.By) < maxRefusedShown {
		r.By = append(r.By, by)
		label := "a process the OS did not name"
		if known {
			label = peer.label()
		}
		e := vault.AuditEntry{Action: vault.ActionAgent, Agent: a.Name, Result: vault.ResultDenied,
			Reason: "pairing request refused: a request under this name already waits; sent by " + label}
		if err := s.v.Audit(e); err != nil {
			s.log.Error("audit", "err", err)
		}
	}
	return PairResponse{Response: Response{StatusConflict, msg}}
}

// DecidePairing approves or denies a pending agent. On approval its token
// is created and held for the agent's next poll. Operator only.
func (s *Service) DecidePairing(ctx context.Context, req Request, name string, approve bool) AgentResponse {
	return s.reg.DecidePairing(ctx, req, name, approve)
}

// DecidePairing is Service.DecidePairing's work.
func (s *registrar) DecidePairing(ctx context.Context, req Request, name string, approve bool) AgentResponse {
	if r, ok := s.operatorGate(req); !ok {
		return AgentResponse{Response: r}
	}
	// A decision and a pairing request under the same name are ordered:
	// a request never overwrites the registration of a decided one.
	s.pairing.mu.Lock()
	defer s.pairing.mu.Unlock()
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
		t, hash, err := agents.NewToken()
		if err != nil {
			return "", err
		}
		a.Status, a.TokenHash = vault.AgentActive, hash
		token = t
		return "", nil
	})
	if r.OK() && approve {
		s.agents.Hold(name, token)
	}
	return r
}

// PollPairing is the agent's side: pending until the user decides, then
// the token (once), or unauthorized when denied or the secret is wrong.
func (s *Service) PollPairing(ctx context.Context, name, secret string) PairResponse {
	return s.reg.PollPairing(ctx, name, secret)
}

// PollPairing is Service.PollPairing's work.
func (s *registrar) PollPairing(ctx context.Context, name, secret string) PairResponse {
	a, err := s.v.GetAgent(name)
	if err != nil || a.PairHash == "" || subtle.ConstantTimeCompare([]byte(a.PairHash), []byte(agents.HashToken(secret))) != 1 {
		return PairResponse{Response: s.authFailed(ctx, agents.FailPairPoll)}
	}
	if pairingExpired(a, s.now()) {
		_, _ = s.livePairings() // removes it
		return PairResponse{Response: Response{StatusUnauthorized, "the pairing request expired before the user answered; ask again"}}
	}
	switch a.Status {
	case vault.AgentPending:
		return PairResponse{Response: Response{StatusPending, "still waiting for the user's approval"}}
	case vault.AgentActive:
		if token, ok := s.agents.Collect(name); ok {
			return PairResponse{Response: Response{Status: StatusOK, Message: "approved: keep this token; it is not shown again"}, Token: token}
		}
		return PairResponse{Response: Response{StatusConflict, "the token was already collected"}}
	}
	return PairResponse{Response: Response{StatusUnauthorized, "the user denied this agent"}}
}
