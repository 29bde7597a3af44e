package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/engram-app/engram/vault"
)

// L3DueResponse is the removal of L3 access records that the sweep
// proposes: Due records (entries about the sensitive partition) were
// written before Before, past their retention, and stay until the user
// approves their removal (PruneL3 with the same now and retention).
type L3DueResponse struct {
	Response
	Due    int       `json:"due"`
	Before time.Time `json:"before"`
}

// L3Due reports the L3 access records past their retention as of now,
// for the audit retention retention (the larger of it and the sensitive
// retention applies, as in PruneL3). It counts what the sweep proposes
// (SweepResponse.L3Proposed) and changes nothing. Operator only.
func (s *Service) L3Due(ctx context.Context, req Request, now time.Time, retention time.Duration) L3DueResponse {
	if r, ok := s.operatorGate(req); !ok {
		return L3DueResponse{Response: r}
	}
	n, err := s.l3Due(now, retention)
	if err != nil {
		return L3DueResponse{Response: s.fail("l3 due", err)}
	}
	return L3DueResponse{Response: Response{Status: StatusOK}, Due: n, Before: s.sensitiveCutoff(now, retention)}
}

// MergePreviewResponse is the text Merge would store.
type MergePreviewResponse struct {
	Response
	Content string `json:"content"`
}

// MergePreview returns the text Merge(ctx, req, in) would store, and
// changes nothing, so that the user sees it before deciding: the same
// sources in the same order, the same strategy and the same refusals
// (an unknown strategy, fewer than two memories, sources that agree on
// nothing). Operator only.
//
// It repeats the text rules of Merge, which builds its text inline;
// TestMergePreviewIsWhatMergeStores holds the two together.
func (s *Service) MergePreview(ctx context.Context, req Request, in MergeInput) MergePreviewResponse {
	if r, ok := s.operatorGate(req); !ok {
		return MergePreviewResponse{Response: r}
	}
	strategy := orDefault(in.Strategy, MergeUnion)
	if !slices.Contains(MergeStrategies, strategy) {
		return MergePreviewResponse{Response: Response{StatusInvalid, fmt.Sprintf("invalid: merge strategy %q (union, prioritize or intersection)", in.Strategy)}}
	}
	ids := slices.Compact(slices.Sorted(slices.Values(in.IDs)))
	if len(ids) < 2 {
		return MergePreviewResponse{Response: Response{StatusInvalid, "invalid: a merge needs at least two different memories"}}
	}
	sources := make([]*vault.Memory, 0, len(ids))
	for _, id := range ids {
		m, r := s.writable(ctx, req, id)
		if !r.OK() {
			return MergePreviewResponse{Response: r}
		}
		sources = append(sources, m)
	}
	slices.SortStableFunc(sources, func(a, b *vault.Memory) int { return a.Created.Compare(b.Created) })
	var text string
	switch strategy {
	case MergeUnion:
		var texts []string
		for _, m := range sources {
			if !slices.ContainsFunc(texts, func(t string) bool { return normalise(t) == normalise(m.Content) }) {
				texts = append(texts, m.Content)
			}
		}
		text = strings.Join(texts, "\n")
	case MergePrioritize:
		best := sources[0]
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
		text = best.Content
	case MergeIntersection:
		all := make([]string, len(sources))
		for i, m := range sources {
			all[i] = m.Content
		}
		if text = agreed(all); text == "" {
			return MergePreviewResponse{Response: Response{StatusInvalid, "invalid: the memories agree on nothing (no line or sentence is in all of them); nothing was merged"}}
		}
	}
	text, _ = vault.Truncate(text)
	return MergePreviewResponse{Response: Response{Status: StatusOK}, Content: text}
}
