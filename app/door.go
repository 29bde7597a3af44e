package app

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/engram-app/engram/app/agents"
	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/vault"
)

// door holds the checks every request passes, whichever part of the
// service answers it: the service is available, the request authorized
// and its caller named, its session id valid, an agent's reason screened
// (gate); the caller may touch this memory, a refusal audited (check,
// deny); an error becomes a response (fail). It holds only what those
// checks need. Service owns one and embeds it; the other parts of the
// service (the lifecycle) reach it by pointer, not through the Service.
// Its methods are safe for concurrent use.
type door struct {
	v   *vault.Vault
	log *slog.Logger
	// pol is the write policy: it screens an agent's reason and a
	// session id.
	pol *policy.Policy
	// agents caches the agent registry by token hash (agents.go); the
	// read rule consults it (canRead).
	agents *agents.Registry
	// sessionsSeen caches checkSession's answers; sessionCount counts them.
	sessionsSeen sync.Map
	sessionCount atomic.Int64
}

// gate answers the checks every call shares: is the service available and
// is the request authorized.
func (d *door) gate(req Request) (Response, bool) {
	if !req.Authorized {
		return Response{StatusUnauthorized, "the request is not authorized"}, false
	}
	if !req.Caller.Operator && req.Caller.Agent == "" {
		return Response{StatusUnauthorized, "the request names no caller"}, false
	}
	if why := d.checkSession(req.Caller.Session); why != "" {
		return Response{StatusInvalid, why}, false
	}
	if req.Reason != "" && !req.Caller.Operator {
		// An agent's reason goes into the audit log and the provenance,
		// so any reason a transport passes is screened like evidence. The
		// loopback API passes only a label for the Engram-Reason header
		// (server.ReasonGiven), never the agent's words.
		if utf8.RuneCountInString(req.Reason) > maxReason {
			return Response{StatusInvalid, fmt.Sprintf("invalid: the reason (Engram-Reason) is longer than %d characters", maxReason)}, false
		}
		if bad := d.pol.Clean(req.Reason, vault.SourceAIInference, true); bad != "" {
			return Response{StatusInvalid, "invalid: the reason (Engram-Reason) may not hold " + bad}, false
		}
	}
	return Response{}, true
}

// maxReason bounds an agent's reason for a request, in characters.
const maxReason = 200

// operatorGate is gate for what only the user may do: an agent's request
// is refused and audited.
func (d *door) operatorGate(req Request) (Response, bool) {
	if r, ok := d.gate(req); !ok {
		return r, false
	}
	if !req.Caller.Operator {
		return d.deny(req, vault.ActionRead, "", "", "only the user can do this"), false
	}
	return Response{}, true
}

// checkSession refuses a session id (the Engram-Session header) outside
// the identifier grammar or holding a secret or personal data, before it
// reaches any audit entry or provenance. Answers are cached: an agent
// sends the same session with every request.
func (d *door) checkSession(session string) string {
	if session == "" {
		return ""
	}
	if why, ok := d.sessionsSeen.Load(session); ok {
		return why.(string)
	}
	why := d.pol.CheckIDs(vault.Source{}, session)
	if n := d.sessionCount.Add(1); n > maxSessionsSeen {
		d.sessionsSeen.Clear()
		d.sessionCount.Store(0)
	}
	d.sessionsSeen.Store(session, why)
	return why
}

// maxSessionsSeen bounds checkSession's cache.
const maxSessionsSeen = 4096

// fail turns err into a response, logging internal errors that the
// response message hides.
func (d *door) fail(op string, err error) Response {
	r := statusOf(err)
	if r.Status == StatusUnavailable || r.Status == StatusDamaged {
		d.log.Error(op, "err", err)
	}
	return r
}

// deny audits a refused request and answers unauthorized.
func (d *door) deny(req Request, action vault.Action, id string, field vault.Field, why string) Response {
	if err := d.v.Audit(vault.AuditEntry{Action: action, Agent: req.Caller.Name(), Session: req.Caller.Session, MemoryID: id, Field: field, Result: vault.ResultDenied, Reason: why}); err != nil {
		d.log.Error("audit denial", "err", err)
	}
	return Response{StatusUnauthorized, why}
}

// audit writes e as the request's caller's, logging a failure.
func (d *door) audit(req Request, e vault.AuditEntry) {
	e.Agent, e.Session = req.Caller.Name(), req.Caller.Session
	if err := d.v.Audit(e); err != nil {
		d.log.Error("audit", "err", err)
	}
}

// canRead is the read rule (policy.CanRead) with the agent registry.
func (d *door) canRead(c Caller, info vault.Info) bool {
	return policy.CanRead(c, info, func(name string) (vault.Agent, bool) { return d.agents.ByName(name) })
}

// reader is canRead for one caller over many memories (a search tests
// every candidate): it reads one snapshot of the agent registry, without
// taking the registry's lock per memory. It is safe for concurrent use.
func (d *door) reader(c Caller) func(vault.Info) bool {
	var once sync.Once
	var agents map[string]vault.Agent
	lookup := func(name string) (vault.Agent, bool) {
		once.Do(func() { agents = d.agents.All() })
		a, ok := agents[name]
		return a, ok
	}
	return func(info vault.Info) bool { return policy.CanRead(c, info, lookup) }
}

// check authorizes operation action on memory id before it runs,
// auditing a refusal as that action (a refused read as memory:read).
// Sensitive memories refused to an agent are audited as L3 access.
func (d *door) check(req Request, id string, action vault.Action, allowed func(Caller, vault.Info) bool) Response {
	if req.Caller.Operator {
		return Response{Status: StatusOK}
	}
	info, err := d.v.Stat(id)
	if err != nil && !(errors.Is(err, vault.ErrLocked) && info.Sealed) {
		return d.fail("stat", err)
	}
	if !allowed(req.Caller, info) {
		if info.Sealed {
			action = vault.ActionL3Access
		}
		return d.deny(req, action, id, info.Field, "this memory is not available to the caller")
	}
	return Response{Status: StatusOK}
}

// get is Get: a read needs only the door's checks and the vault.
func (d *door) get(req Request, id string) MemoryResponse {
	if r, ok := d.gate(req); !ok {
		return MemoryResponse{Response: r}
	}
	if r := d.check(req, id, vault.ActionRead, d.canRead); !r.OK() {
		return MemoryResponse{Response: r}
	}
	m, err := d.v.Get(id, req.actor())
	if err != nil {
		return MemoryResponse{Response: d.fail("get", err)}
	}
	return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &m}
}

// fingerprint is the audit's fingerprint of a text that was refused,
// queued or redacted: keyed, so that a short secret or personal detail
// cannot be confirmed by guessing it.
// While the vault is locked there is no key: the entry then holds none.
func (d *door) fingerprint(text string) string {
	fp, _ := d.v.Fingerprint(text)
	return fp
}
