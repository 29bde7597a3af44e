package app

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
	"github.com/google/uuid"
)

// MaxSessionRejections is how many rejected writes disable a session's writes.
const MaxSessionRejections = 3

// Store passes a new memory through the write guard and stores it, queues
// it for review, or refuses it:
//
//   - an agent may write only its granted fields, up to each field's size
//     limit, and never as another agent (unauthorized, audited);
//   - secrets are redacted before anything is stored (with fail_on_secret:
//     rejected); a possible secret needs confirmation;
//   - personal data puts the memory in the sensitive partition;
//   - credential-like statements are refused as semantic memory, and
//     transcripts are kept episodic only;
//   - an agent's semantic memory from a source other than the user needs
//     the user's confirmation;
//   - hostile content is rejected (a sealed forensic copy is kept for
//     review); suspicious content and content fetched from the web go to
//     the quarantine queue.
//
// Three rejected writes in one agent session disable that session's writes.
func (s *Service) Store(ctx context.Context, req Request, in StoreInput) MemoryResponse {
	return s.w.Store(ctx, req, in)
}

// Store is Service.Store's work.
func (s *writer) Store(ctx context.Context, req Request, in StoreInput) MemoryResponse {
	if r, ok := s.gate(req); !ok {
		return MemoryResponse{Response: r}
	}
	if r := ValidateStoreInput(in); !r.OK() {
		return MemoryResponse{Response: r}
	}
	if in.Tier == TierWorking {
		return s.storeWorking(req, in)
	}
	agent := !req.Caller.Operator
	var warnings []string
	tags, r := s.checkTags(req, in.Tags)
	if !r.OK() {
		return MemoryResponse{Response: r}
	}
	if agent {
		if in.Source.AgentID != "" && in.Source.AgentID != req.Caller.Agent {
			// The writer is the token's agent, whatever the body claims: the
			// claim is ignored, and recorded as an impersonation attempt.
			s.audit(req, vault.AuditEntry{Action: vault.ActionReject, Field: in.Field, Result: vault.ResultDenied, Reason: "impersonation attempt: the request claimed to come from " + quoteName(in.Source.AgentID)})
			warnings = append(warnings, "the source agent in the request was ignored: memories are written as the authenticated agent")
		}
		if why := s.sessionDisabled(req.Caller); why != "" {
			return MemoryResponse{Response: Response{StatusRejected, why}}
		}
	}
	pm := vault.Memory{
		Content: in.Content, Kind: orDefault(in.Kind, vault.Fact), Field: orDefault(in.Field, vault.Learnings),
		Tier: orDefault(in.Tier, vault.Episodic), Partition: in.Partition,
		Tags: tags, Source: in.Source, Pinned: in.Pinned,
	}
	exp, r := s.expiryFor(req, pm, in.Expires)
	if !r.OK() {
		return MemoryResponse{Response: r}
	}
	pm.Expires = exp
	a := s.admit(req, policy.Proposal{Confirmed: in.Confirmed, Memory: pm})
	warnings = append(warnings, a.Warnings...)
	switch a.Outcome {
	case policy.Admitted:
	case policy.Queued:
		return s.enqueue(ctx, req, a, warnings)
	default:
		return MemoryResponse{Response: s.settle(req, a)}
	}
	m, res := a.Memory, a.Result
	if a.Memory.Source.Reported != "" {
		warnings = append(warnings, fmt.Sprintf("the source %q is kept as reported by this agent: agents write with their own trust", a.Memory.Source.Reported))
	}
	var facts []vault.AuditEntry // committed with the memory
	if a.SecretTypes != "" {
		facts = append(facts, vault.AuditEntry{Action: vault.ActionSecretRedacted, Agent: req.Caller.Name(), Session: req.Caller.Session,
			Field: m.Field, ContentHash: s.fingerprint(in.Content), Result: vault.ResultOK, Reason: a.SecretTypes, Redactions: policy.Redactions(a.Result.Findings)})
	}
	if agent {
		if joined, text, earlier, ok := s.splitOrder(req, m.Content, findingTypes(a.Result.Findings), guard.Input{Source: string(m.Source.Type), Field: string(m.Field)}); ok {
			a.Result.Verdict, a.Result.Risk, a.Result.Threat = guard.Suspicious, max(res.Risk, joined.Risk), max(res.Threat, joined.Threat)
			a.Result.Reasons = append(a.Result.Reasons, joined.Reasons...)
			a.QueueReason = splitReason(earlier.id, joined)
			// The earlier write may be sensitive: its copy is sealed.
			a.joined, a.joinedFindings, a.SealQueue, a.partner = text, joined.Findings, true, &earlier
			s.auditAll(facts)
			return s.enqueue(ctx, req, a, warnings)
		}
		if h, ok := s.splitSecret(req, m.Content); ok {
			m.Content = h.redact(m.Content)
			a.Memory.Content = m.Content
			warnings = append(warnings, fmt.Sprintf("with an earlier write of this agent (memory %s) this forms a secret: its parts are redacted", h.earlier.id))
			facts = append(facts, vault.AuditEntry{Action: vault.ActionSecretRedacted, Agent: req.Caller.Name(), Session: req.Caller.Session,
				Field: m.Field, ContentHash: s.fingerprint(in.Content), Result: vault.ResultOK, Reason: h.typ + " split across two writes"})
			s.redactEarlier(ctx, req, h)
		}
	}
	near := s.neighbours(ctx, req.Caller, &m)
	for _, n := range near {
		if n.duplicate() {
			s.auditAll(facts)
			r := s.duplicateOf(ctx, req, n.doc.ID, &m, warnings)
			if r.OK() {
				s.remember(req, n.doc.ID, m.Content, 0, findingTypes(a.Result.Findings))
			}
			return r
		}
	}
	old, why, r := s.conflictWith(ctx, req, &m, in.Supersedes, near)
	if !r.OK() {
		return MemoryResponse{Response: r}
	}
	if old == nil {
		warnings = append(warnings, mayContradict(near)...)
	}
	if old != nil && s.conflicts == ResolveAsk {
		a.Memory, a.QueueReason = m, fmt.Sprintf("conflicts with memory %s (%s): the user decides", old.ID, why)
		s.auditAll(facts)
		return s.enqueue(ctx, req, a, warnings)
	}
	actor := vault.Actor{Agent: req.Caller.Name(), Session: req.Caller.Session, Reason: req.Reason, Score: 1 - res.Risk, Audit: facts}
	got, err := s.v.Add(m, actor)
	if err != nil {
		return MemoryResponse{Response: s.fail("store", err)}
	}
	s.idx.Put(&got)
	s.remember(req, got.ID, got.Content, got.Version, findingTypes(a.Result.Findings))
	if old == nil {
		return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &got, Warnings: warnings}
	}
	return s.resolveConflict(ctx, req, old, &got, why, warnings)
}

// resolveConflict archives the loser of a conflict between an earlier
// memory and the one just stored, with a pointer to the winner.
func (s *writer) resolveConflict(ctx context.Context, req Request, old, m *vault.Memory, why string, warnings []string) MemoryResponse {
	winner, loser := m, old
	if !s.newerWins(old, m) {
		winner, loser = old, m
	}
	note := fmt.Sprintf("conflicts with memory %s (%s); resolved by %s", winner.ID, why, s.conflicts)
	a := vault.Actor{Agent: req.Caller.Name(), Session: req.Caller.Session, Reason: note}
	archived, err := s.v.Archive(loser.ID, note, winner.ID, a)
	if err != nil {
		return MemoryResponse{Response: s.fail("resolve conflict", err)}
	}
	s.idx.Put(&archived)
	if loser == m {
		return MemoryResponse{Response: Response{StatusConflict, fmt.Sprintf("this memory conflicts with memory %s, which wins (%s, resolved by %s); it was kept in the archive with a pointer to it", old.ID, why, s.conflicts)}, Memory: &archived, Warnings: warnings}
	}
	warnings = append(warnings, fmt.Sprintf("supersedes memory %s (%s); it was archived with a pointer to this one", old.ID, why))
	return MemoryResponse{Response: Response{Status: StatusOK}, Memory: m, Warnings: warnings}
}

// quoteName quotes an untrusted agent name for the audit log, cut short.
func quoteName(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	return strconv.Quote(s)
}

// auditAll appends entries already made out for their request.
func (s *writer) auditAll(es []vault.AuditEntry) {
	for _, e := range es {
		if err := s.v.Audit(e); err != nil {
			s.log.Error("audit", "err", err)
		}
	}
}

// ForeignSession records that req named an MCP session that another
// agent opened (session): the request was refused before it reached the
// service, and the user sees the attempt in the audit log, as an
// impersonation attempt in a write's source is.
func (s *Service) ForeignSession(req Request, session string) {
	s.w.ForeignSession(req, session)
}

// ForeignSession is Service.ForeignSession's work.
func (s *writer) ForeignSession(req Request, session string) {
	if req.Caller.Operator {
		return
	}
	if s.checkSession(session) != "" {
		session = "" // not an id Engram issued: not worth keeping
	}
	req.Caller.Session = session
	s.audit(req, vault.AuditEntry{Action: vault.ActionReject, Result: vault.ResultDenied, Reason: "a request in an MCP session that another agent opened"})
}

func (s *writer) sessionDisabled(c Caller) string {
	why := ""
	s.sessions.read(c, func(st *session) {
		if len(st.rejected) >= MaxSessionRejections {
			why = fmt.Sprintf("writes are disabled for this session after %d rejected writes", len(st.rejected))
		}
	})
	return why
}

// SessionSummaryResponse is the end-of-session report for an agent.
type SessionSummaryResponse struct {
	Response
	Rejected []string `json:"rejected"`
	Summary  string   `json:"summary,omitempty"`
}

// SessionSummary reports the rejected writes of the caller's session, for
// the agent and the desktop app, without ending it.
func (s *Service) SessionSummary(ctx context.Context, req Request) SessionSummaryResponse {
	return s.w.SessionSummary(ctx, req)
}

// SessionSummary is Service.SessionSummary's work.
func (s *writer) SessionSummary(ctx context.Context, req Request) SessionSummaryResponse {
	var rejected []string
	s.sessions.read(req.Caller, func(st *session) { rejected = slices.Clone(st.rejected) })
	r := SessionSummaryResponse{Response: Response{Status: StatusOK}, Rejected: rejected}
	if n := len(rejected); n > 0 {
		noun := "writes were"
		if n == 1 {
			noun = "write was"
		}
		r.Summary = fmt.Sprintf("[Engram] %d memory %s rejected this session: %s", n, noun, strings.Join(rejected, "; "))
	}
	return r
}

// EndSession returns the session summary and forgets the session's state
// (its working memory and rejection count).
func (s *Service) EndSession(ctx context.Context, req Request) SessionSummaryResponse {
	return s.w.EndSession(ctx, req)
}

// EndSession is Service.EndSession's work.
func (s *writer) EndSession(ctx context.Context, req Request) SessionSummaryResponse {
	r := s.SessionSummary(ctx, req)
	s.sessions.end(req.Caller)
	return r
}

// enqueue puts a write that admit queued in the review queue: suspicious,
// from the web, or waiting for the user's confirmation.
func (s *writer) enqueue(ctx context.Context, req Request, a admission, warnings []string) MemoryResponse {
	return s.enqueueWith(ctx, req, a, warnings, nil)
}

// enqueueWith is enqueue with the review of the live memories of the
// write's field given (an import keeps one over its run), or nil to list
// them.
func (s *writer) enqueueWith(ctx context.Context, req Request, a admission, warnings []string, review *quarantine.Review) MemoryResponse {
	m, res, reason := a.Memory, a.Result, a.QueueReason
	m.Trust = vault.TrustUntrusted
	it := &quarantine.Item{
		ID: uuid.NewString(), State: quarantine.Pending, Memory: m, Agent: req.Caller.Name(), Session: req.Caller.Session,
		Reason: reason, Reasons: res.Reasons, Risk: res.Risk, Threat: res.Threat, Findings: queueFindings(a.Screened, m.Content, res.Findings), Created: s.now().UTC(),
		Joined: a.joined, JoinedFindings: queueFindings(a.joined, a.joined, a.joinedFindings),
	}
	if a.partner != nil {
		// Held before the item is written, so that no recall serves the
		// first half once the second waits; released if the item is not.
		it.Partner = s.holdPartner(ctx, req, *a.partner)
	}
	if review == nil {
		existing, _, _ := s.v.List(vault.ListFilter{Field: m.Field, OnDamaged: s.damaged.Skip})
		review = &quarantine.Review{Existing: existing}
	}
	it.Proposal, it.Guardian = quarantine.Guardian(it, *review)
	data, err := it.Encode()
	if err == nil {
		e := vault.AuditEntry{Action: vault.ActionQuarantine, Agent: req.Caller.Name(), Session: req.Caller.Session, Field: m.Field, MemoryID: it.ID, ContentHash: s.fingerprint(m.Content), Result: vault.ResultQuarantined, Reason: reason, Size: len(m.Content)}
		err = s.v.QueuePut(it.ID, data, it.Sensitive() || a.SealQueue, e)
	}
	if err != nil {
		s.releasePartner(ctx, req, it, "the review item could not be written")
		return MemoryResponse{Response: s.fail("quarantine", err)}
	}
	return MemoryResponse{Response: Response{StatusQuarantined, reason + ": the user will review it before it is used"}, QueueID: it.ID, Warnings: warnings}
}

// keepHostile stores a sealed forensic copy of a hostile write for the
// user; if the vault is locked only the audit entry remains.
func (s *writer) keepHostile(req Request, a admission, hash string) {
	m, res := a.Memory, a.Result
	exp := s.now().UTC().Add(quarantine.HostileRetention)
	it := &quarantine.Item{
		ID: uuid.NewString(), State: quarantine.Hostile, Memory: m, Agent: req.Caller.Name(), Session: req.Caller.Session,
		Reason: "hostile content", Reasons: res.Reasons, Risk: res.Risk, Threat: res.Threat, Findings: queueFindings(a.Screened, m.Content, res.Findings),
		Proposal: quarantine.ProposeHostile, Created: s.now().UTC(), Expires: &exp,
	}
	data, err := it.Encode()
	if err != nil {
		return
	}
	e := vault.AuditEntry{Action: vault.ActionQuarantine, Agent: req.Caller.Name(), Session: req.Caller.Session, Field: m.Field, MemoryID: it.ID, ContentHash: hash, Result: vault.ResultRejected, Reason: "hostile: forensic copy"}
	if err := s.v.QueuePut(it.ID, data, true, e); err != nil {
		s.log.Warn("hostile copy not kept", "err", err)
	}
}
