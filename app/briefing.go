package app

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

// BriefingInput asks for the memories an agent should have in mind when a
// session starts: those it may read that matter for the project it works
// on, without a query.
type BriefingInput struct {
	// Project names the product the session works on (its working
	// directory mapped to a product by the user). Memories of that product
	// (scoped to it, or tagged with it or with "project:NAME") come first,
	// general ones (no product, no project tag) after; memories of other
	// projects are left out. Empty: general memories only.
	Project string `json:"project,omitempty"`
	// Budget bounds the context block, in estimated tokens
	// (recall.EstimateTokens): default DefaultBriefingBudget, at most
	// MaxBriefingBudget.
	Budget int `json:"budget,omitempty"`
}

// BriefingResponse is a briefing: the memories chosen, best first, and
// the same memories as a context block for a model, fenced as recall's
// (recall.FormatContext). LeftOut counts the memories the caller may read
// that matched but did not fit the budget.
type BriefingResponse struct {
	Response
	Results []RecallResult `json:"results"`
	Context string         `json:"context,omitempty"`
	LeftOut int            `json:"left_out,omitempty"`
}

// Briefing budgets, in estimated tokens.
const (
	DefaultBriefingBudget = 1500
	MaxBriefingBudget     = 8000
)

// minBriefingConfidence leaves out of a briefing memories whose confidence
// has decayed below it: a briefing is pushed at the agent unasked, so it
// holds only what Engram still believes.
const minBriefingConfidence = 0.3

// Briefing returns the memories the caller may read that matter for
// in.Project, ranked by the writer's trust, then by the confidence now
// (decayed, as recall computes it), pinned ones first, newest first on
// ties, cut to the token budget. It applies the read rules of Get and
// Recall: nothing archived, nothing sensitive unless the caller was
// granted the sensitive partition (and the vault is unlocked), nothing
// from the quarantine (queued writes are not memories), nothing a hostile
// source wrote. Expired memories and those below a confidence of 0.3 are
// left out. The briefing is audited as a listing with its count, and
// each sensitive memory in it as an L3 access.
func (s *Service) Briefing(ctx context.Context, req Request, in BriefingInput) BriefingResponse {
	return s.rd.Briefing(ctx, req, in)
}

// Briefing is Service.Briefing's work.
func (s *reading) Briefing(ctx context.Context, req Request, in BriefingInput) BriefingResponse {
	if r, ok := s.gate(req); !ok {
		return BriefingResponse{Response: r}
	}
	budget := in.Budget
	switch {
	case budget < 0 || budget > MaxBriefingBudget:
		return BriefingResponse{Response: Response{StatusInvalid, fmt.Sprintf("invalid: budget must be between 0 and %d tokens", MaxBriefingBudget)}}
	case budget == 0:
		budget = DefaultBriefingBudget
	}
	project := strings.ToLower(strings.TrimSpace(in.Project))
	if len(project) > maxTagLen {
		return BriefingResponse{Response: Response{StatusInvalid, fmt.Sprintf("invalid: project is longer than %d characters", maxTagLen)}}
	}
	canRead := s.reader(req.Caller)
	now := s.now()
	type cand struct {
		doc     recall.Doc
		conf    float64
		pinned  bool
		project bool
	}
	var cands []cand
	parts := []Partition{vault.Public, vault.Internal, vault.Sensitive}
	_, err := s.v.Each(vault.ListFilter{Partitions: parts, OnDamaged: s.damaged.Skip}, func(m *Memory) error {
		if !canRead(vault.Info{Partition: m.Partition, Sealed: m.Sensitive(), Owner: m.Owner, Field: m.Field, Product: m.Product}) {
			return nil
		}
		if m.Trust == vault.TrustHostile || (m.Expires != nil && !m.Expires.After(now)) {
			return nil
		}
		mine, other := projectOf(m, project)
		if other {
			return nil
		}
		d := docOf(m)
		c := d.ConfidenceAt(now)
		if c < minBriefingConfidence {
			return nil
		}
		cands = append(cands, cand{doc: d, conf: c, pinned: m.Pinned, project: mine})
		return ctx.Err()
	})
	if err != nil {
		return BriefingResponse{Response: s.fail("briefing", err)}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		switch {
		case a.project != b.project:
			return boolFirst(a.project)
		case a.pinned != b.pinned:
			return boolFirst(a.pinned)
		}
		if c := cmp.Compare(b.doc.Trust.Rank(), a.doc.Trust.Rank()); c != 0 {
			return c
		}
		if c := cmp.Compare(b.conf, a.conf); c != 0 {
			return c
		}
		if c := b.doc.Created.Compare(a.doc.Created); c != 0 {
			return c
		}
		return strings.Compare(a.doc.ID, b.doc.ID)
	})
	reader := labelReader(req.Caller)
	var out []RecallResult
	var lines []string
	used, left := 0, 0
	for i := range cands {
		d := &cands[i].doc
		line := recall.FormatLine(d, reader)
		cost := recall.EstimateTokens(line) + 1
		if used+cost > budget {
			left++
			continue
		}
		used += cost
		lines = append(lines, line)
		out = append(out, RecallResult{ID: d.ID, Content: d.Content, Partition: d.Partition, Trust: d.Trust, Confidence: cands[i].conf, Source: d.Source, Created: d.Created})
		if d.Sensitive {
			s.audit(req, vault.AuditEntry{Action: vault.ActionL3Access, MemoryID: d.ID, Field: d.Field, Partition: d.Partition, Result: vault.ResultOK, Reason: "briefing"})
		}
	}
	if err := s.v.Audit(vault.AuditEntry{Action: vault.ActionList, Agent: req.Caller.Name(), Session: req.Caller.Session, Result: vault.ResultOK, Reason: "briefing", Count: len(out)}); err != nil {
		return BriefingResponse{Response: s.fail("briefing", err)}
	}
	ids := make([]string, len(out))
	for i := range out {
		ids[i] = out[i].ID
	}
	s.access.Record(ids, now)
	if out == nil {
		out = []RecallResult{}
	}
	ctxBlock := ""
	if len(lines) > 0 {
		ctxBlock = strings.Join(lines, "\n") + "\n"
	}
	return BriefingResponse{Response: Response{Status: StatusOK}, Results: out, Context: ctxBlock, LeftOut: left}
}

func boolFirst(a bool) int {
	if a {
		return -1
	}
	return 1
}

// projectOf reports whether m belongs to project (scoped to it, or tagged
// with it or "project:NAME"), and whether it belongs to another project
// instead (so that a briefing leaves it out).
func projectOf(m *Memory, project string) (mine, other bool) {
	named := ""
	if m.Product != "" {
		named = strings.ToLower(m.Product)
	}
	for _, t := range m.Tags {
		t = strings.ToLower(t)
		if p, ok := strings.CutPrefix(t, "project:"); ok {
			if p == project {
				return project != "", false
			}
			named = p
		} else if project != "" && t == project {
			return true, false
		}
	}
	switch {
	case named == "":
		return false, false
	case named == project:
		return true, false
	}
	return false, true
}
