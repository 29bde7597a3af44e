package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

// ForgetResponse lists the memories a forget request found, or purged.
type ForgetResponse struct {
	Response
	Memories []Memory `json:"memories"`
	Purged   int      `json:"purged"`
}

// FindTopic returns every memory containing or about topic: the topic's
// words in the text (all of them), or recall's matches by meaning and
// keywords, archived ones included. Operator only. It changes nothing;
// Forget purges what it returns.
func (s *Service) FindTopic(ctx context.Context, req Request, topic string) ForgetResponse {
	if r, ok := s.operatorGate(req); !ok {
		return ForgetResponse{Response: r}
	}
	topic = strings.TrimSpace(topic)
	if topic == "" {
		return ForgetResponse{Response: Response{StatusInvalid, "name a topic to forget"}}
	}
	all, _, err := s.v.List(vault.ListFilter{Partitions: []vault.Partition{vault.Public, vault.Internal, vault.Sensitive, vault.Archive}, OnDamaged: s.skipDamaged})
	if err != nil {
		return ForgetResponse{Response: s.fail("forget", err)}
	}
	found := map[string]bool{}
	want := recall.Terms(nil, topic)
	lower := strings.ToLower(topic)
	for i := range all {
		if strings.Contains(strings.ToLower(all[i].Content), lower) || containsAll(recall.Terms(nil, all[i].Content), want) {
			found[all[i].ID] = true
		}
	}
	if s.recall != nil {
		r := s.Recall(ctx, req, RecallInput{Query: topic, Limit: 50, Filters: RecallFilters{IncludeArchived: true}})
		for _, h := range r.Results {
			if h.Score >= forgetMinScore && h.Partition != PartitionWorking {
				found[h.ID] = true
			}
		}
	}
	out := ForgetResponse{Response: Response{Status: StatusOK}}
	for i := range all {
		if found[all[i].ID] {
			out.Memories = append(out.Memories, all[i])
		}
	}
	return out
}

// forgetMinScore keeps weak semantic neighbours out of a forget request.
const forgetMinScore = 0.3

func containsAll(words, want []string) bool {
	if len(want) == 0 {
		return false
	}
	for _, w := range want {
		found := false
		for _, x := range words {
			if x == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// ActionForget is the audit action of a forget request: one entry after
// its purges, with their count and the keyed fingerprint (vault
// Fingerprint) of what was forgotten, never its text.
const ActionForget vault.Action = "memory:forget"

// Forget purges the memories with ids at once, with no archive, notes the
// purge in the provenance of memories that point at them, scrubs the
// file's free pages so their text is gone from it, and audits each purge. Operator only.
//
// reason is the caller's own words and may name what is forgotten (a
// topic, a person), so the audit log never holds it: each purge is
// audited as memory:purged with reason "forget", then one memory:forget
// entry holds the count and the reason's keyed fingerprint (none while
// the vault is locked, and none for an empty reason). Callers that forget
// a topic use ForgetTopic.
func (s *Service) Forget(ctx context.Context, req Request, ids []string, reason string) ForgetResponse {
	return s.forget(ctx, req, ids, "forget", strings.TrimSpace(reason))
}

// ForgetTopic is Forget for the memories FindTopic found for topic (ids,
// as the user confirmed them): the memory:forget entry holds the count and
// the keyed fingerprint of the topic as FindTopic reads it (trimmed), so
// the user can later check that a topic was forgotten by its fingerprint;
// no entry holds the topic's text.
func (s *Service) ForgetTopic(ctx context.Context, req Request, topic string, ids []string) ForgetResponse {
	return s.forget(ctx, req, ids, "forget topic", strings.TrimSpace(topic))
}

// forget purges ids, each audited with label (a word of Engram's own),
// then audits the request once with the fingerprint of text (the
// caller's words: never written as they are).
func (s *Service) forget(ctx context.Context, req Request, ids []string, label, text string) ForgetResponse {
	if r, ok := s.operatorGate(req); !ok {
		return ForgetResponse{Response: r}
	}
	n, r := s.purge(ctx, req, ids, label)
	if n > 0 {
		e := vault.AuditEntry{Action: ActionForget, Result: vault.ResultOK, Reason: label, Count: n}
		if text != "" {
			// While locked there is no key, and no fingerprint: never a plain hash.
			e.ContentHash, _ = s.v.Fingerprint(text)
		}
		if !r.OK() {
			e.Result = vault.ResultError
		}
		s.audit(req, e)
	}
	return ForgetResponse{Response: r, Purged: n}
}

// purge purges ids (each audited as memory:purged with label), clears
// the pointers archived memories hold to them, and scrubs the file's free
// pages, so no byte of them is left when it returns. It
// returns how many it purged.
func (s *Service) purge(ctx context.Context, req Request, ids []string, label string) (int, Response) {
	a := req.actor()
	a.Reason = label
	n := 0
	for _, id := range ids {
		if err := s.v.Purge(id, label, a); err != nil {
			return n, s.fail("forget", err)
		}
		s.unindex(id)
		n++
	}
	if n == 0 {
		return 0, Response{Status: StatusOK}
	}
	// Memories archived with a pointer to a purged one keep a note of it.
	archived, _, _ := s.v.List(vault.ListFilter{Partitions: []vault.Partition{vault.Archive}, OnDamaged: s.skipDamaged})
	gone := map[string]bool{}
	for _, id := range ids {
		gone[id] = true
	}
	for _, m := range archived {
		if m.Archive != nil && gone[m.Archive.Pointer] {
			s.v.Update(m.ID, vault.OpUpdate, vault.Actor{Agent: vault.AgentOperator, Reason: fmt.Sprintf("the memory it pointed to (%s) was forgotten", m.Archive.Pointer)}, func(m *vault.Memory) error {
				m.Archive.Pointer = ""
				return nil
			})
		}
	}
	if err := s.scrubNow(ctx); err != nil {
		return n, s.fail("forget scrub", err)
	}
	return n, Response{Status: StatusOK}
}

// ClearScope says which memories Clear removes.
type ClearScope string

// Scopes of a bulk clear.
const (
	ClearEpisodic ClearScope = "episodic"
	ClearSemantic ClearScope = "semantic"
	ClearAll      ClearScope = "all"
)

// Clear purges every memory of a tier (or all), audited once as
// memory_bulk_delete with the count, then scrubs the file's free pages.
// Operator only.
func (s *Service) Clear(ctx context.Context, req Request, scope ClearScope) ForgetResponse {
	if r, ok := s.operatorGate(req); !ok {
		return ForgetResponse{Response: r}
	}
	if scope != ClearEpisodic && scope != ClearSemantic && scope != ClearAll {
		return ForgetResponse{Response: Response{StatusInvalid, "clear takes episodic, semantic or all"}}
	}
	all, hidden, err := s.v.List(vault.ListFilter{Partitions: []vault.Partition{vault.Public, vault.Internal, vault.Sensitive, vault.Archive}, OnDamaged: s.skipDamaged})
	if err != nil {
		return ForgetResponse{Response: s.fail("clear", err)}
	}
	if hidden > 0 {
		return ForgetResponse{Response: Response{StatusLocked, fmt.Sprintf("%d sensitive memories cannot be seen while the vault is locked; unlock it to clear", hidden)}}
	}
	var ids []string
	for _, m := range all {
		if scope == ClearAll || string(m.Tier) == string(scope) {
			ids = append(ids, m.ID)
		}
	}
	n, r := s.purge(ctx, req, ids, "bulk clear: "+string(scope))
	if r.OK() {
		s.audit(req, vault.AuditEntry{Action: ActionBulkDelete, Result: vault.ResultOK, Count: n, Reason: string(scope)})
	}
	return ForgetResponse{Response: r, Purged: n}
}

// ActionBulkDelete is the audit action of a bulk clear.
const ActionBulkDelete vault.Action = "memory_bulk_delete"
