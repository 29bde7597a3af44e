package app

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// The write admission is the one decision on "may this text be written,
// where and how". Every route that writes text into the vault (store,
// update, merge, split, approve with an edit, working notes) describes
// the write as a proposal, calls admit, and keeps only its own routing:
// where the admitted memory goes and what it answers.
//
// Trust comes from the channel. The local user (CLI, desktop app) writes
// with the user's trust and confirms with --confirm or the app's Confirm.
// A request made with an agent's token is that agent's, whatever it says
// about itself: the source it names is kept as reported (Source.Reported)
// and never raises trust, confidence or the guard's judgement; its
// "confirmed" is a report that the user confirmed, which counts only when
// the user granted the agent "may confirm", and otherwise sends the write
// to the quarantine for the user to confirm there.

// outcome is what admit decided.
type outcome int

const (
	admitted outcome = iota // write m
	queued                  // put m in the quarantine for the user
	askUser                 // answer confirmation_required: the user must confirm
	refused                 // answer rejected; counted and audited
	invalid                 // answer invalid or unauthorized; counted and audited for agents
)

// proposal is one write as a route describes it.
type proposal struct {
	// m is the memory as proposed: content, kind, field, tier, the
	// requested partition (empty: none), tags and the source as the
	// request names it. For a change, the other fields come from existing.
	m vault.Memory
	// existing is the memory a change applies to; nil for a new memory.
	existing *vault.Memory
	// confirmed is the request's "the user confirmed this".
	confirmed bool
	// derived is set for a text cut from the existing memory's own
	// admitted text (a split): the confirmation it was admitted with
	// carries over.
	derived bool
	// userPartition is set when m.Partition is the user's own choice
	// rather than the writer's request (an import's --partition, given at
	// the user's command line): it may be below the automatic level.
	userPartition bool
}

// admission is admit's decision.
type admission struct {
	outcome outcome
	status  Status // of an askUser or invalid outcome
	why     string // the answer's message, and the audit's reason
	// m is the memory to write: redacted content, partition, tier, source,
	// trust and confidence set. For queued, the memory to queue.
	m        vault.Memory
	res      guard.Result
	warnings []string
	// hostile asks for a sealed forensic copy of the refused text.
	hostile bool
	// sealQueue seals the quarantine copy (a possible secret waits there).
	sealQueue bool
	// queueReason is why the write was queued.
	queueReason string
	// screened is the text the guard checked, before redaction: its
	// findings' offsets are into it.
	screened string
	// joined is the text screened for a write that completes an order
	// begun in an earlier one: the two joined (see splitOrder).
	joined string
	// joinedFindings are the guard's findings in joined.
	joinedFindings []guard.Finding
	// partner is the earlier write joined (see holdPartner).
	partner *recentWrite
	// secretTypes names the secrets redacted, for the audit ("" if none).
	secretTypes string
}

// MaxIDLen bounds identifiers in a write's metadata.
const MaxIDLen = 128

// validID reports whether s is a usable identifier (a session, a message,
// a tool): 1 to 128 characters of A-Z, a-z, 0-9 and . _ : / @ -.
func validID(s string) bool {
	if s == "" || len(s) > MaxIDLen {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == ':', c == '/', c == '@', c == '-':
		default:
			return false
		}
	}
	return true
}

// checkIDs refuses metadata identifiers outside the grammar, or holding
// a secret or personal data (a token or an SSN fits the grammar): they are
// stored as they are and returned by history, so they must not be a way
// to store text the guard never saw.
func (s *Service) checkIDs(src vault.Source, session string) string {
	ids := []struct{ name, v string }{
		{"source.session_id", src.SessionID}, {"source.message_id", src.MessageID}, {"source.tool", src.Tool}, {"the session (Engram-Session)", session},
	}
	var all []string
	for _, f := range ids {
		if f.v == "" {
			continue
		}
		if !validID(f.v) {
			return fmt.Sprintf("invalid: %s must be at most %d characters of A-Z, a-z, 0-9 and ._:/@-", f.name, MaxIDLen)
		}
		all = append(all, f.v)
	}
	if len(all) == 0 {
		return ""
	}
	if secret, personal := s.guard.Data(strings.Join(all, " ")); secret || personal {
		for _, f := range ids {
			if f.v == "" {
				continue
			}
			if secret, personal := s.guard.Data(f.v); secret || personal {
				return fmt.Sprintf("invalid: %s may not hold a secret or personal data; it is an identifier", f.name)
			}
		}
		return "invalid: the write's identifiers may not hold a secret or personal data"
	}
	return ""
}

// checkSession refuses a session id (the Engram-Session header) outside
// the identifier grammar or holding a secret or personal data, before it
// reaches any audit entry or provenance. Answers are cached: an agent
// sends the same session with every request.
func (s *Service) checkSession(session string) string {
	if session == "" {
		return ""
	}
	if why, ok := s.sessionsSeen.Load(session); ok {
		return why.(string)
	}
	why := s.checkIDs(vault.Source{}, session)
	if n := s.sessionCount.Add(1); n > maxSessionsSeen {
		s.sessionsSeen.Clear()
		s.sessionCount.Store(0)
	}
	s.sessionsSeen.Store(session, why)
	return why
}

// maxSessionsSeen bounds checkSession's cache.
const maxSessionsSeen = 4096

// fieldLimit is the configured size limit of a field, in characters (0:
// none): the policy's, as the guard was built with it.
func (s *Service) fieldLimit(f vault.Field) int { return s.guard.FieldLimit(string(f)) }

// agentSource is the source an agent's write is recorded and judged
// with: the channel's (ai_inference), or a lower-trust one the agent
// names (web_fetch, tool_output). A higher one the agent names (the user,
// an explicit save) is kept as reported.
func agentSource(claimed vault.SourceType) (vault.Source, string) {
	src := vault.Source{Type: vault.SourceAIInference}
	switch claimed {
	case "", vault.SourceAIInference:
	case vault.SourceWebFetch, vault.SourceToolOutput:
		src.Type = claimed
	case vault.SourceSystem:
		return src, "invalid: an agent cannot write as the system"
	case vault.SourceUserMessage, vault.SourceExplicitSave:
		src.Reported = claimed
	default:
		return src, fmt.Sprintf("invalid: unknown source type %q", claimed)
	}
	return src, ""
}

// lowerTrust is a capped by b (the lower of the two); an empty b caps
// nothing.
func lowerTrust(a, b vault.Trust) vault.Trust {
	if b != "" && a.Above(b) {
		return b
	}
	return a
}

// admit decides a write. It reads nothing of the vault and writes
// nothing: the route writes the admitted memory and does the answer's
// bookkeeping (refusals, audit) through settle.
func (s *Service) admit(req Request, p proposal) admission {
	c := req.Caller
	agent := !c.Operator
	m := p.m
	a := admission{}
	if p.existing != nil {
		e := *p.existing
		e.Content = m.Content
		m = e
	}
	no := func(o outcome, st Status, why string) admission {
		a.outcome, a.status, a.why, a.m = o, st, why, m
		return a
	}

	// The channel: who writes, with what trust.
	if agent {
		switch {
		case slices.Contains(vault.ReservedFields, m.Field):
			return no(invalid, StatusUnauthorized, fmt.Sprintf("field %q is not writable by agents", m.Field))
		case !c.mayWrite(m.Field):
			return no(invalid, StatusUnauthorized, fmt.Sprintf("field %q is not granted to this agent", m.Field))
		}
	}
	ids := m.Source
	if p.existing != nil {
		ids = vault.Source{} // a change records only its session
	}
	if why := s.checkIDs(ids, ""); why != "" { // the session: checked by gate
		return no(invalid, StatusInvalid, why)
	}
	if p.existing == nil {
		if agent {
			src, why := agentSource(m.Source.Type)
			if why != "" {
				return no(invalid, StatusInvalid, why)
			}
			src.AgentID, src.SessionID, src.MessageID, src.Tool = c.Agent, m.Source.SessionID, m.Source.MessageID, m.Source.Tool
			src.Role, src.External = m.Source.Role, m.Source.External // reports; they raise nothing
			m.Source = src
			m.Product = c.Product
			m.Trust = lowerTrust(vault.TrustStandard, c.Trust)
			m.Confidence = vault.InitialConfidence(vault.SourceAIInference)
		} else {
			m.Source.Type = orDefault(m.Source.Type, vault.SourceExplicitSave)
			m.Source.AgentID = ""
			m.Trust = vault.TrustOperator
			m.Confidence = vault.InitialConfidence(m.Source.Type)
		}
		if m.Source.SessionID == "" {
			m.Source.SessionID = c.Session
		}
		m.Source.External = m.Source.External || externalSource(m.Source.Type)
	} else if agent {
		// An agent's change is the agent's word, whatever the memory held
		// before (one the user merged, reclassified or raised): it keeps
		// at most the trust a new write of that agent would get.
		m.Trust = lowerTrust(m.Trust, lowerTrust(vault.TrustStandard, c.Trust))
	}
	if limit := s.fieldLimit(m.Field); agent && limit > 0 && utf8.RuneCountInString(m.Content) > limit {
		return no(invalid, StatusInvalid, fmt.Sprintf("invalid: content is longer than the %d characters allowed in %s", limit, m.Field))
	}
	if strings.TrimSpace(m.Content) == "" {
		return no(invalid, StatusInvalid, "invalid: empty content")
	}
	if why := mediaIn(m.Content); why != "" {
		return no(invalid, StatusInvalid, "invalid: the content holds "+why)
	}

	// Confirmation: the user's at the CLI or in the app; an agent's only
	// with the user's grant, else a report to be confirmed in review.
	userConfirmed := p.confirmed && (!agent || c.MayConfirm) || p.derived
	claimed := p.confirmed && !userConfirmed

	source := string(m.Source.Type)
	if agent && guard.SourceTrust(source) > guard.SourceTrust(string(vault.SourceAIInference)) {
		source = string(vault.SourceAIInference) // an agent's tool output is judged as the agent's
	}
	if !agent {
		source = string(vault.SourceUserMessage)
	}
	a.screened = m.Content
	a.res = s.guard.Check(guard.Input{Text: m.Content, Source: source, Field: string(m.Field), Confirmed: userConfirmed || claimed})
	res := a.res
	what := "the memory"
	if p.existing != nil {
		what = "the new content"
	}
	switch {
	case res.Rejected:
		return no(refused, StatusRejected, what+" contains a secret and the policy refuses secrets")
	case res.CredentialLike && m.Tier == vault.Semantic:
		return no(refused, StatusRejected, "credential-like statements are not kept as semantic memory")
	}
	possibleSecret := guard.Result{}.NeedsConfirm
	for _, f := range res.Findings {
		if f.Kind == guard.KindSecret && f.Level == guard.LevelPossible {
			possibleSecret = true
		}
	}
	if possibleSecret && !userConfirmed {
		if claimed {
			a.sealQueue = true
			a.queueReason = "confirmation request: the agent reports that the user confirmed storing what may be a secret (a long random string or hash)"
		} else {
			return no(askUser, StatusConfirmationRequired, what+" contains what may be a secret (a long random string or hash). "+confirmHow(agent))
		}
	}
	if res.Transcript && m.Tier == vault.Semantic {
		m.Tier = vault.Episodic
		a.warnings = append(a.warnings, "raw transcripts are kept as episodic memory only")
	}
	if agent && m.Tier == vault.Semantic && !userConfirmed && a.queueReason == "" {
		if claimed {
			a.queueReason = "confirmation request: the agent reports that the user confirmed this semantic memory"
		} else {
			return no(askUser, StatusConfirmationRequired, "semantic memory from an agent needs the user's confirmation. "+confirmHow(agent))
		}
	}
	m.Content = res.Redacted
	if res.HasSecret {
		a.warnings = append(a.warnings, "secrets were redacted before storing")
		a.secretTypes = secretTypes(res.Findings)
	}

	// Where it lives: partitions.Classify, from the guard's findings.
	pii := res.HasPII && s.piiStays()
	switch {
	case p.existing != nil && p.existing.Sensitive():
		// A sensitive memory never moves down.
	case p.existing != nil && pii && m.Partition == vault.Archive:
		return no(invalid, StatusInvalid, "invalid: the new content holds personal data, which an archived memory outside the sensitive partition cannot take; restore the memory first")
	case p.existing != nil && m.Partition == vault.Archive:
	default:
		// The level rule: a writer can raise a memory's level, never lower
		// it below the automatic one. The user's choice may go lower (see
		// partitions.Classify), and so may an existing memory's partition,
		// which this write does not ask for: the user or an earlier
		// admission set it.
		requested := m.Partition
		userChoice := !agent || p.existing != nil || p.userPartition
		var why string
		if m.Partition, why = classify(m, pii, userChoice); why != "" {
			return no(invalid, StatusInvalid, why)
		}
		if pii && m.Partition == vault.Sensitive && requested != vault.Sensitive {
			a.warnings = append(a.warnings, "personal data: stored encrypted in the sensitive partition")
		}
	}

	if agent {
		switch {
		case res.Verdict == guard.Hostile:
			a.hostile = true
			return no(refused, StatusRejected, what+" looks like an attempt to plant instructions ("+strings.Join(res.Reasons, "; ")+")")
		case res.Verdict == guard.Suspicious && p.existing != nil:
			return no(refused, StatusRejected, "the new content looks suspicious ("+strings.Join(res.Reasons, "; ")+"); the memory is unchanged. Store it as a new memory to have the user review it")
		case res.Verdict == guard.Suspicious:
			a.queueReason = "suspicious content"
		case m.Source.Type == vault.SourceWebFetch && p.existing == nil && a.queueReason == "":
			a.queueReason = "content fetched from the web needs review"
		}
	}
	a.m = m
	if a.queueReason != "" {
		if p.existing != nil {
			// The quarantine holds new memories: a change the user must
			// confirm is asked for instead.
			return no(askUser, StatusConfirmationRequired, "an agent's change to semantic memory or to what may be a secret needs the user's confirmation. "+confirmHow(true))
		}
		a.outcome = queued
		return a
	}
	a.outcome = admitted
	return a
}

// externalSource reports whether content from a source of type t came
// from outside the conversation: a web page or a tool's output (which an
// import is).
func externalSource(t vault.SourceType) bool {
	return t == vault.SourceWebFetch || t == vault.SourceToolOutput
}

// ReportedNote describes what a writer reported of a source without the
// channel vouching for it ("reported by claude-code as user_message, not
// verified"; "spoken by the user, as reported by claude-code"), for
// history views; "" when there is nothing.
func ReportedNote(s vault.Source) string {
	who := s.AgentID
	if who == "" {
		who = "an agent"
	}
	var parts []string
	if s.Reported != "" {
		parts = append(parts, fmt.Sprintf("reported by %s as %s, not verified", who, s.Reported))
	}
	if s.Role != "" {
		if s.AgentID == "" {
			who = "the writer"
		}
		parts = append(parts, fmt.Sprintf("spoken by the %s, as reported by %s", s.Role, who))
	}
	return strings.Join(parts, "; ")
}

// confirmHow tells the writer how the user confirms.
func confirmHow(agent bool) string {
	if agent {
		return "Do not confirm it yourself: ask the user. If the user agrees, send it again with confirmed: true and the user approves it in Engram's quarantine (engram quarantine, or Quarantine in the app); the user may also store it with 'engram memory add --confirm'."
	}
	return "To store it as it is, confirm: 'engram memory add|update --confirm', or Confirm in the app."
}
