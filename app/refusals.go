package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/vault"
)

// Refused writes are counted per session and per agent. Three in one
// session disable that session's writes; MaxAgentRefusals within
// RefusalWindow, over any number of sessions, pause the agent in its
// registration, so that opening a new session does not reset the count.
// The user resumes the agent ('engram agent resume NAME', or Agents in the
// app). Every refusal counts: rejected and hostile writes, fields the
// agent may not write, over-size or malformed writes, and the user's
// confirmation asked for.
const (
	MaxAgentRefusals = 5
	RefusalWindow    = 10 * time.Minute
)

// settle answers a write that admit did not admit, and does its
// bookkeeping: the audit entry (never the text: a keyed fingerprint), a
// forensic copy of a hostile write, and, for agents, the refusal count.
// An agent past MaxAgentRefusals is paused and told so.
func (s *writer) settle(req Request, a admission) Response {
	agent := !req.Caller.Operator
	e := vault.AuditEntry{Action: vault.ActionReject, Field: a.Memory.Field, Result: vault.ResultRejected, Reason: a.Why, Size: len(a.Result.Redacted)}
	if a.Memory.Content != "" {
		e.ContentHash = s.fingerprint(a.Memory.Content)
	}
	st := answerOf(a.Outcome)
	switch a.Outcome {
	case policy.Refused:
		if a.Hostile && agent {
			s.keepHostile(req, a, e.ContentHash)
		}
	case policy.Invalid, policy.Unauthorized:
		if a.Outcome == policy.Unauthorized {
			e.Result = vault.ResultDenied
		}
		if !agent {
			return Response{st, a.Why}
		}
	case policy.AskUser:
		if !agent {
			return Response{st, a.Why}
		}
		e.Reason = "confirmation required: " + a.Why
	}
	s.audit(req, e)
	if !agent {
		return Response{st, a.Why}
	}
	s.countSession(req.Caller, a.Why)
	if n := s.refusals.Add(req.Caller.Agent, s.now()); n >= MaxAgentRefusals {
		return s.pauseForRefusals(req, n, Response{st, a.Why})
	}
	return Response{st, a.Why}
}

// countSession records a refusal in the caller's session.
func (s *writer) countSession(c Caller, why string) {
	s.sessions.update(c, func(st *session) { st.rejected = append(st.rejected, why) })
}

// pauseForRefusals pauses the caller's agent after n refusals within the
// window and answers r with the pause added.
func (s *writer) pauseForRefusals(req Request, n int, r Response) Response {
	why := fmt.Sprintf("Engram paused agent %s after %d refused writes within %v", req.Caller.Agent, n, RefusalWindow)
	op := Request{Caller: Caller{Operator: true}, Authorized: true, Reason: why}
	got := s.reg.changeAgent(op, req.Caller.Agent, "paused by Engram after refused writes", func(a *vault.Agent) (string, error) {
		if a.Status != vault.AgentActive {
			return "", errors.New("the agent is not active")
		}
		a.Status, a.Note = vault.AgentPaused, fmt.Sprintf("paused by Engram after %d refused writes within %v", n, RefusalWindow)
		return "", nil
	})
	if !got.OK() {
		s.log.Error("pause agent after refusals", "agent", req.Caller.Agent, "status", got.Status, "err", got.Message)
		return r
	}
	s.refusals.Reset(req.Caller.Agent)
	return Response{StatusPaused, r.Message + ". " + why + ": " + untilResumed(req.Caller.Agent)}
}

// untilResumed says how long a paused agent's requests are refused.
func untilResumed(agent string) string {
	return "its requests are refused until the user resumes it ('engram agent resume " + agent + "', or Agents in the app)"
}

// pausedMessage answers a request of a paused agent: who paused it, and
// when Engram did (the registration's Note says so), for what and how the
// user resumes it.
func pausedMessage(a vault.Agent) string {
	if a.Note == "" {
		return "this agent is paused by the user"
	}
	return "Engram paused this agent for its refused writes (" + a.Note + "): " + untilResumed(a.Name)
}
