package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/engram-app/engram/app/agents"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// Agent is a registered agent as the service shows it (never its token).
type Agent = vault.Agent

// AgentSpec describes a new agent: the body of POST /v1/admin/agents
// (engram agent add, engram connect) as well.
type AgentSpec struct {
	Name    string      `json:"name"`
	Fields  []Field     `json:"fields,omitempty"` // writable fields; nil means DefaultAgentFields
	Read    []Partition `json:"read,omitempty"`   // readable partitions; nil means public and internal
	Group   string      `json:"group,omitempty"`
	Product string      `json:"product,omitempty"`
	// MayConfirm lets the agent's "the user confirmed" count as the
	// user's confirmation (off by default).
	MayConfirm bool `json:"may_confirm,omitempty"`
}

// AgentResponse returns an agent and, once, its token.
type AgentResponse struct {
	Response
	Agent *Agent `json:"agent,omitempty"`
	// Token is shown only when it is created (add, rotate).
	Token string `json:"token,omitempty"`
}

// AgentsResponse lists agents.
type AgentsResponse struct {
	Response
	Agents []Agent `json:"agents"`
}

// AddAgent registers an agent and returns its token, which is shown only
// this once. Operator only.
func (s *Service) AddAgent(ctx context.Context, req Request, spec AgentSpec) AgentResponse {
	return s.reg.AddAgent(ctx, req, spec)
}

// AddAgent is Service.AddAgent's work.
func (s *registrar) AddAgent(ctx context.Context, req Request, spec AgentSpec) AgentResponse {
	if r, ok := s.operatorGate(req); !ok {
		return AgentResponse{Response: r}
	}
	if !agents.ValidName.MatchString(spec.Name) || spec.Name == vault.AgentOperator {
		return AgentResponse{Response: Response{StatusInvalid, "an agent name is 1 to 64 letters, digits, dots, dashes or underscores, and not \"operator\""}}
	}
	if _, err := s.v.GetAgent(spec.Name); err == nil {
		return AgentResponse{Response: Response{StatusConflict, fmt.Sprintf("an agent named %q exists; rotate its token or revoke it", spec.Name)}}
	}
	fields, read, bad := agents.Grants(spec.Fields, spec.Read)
	if bad != "" {
		return AgentResponse{Response: Response{StatusInvalid, bad}}
	}
	token, hash, err := agents.NewToken()
	if err != nil {
		return AgentResponse{Response: s.fail("add agent", err)}
	}
	a := vault.Agent{Name: spec.Name, TokenHash: hash, Status: vault.AgentActive, Fields: fields, Read: read,
		Group: spec.Group, Product: spec.Product, Trust: vault.TrustStandard, MayConfirm: spec.MayConfirm, Created: s.now().UTC()}
	e := vault.AuditEntry{Action: vault.ActionAgent, Agent: req.Caller.Name(), Result: vault.ResultOK, Reason: "add " + spec.Name}
	defer s.agents.Drop()
	if err := s.v.PutAgent(a, e); err != nil {
		return AgentResponse{Response: s.fail("add agent", err)}
	}
	a.TokenHash = ""
	return AgentResponse{Response: Response{Status: StatusOK}, Agent: &a, Token: token}
}

// Agents lists the registered agents. Operator only.
func (s *Service) Agents(ctx context.Context, req Request) AgentsResponse {
	return s.reg.Agents(ctx, req)
}

// Agents is Service.Agents's work.
func (s *registrar) Agents(ctx context.Context, req Request) AgentsResponse {
	if r, ok := s.operatorGate(req); !ok {
		return AgentsResponse{Response: r}
	}
	if _, err := s.livePairings(); err != nil { // drops expired requests
		return AgentsResponse{Response: s.fail("agents", err)}
	}
	all, err := s.v.Agents()
	if err != nil {
		return AgentsResponse{Response: s.fail("agents", err)}
	}
	all = slices.DeleteFunc(all, func(a vault.Agent) bool { return pairingExpired(a, s.now()) })
	for i := range all {
		all[i].TokenHash, all[i].PairHash = "", ""
		if t := s.agents.LastSeen(all[i].Name); t.After(all[i].LastSeen) {
			all[i].LastSeen = t
		}
	}
	return AgentsResponse{Response: Response{Status: StatusOK}, Agents: all}
}

// SetAgentGrants replaces what an agent may write (fields) and read
// (partitions); nil means the defaults. Operator only.
func (s *Service) SetAgentGrants(ctx context.Context, req Request, name string, fields []Field, read []Partition) AgentResponse {
	return s.reg.SetAgentGrants(ctx, req, name, fields, read)
}

// SetAgentGrants is Service.SetAgentGrants's work.
func (s *registrar) SetAgentGrants(ctx context.Context, req Request, name string, fields []Field, read []Partition) AgentResponse {
	f, r, bad := agents.Grants(fields, read)
	return s.changeAgent(req, name, "grants", func(a *vault.Agent) (string, error) {
		if bad != "" {
			return "", errors.New(bad)
		}
		a.Fields, a.Read = f, r
		return "", nil
	})
}

// SetAgentStatus pauses, resumes or revokes an agent. Operator only.
func (s *Service) SetAgentStatus(ctx context.Context, req Request, name string, status vault.AgentStatus) AgentResponse {
	return s.reg.SetAgentStatus(ctx, req, name, status)
}

// SetAgentStatus is Service.SetAgentStatus's work.
func (s *registrar) SetAgentStatus(ctx context.Context, req Request, name string, status vault.AgentStatus) AgentResponse {
	return s.changeAgent(req, name, string(status), func(a *vault.Agent) (string, error) {
		if a.Status == vault.AgentRevoked {
			return "", errors.New("the agent is revoked; add it again")
		}
		a.Status = status
		a.Note = ""
		if status == vault.AgentRevoked {
			a.TokenHash = ""
		}
		if status == vault.AgentActive {
			s.refusals.Reset(name)
		}
		return "", nil
	})
}

// SetAgentMayConfirm grants or withdraws an agent's "may confirm": whether
// its "the user confirmed" counts as the user's confirmation. Operator only.
func (s *Service) SetAgentMayConfirm(ctx context.Context, req Request, name string, may bool) AgentResponse {
	return s.reg.SetAgentMayConfirm(ctx, req, name, may)
}

// SetAgentMayConfirm is Service.SetAgentMayConfirm's work.
func (s *registrar) SetAgentMayConfirm(ctx context.Context, req Request, name string, may bool) AgentResponse {
	return s.changeAgent(req, name, map[bool]string{true: "grant may-confirm", false: "withdraw may-confirm"}[may], func(a *vault.Agent) (string, error) {
		a.MayConfirm = may
		return "", nil
	})
}

// RotateToken gives an agent a new token; the old one stops working at once.
func (s *Service) RotateToken(ctx context.Context, req Request, name string) AgentResponse {
	return s.reg.RotateToken(ctx, req, name)
}

// RotateToken is Service.RotateToken's work.
func (s *registrar) RotateToken(ctx context.Context, req Request, name string) AgentResponse {
	return s.changeAgent(req, name, "rotate", func(a *vault.Agent) (string, error) {
		if a.Status == vault.AgentRevoked {
			return "", errors.New("the agent is revoked; add it again")
		}
		token, hash, err := agents.NewToken()
		a.TokenHash = hash
		return token, err
	})
}

func (s *registrar) changeAgent(req Request, name, what string, fn func(a *vault.Agent) (string, error)) AgentResponse {
	if r, ok := s.operatorGate(req); !ok {
		return AgentResponse{Response: r}
	}
	a, err := s.v.GetAgent(name)
	if errors.Is(err, vault.ErrNotFound) {
		return AgentResponse{Response: Response{StatusNotFound, fmt.Sprintf("no agent named %q", name)}}
	}
	if err != nil {
		return AgentResponse{Response: s.fail("agent", err)}
	}
	token, err := fn(&a)
	if err != nil {
		return AgentResponse{Response: Response{StatusInvalid, err.Error()}}
	}
	e := vault.AuditEntry{Action: vault.ActionAgent, Agent: req.Caller.Name(), Result: vault.ResultOK, Reason: what + " " + name}
	defer s.agents.Drop()
	if err := s.v.PutAgent(a, e); err != nil {
		return AgentResponse{Response: s.fail("agent", err)}
	}
	a.TokenHash, a.PairHash = "", ""
	return AgentResponse{Response: Response{Status: StatusOK}, Agent: &a, Token: token}
}

// Authenticate maps a bearer token to its agent's caller. The agent id of
// every API request comes from here, never from the request body. A
// missing, unknown or revoked token is unauthorized (counted, and audited
// in a summary without the token: see AuthFailPeriod); a paused agent
// gets StatusPaused.
func (s *Service) Authenticate(ctx context.Context, token, session string) (Caller, Response) {
	return s.reg.Authenticate(ctx, token, session)
}

// Authenticate is Service.Authenticate's work.
func (s *registrar) Authenticate(ctx context.Context, token, session string) (Caller, Response) {
	token = strings.TrimSpace(token)
	if !strings.HasPrefix(token, agents.TokenPrefix) {
		return Caller{}, s.authFailed(ctx, agents.FailMalformed)
	}
	// The map lookup is not constant-time, but it is keyed by the SHA-256
	// of the token: timing reveals nothing usable about a token.
	a, ok, err := s.agents.ByHash(agents.HashToken(token))
	if err != nil {
		return Caller{}, s.fail("authenticate", err)
	}
	if ok {
		switch a.Status {
		case vault.AgentActive:
			s.agents.Saw(a.Name, s.now().UTC())
			// An agent is here: build the guard's tables now, in the
			// background, so that its first write does not wait 0.2 s for
			// them. Not at start: an Engram no agent uses keeps 20 MB less.
			s.warmGuard.Do(func() { go guard.Prepare() })
			return Caller{Agent: a.Name, Session: session, Fields: a.Fields, Read: a.Read, Group: a.Group, Product: a.Product, Trust: a.Trust, MayConfirm: a.MayConfirm}, Response{Status: StatusOK}
		case vault.AgentPaused:
			return Caller{}, Response{StatusPaused, pausedMessage(a)}
		}
	}
	return Caller{}, s.authFailed(ctx, agents.FailUnknown)
}
