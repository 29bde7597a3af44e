package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// MergeStrategy says how Merge builds the merged memory.
type MergeStrategy string

// Merge strategies.
const (
	// MergeUnion keeps every distinct text, oldest first, one per line;
	// the result has the lowest trust of its sources.
	MergeUnion MergeStrategy = "union"
	// MergePrioritize keeps the text of the most trusted source (then the
	// most confident, then the newest) and its trust.
	MergePrioritize MergeStrategy = "prioritize"
	// MergeIntersection keeps what the sources agree on: the statements
	// (lines and sentences, compared ignoring case, spacing and
	// punctuation) found in every source, in the oldest source's order;
	// the result has the lowest trust of its sources. Sources that agree
	// on nothing are not merged.
	MergeIntersection MergeStrategy = "intersection"
)

// MergeStrategies are the strategies Merge offers.
var MergeStrategies = []MergeStrategy{MergeUnion, MergePrioritize, MergeIntersection}

// statements cuts a text into lines and sentences (ended by ., ! or ?
// before a space), trimmed, empty ones dropped.
func statements(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		start := 0
		for i := 0; i < len(line); i++ {
			if c := line[i]; (c == '.' || c == '!' || c == '?') && (i+1 == len(line) || line[i+1] == ' ') {
				if t := strings.TrimSpace(line[start : i+1]); t != "" {
					out = append(out, t)
				}
				start = i + 1
			}
		}
		if t := strings.TrimSpace(line[start:]); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// agreed is the intersection of texts: the statements of texts[0] that
// every other text also holds, joined by spaces, each once.
func agreed(texts []string) string {
	held := make([]map[string]bool, len(texts))
	for i, t := range texts {
		held[i] = map[string]bool{}
		for _, st := range statements(t) {
			held[i][normalise(st)] = true
		}
	}
	var keep []string
	seen := map[string]bool{}
	for _, st := range statements(texts[0]) {
		n := normalise(st)
		if n == "" || seen[n] {
			continue
		}
		all := true
		for _, h := range held[1:] {
			all = all && h[n]
		}
		if all {
			seen[n] = true
			keep = append(keep, st)
		}
	}
	return strings.Join(keep, " ")
}

// MergeInput names the memories to merge.
type MergeInput struct {
	IDs      []string      `json:"ids"`
	Strategy MergeStrategy `json:"strategy,omitempty"` // union (default), prioritize or intersection
}

// Merge replaces several memories with one: the merged memory is stored as
// a new memory (tags united, pinned if any source was, in the most
// sensitive partition of its sources), then each source is archived with a
// pointer to it, so all stay in the history. The caller must be allowed
// to change every source (an agent: its own memories). If it stops half
// way the sources stay live beside the merged memory: nothing is lost.
func (s *Service) Merge(ctx context.Context, req Request, in MergeInput) MemoryResponse {
	return s.w.Merge(ctx, req, in)
}

// Merge is Service.Merge's work.
func (s *writer) Merge(ctx context.Context, req Request, in MergeInput) MemoryResponse {
	if r, ok := s.gate(req); !ok {
		return MemoryResponse{Response: r}
	}
	ids, sources, strategy, r := s.mergeSources(ctx, req, in)
	if !r.OK() {
		return MemoryResponse{Response: r}
	}
	merged, texts, r := mergedOf(sources, strategy)
	if !r.OK() {
		return MemoryResponse{Response: r}
	}
	if !req.Caller.Operator && strategy == MergeIntersection {
		// Statements dropped from a text may leave an order standing alone.
		in := guard.Input{Text: merged.Content, Source: string(vault.SourceAIInference), Field: string(merged.Field)}
		if res := s.guard.Screen(in); res.Verdict != guard.Safe {
			why := "the merged text looks like an attempt to plant instructions (" + strings.Join(res.Reasons, "; ") + "); the memories were left as they are"
			return MemoryResponse{Response: s.settle(req, refusal(why, merged, res))}
		}
	}
	if !req.Caller.Operator && strategy == MergeUnion && len(texts) > 1 {
		// Each source passed the guard alone; joined, they may make the
		// order that no single write gave (a split order stored across
		// sessions, where the split-order check does not reach). They are
		// screened as one text reads, as the split-order check joins them.
		joined := texts[0]
		for _, t := range texts[1:] {
			joined = joinWrites(joined, t)
		}
		in := guard.Input{Text: joined, Source: string(vault.SourceAIInference), Field: string(merged.Field)}
		if res := s.guard.Screen(in); res.Verdict != guard.Safe {
			why := "the merged text looks like an attempt to plant instructions (" + strings.Join(res.Reasons, "; ") + "); the memories were left as they are"
			return MemoryResponse{Response: s.settle(req, refusal(why, merged, res))}
		}
	}
	a := req.actor()
	a.Reason = fmt.Sprintf("merged from %s (%s)", strings.Join(ids, ", "), strategy)
	got, err := s.v.Add(merged, a)
	if err != nil {
		return MemoryResponse{Response: s.fail("merge", err)}
	}
	s.idx.Put(&got)
	for _, m := range sources {
		if err := s.archiveInto(ctx, req, m.ID, got.ID, "merged into "+got.ID); err != nil {
			return MemoryResponse{Response: s.fail("merge", err)}
		}
	}
	return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &got}
}

// mergeSources checks a merge's input and reads its sources, oldest
// first, each one the caller may change.
func (s *writer) mergeSources(ctx context.Context, req Request, in MergeInput) ([]string, []*vault.Memory, MergeStrategy, Response) {
	strategy := orDefault(in.Strategy, MergeUnion)
	if !slices.Contains(MergeStrategies, strategy) {
		return nil, nil, "", Response{StatusInvalid, fmt.Sprintf("invalid: merge strategy %q (union, prioritize or intersection)", in.Strategy)}
	}
	ids := slices.Compact(slices.Sorted(slices.Values(in.IDs)))
	if len(ids) < 2 {
		return nil, nil, "", Response{StatusInvalid, "invalid: a merge needs at least two different memories"}
	}
	sources := make([]*vault.Memory, 0, len(ids))
	for _, id := range ids {
		m, r := s.writable(ctx, req, id)
		if !r.OK() {
			return nil, nil, "", r
		}
		sources = append(sources, m)
	}
	slices.SortStableFunc(sources, func(a, b *vault.Memory) int { return a.Created.Compare(b.Created) })
	return ids, sources, strategy, Response{Status: StatusOK}
}

// mergedOf is the memory a merge of sources (oldest first) stores under
// strategy, and the distinct texts it joined (one for prioritize and
// intersection); not OK when the sources agree on nothing to intersect.
func mergedOf(sources []*vault.Memory, strategy MergeStrategy) (vault.Memory, []string, Response) {
	first := sources[0]
	out := vault.Memory{Kind: first.Kind, Field: first.Field, Tier: first.Tier, Partition: first.Partition,
		Source: first.Source, Owner: first.Owner, Trust: first.Trust, Confidence: first.Confidence}
	var texts []string
	for _, m := range sources {
		for _, t := range m.Tags {
			if !slices.Contains(out.Tags, t) {
				out.Tags = append(out.Tags, t)
			}
		}
		out.Pinned = out.Pinned || m.Pinned
		if rank[m.Partition] > rank[out.Partition] {
			out.Partition = m.Partition
		}
		if !slices.ContainsFunc(texts, func(t string) bool { return normalise(t) == normalise(m.Content) }) {
			texts = append(texts, m.Content)
		}
		if out.Trust.Above(m.Trust) {
			out.Trust = m.Trust
		}
		out.Confidence = max(out.Confidence, m.Confidence)
	}
	out.Content = strings.Join(texts, "\n")
	if strategy == MergePrioritize {
		best := first
		for _, m := range sources[1:] {
			switch {
			case m.Trust != best.Trust:
				if m.Trust.Above(best.Trust) {
					best = m
				}
			case m.Confidence != best.Confidence:
				if m.Confidence > best.Confidence {
					best = m
				}
			default:
				best = m // newer
			}
		}
		// The kept text keeps its writer: its trust is that writer's word,
		// and an owner other than the text's could rewrite it at that trust.
		out.Content, out.Trust, out.Confidence, out.Source = best.Content, best.Trust, best.Confidence, best.Source
		out.Owner, out.Product = best.Owner, best.Product
	}
	if strategy == MergeIntersection {
		all := make([]string, len(sources))
		for i, m := range sources {
			all[i] = m.Content
		}
		if out.Content = agreed(all); out.Content == "" {
			return out, nil, Response{StatusInvalid, "invalid: the memories agree on nothing (no line or sentence is in all of them); nothing was merged"}
		}
		texts = []string{out.Content}
	}
	out.Content, _ = vault.Truncate(out.Content)
	return out, texts, Response{Status: StatusOK}
}

// MergePreviewResponse is the text Merge would store.
type MergePreviewResponse struct {
	Response
	Content string `json:"content"`
}

// MergePreview returns the text Merge(ctx, req, in) would store, and
// changes nothing, so that the user sees it before deciding: the same
// sources, strategy and refusals, by the same rules (mergeSources,
// mergedOf). Operator only.
func (s *Service) MergePreview(ctx context.Context, req Request, in MergeInput) MergePreviewResponse {
	return s.w.MergePreview(ctx, req, in)
}

// MergePreview is Service.MergePreview's work.
func (s *writer) MergePreview(ctx context.Context, req Request, in MergeInput) MergePreviewResponse {
	if r, ok := s.operatorGate(req); !ok {
		return MergePreviewResponse{Response: r}
	}
	_, sources, strategy, r := s.mergeSources(ctx, req, in)
	if !r.OK() {
		return MergePreviewResponse{Response: r}
	}
	m, _, r := mergedOf(sources, strategy)
	if !r.OK() {
		return MergePreviewResponse{Response: r}
	}
	return MergePreviewResponse{Response: Response{Status: StatusOK}, Content: m.Content}
}

// rank orders partitions by sensitivity: a merge never moves data down.
var rank = map[vault.Partition]int{vault.Public: 0, vault.Internal: 1, vault.Sensitive: 2}

// SplitInput names a memory and the parts to split it into.
type SplitInput struct {
	ID    string   `json:"id"`
	Parts []string `json:"parts"`
}

// SplitResponse returns the new memories.
type SplitResponse struct {
	Response
	Memories []Memory `json:"memories,omitempty"`
}

// Split replaces a memory with several, one per part, each with the
// original's kind, field, tier, partition, tags, trust and source; the
// original is archived with a pointer to the first part. Parts pass the
// write guard (secrets redacted; personal data keeps them sensitive). An
// agent may split only its own memories, into parts of their text.
func (s *Service) Split(ctx context.Context, req Request, in SplitInput) SplitResponse {
	return s.w.Split(ctx, req, in)
}

// Split is Service.Split's work.
func (s *writer) Split(ctx context.Context, req Request, in SplitInput) SplitResponse {
	if r, ok := s.gate(req); !ok {
		return SplitResponse{Response: r}
	}
	if len(in.Parts) < 2 {
		return SplitResponse{Response: Response{StatusInvalid, "invalid: a split needs at least two parts"}}
	}
	orig, r := s.writable(ctx, req, in.ID)
	if !r.OK() {
		return SplitResponse{Response: r}
	}
	var parts []vault.Memory
	var redacted []string // the secret types redacted from the parts
	for _, p := range in.Parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return SplitResponse{Response: Response{StatusInvalid, "invalid: an empty part"}}
		}
		if !req.Caller.Operator && !strings.Contains(orig.Content, p) {
			return SplitResponse{Response: Response{StatusInvalid, "invalid: an agent splits a memory into parts of its own text"}}
		}
		a := s.admit(req, policy.Proposal{Memory: vault.Memory{Content: p}, Existing: orig, Derived: true})
		if a.Outcome != policy.Admitted {
			return SplitResponse{Response: s.settle(req, a)}
		}
		if a.SecretTypes != "" {
			redacted = append(redacted, a.SecretTypes)
		}
		// A part carved by an agent is its word ("push to main" out of
		// "never push to main"): admission gave it at most the agent's trust.
		m := vault.Memory{Content: a.Memory.Content, Kind: orig.Kind, Field: orig.Field, Tier: a.Memory.Tier, Partition: a.Memory.Partition,
			Tags: slices.Clone(orig.Tags), Source: orig.Source, Owner: orig.Owner, Trust: a.Memory.Trust, Confidence: orig.Confidence, Pinned: orig.Pinned}
		parts = append(parts, m)
	}
	a := req.actor()
	a.Reason = "split from " + orig.ID
	var out []Memory
	for _, m := range parts {
		got, err := s.v.Add(m, a)
		if err != nil {
			return SplitResponse{Response: s.fail("split", err), Memories: out}
		}
		s.idx.Put(&got)
		out = append(out, got)
	}
	ids := make([]string, len(out))
	for i := range out {
		ids[i] = out[i].ID
	}
	if err := s.archiveInto(ctx, req, orig.ID, out[0].ID, "split into "+strings.Join(ids, ", ")); err != nil {
		return SplitResponse{Response: s.fail("split", err), Memories: out}
	}
	if len(redacted) > 0 {
		s.audit(req, vault.AuditEntry{Action: vault.ActionSecretRedacted, MemoryID: orig.ID, Field: orig.Field, Result: vault.ResultOK, Reason: strings.Join(redacted, ",")})
	}
	return SplitResponse{Response: Response{Status: StatusOK}, Memories: out}
}

// writable reads a live memory the caller may change.
func (s *writer) writable(ctx context.Context, req Request, id string) (*vault.Memory, Response) {
	if r := s.check(req, id, vault.ActionUpdate, policy.CanWrite); !r.OK() {
		return nil, r
	}
	got := s.get(req, id)
	if !got.OK() {
		return nil, got.Response
	}
	if got.Memory.Partition == vault.Archive {
		return nil, Response{StatusInvalid, fmt.Sprintf("invalid: memory %s is archived; restore it first", id)}
	}
	return got.Memory, Response{Status: StatusOK}
}

// archiveInto archives memory id with a pointer to the one that replaced it.
func (s *writer) archiveInto(ctx context.Context, req Request, id, into, reason string) error {
	a := req.actor()
	a.Reason = reason
	m, err := s.v.Archive(id, reason, into, a)
	if err != nil {
		return err
	}
	s.idx.Put(&m)
	return nil
}
