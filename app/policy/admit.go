package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/engram-app/engram/partitions"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// Outcome is what Admit decided.
type Outcome int

const (
	Admitted     Outcome = iota // write M
	Queued                      // put M in the quarantine for the user
	AskUser                     // answer confirmation_required: the user must confirm
	Refused                     // answer rejected; counted and audited
	Invalid                     // answer invalid; counted and audited for agents
	Unauthorized                // answer unauthorized (a field not granted); counted and audited for agents
)

// Proposal is one write as a route describes it.
type Proposal struct {
	// Memory is the memory as proposed: content, kind, field, tier, the
	// requested partition (empty: none), tags and the source as the
	// request names it. For a change, the other fields come from Existing.
	Memory vault.Memory
	// Existing is the memory a change applies to; nil for a new memory.
	Existing *vault.Memory
	// Confirmed is the request's "the user confirmed this".
	Confirmed bool
	// Derived is set for a text cut from the existing memory's own
	// admitted text (a split): the confirmation it was admitted with
	// carries over.
	Derived bool
	// UserPartition is set when Memory.Partition is the user's own choice
	// rather than the writer's request (an import's --partition, given at
	// the user's command line): it may be below the automatic level.
	UserPartition bool
}

// Decision is Admit's decision. A route may go on to queue an admitted
// write (a split order, a contradiction it finds): it sets Outcome,
// QueueReason and SealQueue.
type Decision struct {
	Outcome Outcome
	Why     string // the answer's message, and the audit's reason
	// Memory is the memory to write: redacted content, partition, tier,
	// source, trust and confidence set. For Queued, the memory to queue.
	Memory   vault.Memory
	Result   guard.Result
	Warnings []string
	// Hostile asks for a sealed forensic copy of the refused text.
	Hostile bool
	// SealQueue seals the quarantine copy (a possible secret waits there).
	SealQueue bool
	// QueueReason is why the write was queued.
	QueueReason string
	// Screened is the text the guard checked, before redaction: its
	// findings' offsets are into it.
	Screened string
	// SecretTypes names the secrets redacted, for the audit ("" if none).
	SecretTypes string
}

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

// Admit decides a write of caller c: the one decision on "may this text
// be written, where and how". Every route that writes text into the vault
// (store, update, merge, split, approve with an edit, working notes,
// import) describes the write as a Proposal, calls Admit, and keeps only
// its own routing: where the admitted memory goes and what it answers. It
// reads nothing of the vault and writes nothing.
func (p *Policy) Admit(c Caller, pr Proposal) Decision {
	agent := !c.Operator
	m := pr.Memory
	a := Decision{}
	if pr.Existing != nil {
		e := *pr.Existing
		e.Content = m.Content
		m = e
	}
	no := func(o Outcome, why string) Decision {
		a.Outcome, a.Why, a.Memory = o, why, m
		return a
	}

	// The channel: who writes, with what trust.
	if agent {
		switch {
		case slices.Contains(vault.ReservedFields, m.Field):
			return no(Unauthorized, fmt.Sprintf("field %q is not writable by agents", m.Field))
		case !c.MayWrite(m.Field):
			return no(Unauthorized, fmt.Sprintf("field %q is not granted to this agent", m.Field))
		}
	}
	ids := m.Source
	if pr.Existing != nil {
		ids = vault.Source{} // a change records only its session
	}
	if why := p.CheckIDs(ids, ""); why != "" { // the session: checked by gate
		return no(Invalid, why)
	}
	if pr.Existing == nil {
		if agent {
			src, why := agentSource(m.Source.Type)
			if why != "" {
				return no(Invalid, why)
			}
			src.AgentID, src.SessionID, src.MessageID, src.Tool = c.Agent, m.Source.SessionID, m.Source.MessageID, m.Source.Tool
			src.Role, src.External = m.Source.Role, m.Source.External // reports; they raise nothing
			m.Source = src
			m.Product = c.Product
			m.Trust = c.WriteTrust()
			m.Confidence = vault.InitialConfidence(vault.SourceAIInference)
		} else {
			m.Source.Type = cmp.Or(m.Source.Type, vault.SourceExplicitSave)
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
		m.Trust = LowerTrust(m.Trust, c.WriteTrust())
	}
	if limit := p.FieldLimit(m.Field); agent && limit > 0 && utf8.RuneCountInString(m.Content) > limit {
		return no(Invalid, fmt.Sprintf("invalid: content is longer than the %d characters allowed in %s", limit, m.Field))
	}
	if strings.TrimSpace(m.Content) == "" {
		return no(Invalid, "invalid: empty content")
	}
	if why := mediaIn(m.Content); why != "" {
		return no(Invalid, "invalid: the content holds "+why)
	}

	// Confirmation: the user's at the CLI or in the app; an agent's only
	// with the user's grant, else a report to be confirmed in review.
	userConfirmed := pr.Confirmed && (!agent || c.MayConfirm) || pr.Derived
	claimed := pr.Confirmed && !userConfirmed

	source := string(m.Source.Type)
	if agent && guard.SourceTrust(source) > guard.SourceTrust(string(vault.SourceAIInference)) {
		source = string(vault.SourceAIInference) // an agent's tool output is judged as the agent's
	}
	if !agent {
		source = string(vault.SourceUserMessage)
	}
	a.Screened = m.Content
	a.Result = p.guard.Check(guard.Input{Text: m.Content, Source: source, Field: string(m.Field), Confirmed: userConfirmed})
	res := a.Result
	what := "the memory"
	if pr.Existing != nil {
		what = "the new content"
	}
	switch {
	case res.Rejected:
		return no(Refused, what+" contains a secret and the policy refuses secrets")
	case res.CredentialLike && m.Tier == vault.Semantic:
		return no(Refused, "credential-like statements are not kept as semantic memory")
	}
	if res.NeedsConfirm { // a possible secret, and the user did not confirm
		if claimed {
			a.SealQueue = true
			a.QueueReason = "confirmation request: the agent reports that the user confirmed storing what may be a secret (a long random string or hash)"
		} else {
			return no(AskUser, what+" contains what may be a secret (a long random string or hash). "+confirmHow(agent))
		}
	}
	if res.Transcript && m.Tier == vault.Semantic {
		m.Tier = vault.Episodic
		a.Warnings = append(a.Warnings, "raw transcripts are kept as episodic memory only")
	}
	if agent && m.Tier == vault.Semantic && !userConfirmed && a.QueueReason == "" {
		if claimed {
			a.QueueReason = "confirmation request: the agent reports that the user confirmed this semantic memory"
		} else {
			return no(AskUser, "semantic memory from an agent needs the user's confirmation. "+confirmHow(agent))
		}
	}
	m.Content = res.Redacted
	if res.HasSecret {
		a.Warnings = append(a.Warnings, "secrets were redacted before storing")
		a.SecretTypes = SecretTypes(res.Findings)
	}

	// Where it lives: partitions.Classify, from the guard's findings.
	pii := res.HasPII && p.piiStays
	switch {
	case pr.Existing != nil && pr.Existing.Sensitive():
		// A sensitive memory never moves down.
	case pr.Existing != nil && pii && m.Partition == vault.Archive:
		return no(Invalid, "invalid: the new content holds personal data, which an archived memory outside the sensitive partition cannot take; restore the memory first")
	case pr.Existing != nil && m.Partition == vault.Archive:
	default:
		// The level rule: a writer can raise a memory's level, never lower
		// it below the automatic one. The user's choice may go lower (see
		// partitions.Classify), and so may an existing memory's partition,
		// which this write does not ask for: the user or an earlier
		// admission set it.
		requested := m.Partition
		userChoice := !agent || pr.Existing != nil || pr.UserPartition
		var why string
		if m.Partition, why = Classify(m, pii, userChoice); why != "" {
			return no(Invalid, why)
		}
		if pii && m.Partition == vault.Sensitive && requested != vault.Sensitive {
			a.Warnings = append(a.Warnings, "personal data: stored encrypted in the sensitive partition")
		}
	}

	if agent {
		switch {
		case res.Verdict == guard.Hostile:
			a.Hostile = true
			return no(Refused, what+" looks like an attempt to plant instructions ("+strings.Join(res.Reasons, "; ")+")")
		case res.Verdict == guard.Suspicious && pr.Existing != nil:
			return no(Refused, "the new content looks suspicious ("+strings.Join(res.Reasons, "; ")+"); the memory is unchanged. Store it as a new memory to have the user review it")
		case res.Verdict == guard.Suspicious:
			a.QueueReason = "suspicious content"
		case m.Source.Type == vault.SourceWebFetch && pr.Existing == nil && a.QueueReason == "":
			a.QueueReason = "content fetched from the web needs review"
		}
	}
	a.Memory = m
	if a.QueueReason != "" {
		if pr.Existing != nil {
			// The quarantine holds new memories: a change the user must
			// confirm is asked for instead.
			return no(AskUser, "an agent's change to semantic memory or to what may be a secret needs the user's confirmation. "+confirmHow(true))
		}
		a.Outcome = Queued
		return a
	}
	a.Outcome = Admitted
	return a
}

// externalSource reports whether content from a source of type t came
// from outside the conversation: a web page or a tool's output (which an
// import is).
func externalSource(t vault.SourceType) bool {
	return t == vault.SourceWebFetch || t == vault.SourceToolOutput
}

// confirmHow tells the writer how the user confirms.
func confirmHow(agent bool) string {
	if agent {
		return "Do not confirm it yourself: ask the user. If the user agrees, send it again with confirmed: true and the user approves it in Engram's quarantine (engram quarantine, or Quarantine in the app); the user may also store it with 'engram memory add --confirm'."
	}
	return "To store it as it is, confirm: 'engram memory add|update --confirm', or Confirm in the app."
}

// Classify maps the requested partition (m.Partition, empty for none),
// the memory's product scope and the guard's findings to the partition,
// through partitions.Classify: personal data makes it sensitive (L3), a
// product scope at least L2 (internal), anything else at least L1
// (internal). A request below that automatic level is refused with the
// reason (why), unless it is the user's own choice (userChoice), which may
// make public a memory with neither personal data nor a product scope.
// Personal data found by the guard raises the level instead, since the
// writer cannot foresee the guard's finding.
func Classify(m vault.Memory, pii, userChoice bool) (p vault.Partition, why string) {
	f := partitions.Facts{HasPII: pii, Product: m.Product, UserChoice: userChoice}
	scope := partitions.Floor(partitions.Facts{Product: m.Product})
	switch m.Partition {
	case "":
	case vault.Public:
		f.Requested, f.HasRequested = partitions.Public, true
	case vault.Internal:
		// The internal partition holds L1 and L2: the scope decides.
		f.Requested, f.HasRequested = max(partitions.Operational, scope), true
	case vault.Sensitive:
		f.Requested, f.HasRequested = partitions.Sensitive, true
	default:
		return "", fmt.Sprintf("invalid: partition %q", m.Partition)
	}
	d := partitions.Classify(f)
	if d.RequestIgnored && !pii {
		whose := "product " + m.Product
		if m.Product == "" {
			whose = "an agent's memory is at least internal; only the user makes a memory public"
		}
		return "", fmt.Sprintf("invalid: the %s partition was requested, but %s (%s): write it as internal, or without a partition", m.Partition, d.Reasons[len(d.Reasons)-1], whose)
	}
	return vault.Partition(d.Bucket), ""
}

// Redactions are the spans of fs that the guard redacts (definite and
// probable secrets), for the audit: detector and offsets, never the text.
func Redactions(fs []guard.Finding) []vault.Redaction {
	var out []vault.Redaction
	for _, f := range fs {
		if f.Kind == guard.KindSecret && f.Level != guard.LevelPossible {
			out = append(out, vault.Redaction{Detector: f.Type, Start: f.Start, End: f.End})
		}
	}
	return out
}

// SecretTypes names the kinds of secret among fs, for the audit.
func SecretTypes(fs []guard.Finding) string {
	var types []string
	for _, f := range fs {
		if f.Kind == guard.KindSecret && !slices.Contains(types, f.Type) {
			types = append(types, f.Type)
		}
	}
	return strings.Join(types, ",")
}
