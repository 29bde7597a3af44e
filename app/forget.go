package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/vault"
)

// ForgetResponse lists the memories a forget request found, or purged.
type ForgetResponse struct {
	Response
	Memories []Memory `json:"memories"`
	Purged   int      `json:"purged"`
	// Versions are older versions of other memories that mention the
	// topic (their current text does not); Forget drops them.
	Versions []VersionRef `json:"versions,omitempty"`
	// Queued are review-queue items (pending writes, hostile copies kept
	// for inspection) that mention the topic; Forget deletes them.
	Queued []string `json:"queued,omitempty"`
	// VersionsDropped and QueueDropped count what a forget removed besides
	// the memories.
	VersionsDropped int `json:"versions_dropped,omitempty"`
	QueueDropped    int `json:"queue_dropped,omitempty"`
}

// VersionRef names one kept version of a memory.
type VersionRef struct {
	ID      string `json:"id"`
	Version int    `json:"version"`
}

// mentions reports whether text is about topic, as a forget request
// reads it: the topic in the text (ignoring case), or all its words.
func mentions(text, topic string, want []string) bool {
	return strings.Contains(strings.ToLower(text), strings.ToLower(topic)) || containsAll(recall.Terms(nil, text), want)
}

// topicElsewhere finds topic in what a forget request must reach besides
// the memories' current text: older versions of memories not in found,
// and review-queue items.
func (l *lifecycle) topicElsewhere(topic string, found map[string]bool) ([]VersionRef, []string, error) {
	want := recall.Terms(nil, topic)
	var versions []VersionRef
	if _, err := l.v.EachVersion(func(id string, ver *vault.Version) error {
		if !found[id] && mentions(ver.Memory.Content, topic, want) {
			versions = append(versions, VersionRef{id, ver.Version})
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	recs, _, err := l.v.QueueList()
	if err != nil {
		return nil, nil, err
	}
	var queued []string
	for _, rec := range recs {
		it, err := quarantine.Decode(rec.Data)
		if err != nil {
			continue
		}
		if mentions(it.Memory.Content, topic, want) {
			queued = append(queued, rec.ID)
		}
	}
	return versions, queued, nil
}

// FindTopic returns every memory containing or about topic: the topic's
// words in the text (all of them), or recall's matches by meaning and
// keywords, archived ones included. Operator only. It changes nothing;
// Forget purges what it returns.
func (s *Service) FindTopic(ctx context.Context, req Request, topic string) ForgetResponse {
	return s.life.FindTopic(ctx, req, topic)
}

// FindTopic implements Service.FindTopic.
func (l *lifecycle) FindTopic(ctx context.Context, req Request, topic string) ForgetResponse {
	if r, ok := l.operatorGate(req); !ok {
		return ForgetResponse{Response: r}
	}
	topic = strings.TrimSpace(topic)
	if topic == "" {
		return ForgetResponse{Response: Response{StatusInvalid, "name a topic to forget"}}
	}
	all, _, err := l.v.List(vault.ListFilter{Partitions: vault.AllPartitions, OnDamaged: l.damaged.Skip})
	if err != nil {
		return ForgetResponse{Response: l.fail("forget", err)}
	}
	found := map[string]bool{}
	want := recall.Terms(nil, topic)
	for i := range all {
		if mentions(all[i].Content, topic, want) {
			found[all[i].ID] = true
		}
	}
	if l.idx.Enabled() {
		r := l.recall(ctx, req, RecallInput{Query: topic, Limit: 50, Filters: RecallFilters{IncludeArchived: true}})
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
	versions, queued, err := l.topicElsewhere(topic, found)
	if err != nil {
		return ForgetResponse{Response: l.fail("forget", err)}
	}
	out.Versions, out.Queued = versions, queued
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
	return s.life.Forget(ctx, req, ids, reason)
}

// Forget implements Service.Forget.
func (l *lifecycle) Forget(ctx context.Context, req Request, ids []string, reason string) ForgetResponse {
	return l.forget(ctx, req, ids, "forget", strings.TrimSpace(reason))
}

// ForgetTopic is Forget for the memories FindTopic found for topic (ids,
// as the user confirmed them): the memory:forget entry holds the count and
// the keyed fingerprint of the topic as FindTopic reads it (trimmed), so
// the user can later check that a topic was forgotten by its fingerprint;
// no entry holds the topic's text.
//
// It also drops the older versions of other memories and the review-queue
// items (pending writes, hostile copies) that mention the topic, and
// reports how many.
func (s *Service) ForgetTopic(ctx context.Context, req Request, topic string, ids []string) ForgetResponse {
	return s.life.ForgetTopic(ctx, req, topic, ids)
}

// ForgetTopic implements Service.ForgetTopic.
func (l *lifecycle) ForgetTopic(ctx context.Context, req Request, topic string, ids []string) ForgetResponse {
	if r, ok := l.operatorGate(req); !ok {
		return ForgetResponse{Response: r}
	}
	topic = strings.TrimSpace(topic)
	out := l.forget(ctx, req, ids, "forget topic", topic)
	if !out.OK() || topic == "" {
		return out
	}
	gone := map[string]bool{}
	for _, id := range ids {
		gone[id] = true
	}
	versions, queued, err := l.topicElsewhere(topic, gone)
	if err != nil {
		return ForgetResponse{Response: l.fail("forget", err), Purged: out.Purged}
	}
	byID := map[string][]int{}
	var order []string
	for _, v := range versions {
		if byID[v.ID] == nil {
			order = append(order, v.ID)
		}
		byID[v.ID] = append(byID[v.ID], v.Version)
	}
	a := req.actor()
	for _, id := range order {
		n, err := l.v.DropVersions(id, byID[id], "forget topic", a)
		if err != nil {
			return ForgetResponse{Response: l.fail("forget versions", err), Purged: out.Purged, VersionsDropped: out.VersionsDropped}
		}
		out.VersionsDropped += n
	}
	for _, id := range queued {
		e := vault.AuditEntry{Action: vault.ActionDiscard, Agent: req.Caller.Name(), MemoryID: id, Result: vault.ResultOK, Reason: "forget topic"}
		if err := l.v.QueueDelete(id, e); err != nil && !errors.Is(err, vault.ErrNotFound) {
			return ForgetResponse{Response: l.fail("forget queue", err), Purged: out.Purged, VersionsDropped: out.VersionsDropped, QueueDropped: out.QueueDropped}
		}
		out.QueueDropped++
	}
	if out.VersionsDropped+out.QueueDropped > 0 {
		if err := l.scrub.Now(ctx); err != nil {
			return ForgetResponse{Response: l.fail("forget scrub", err), Purged: out.Purged, VersionsDropped: out.VersionsDropped, QueueDropped: out.QueueDropped}
		}
	}
	return out
}

// forget purges ids, each audited with label (a word of Engram's own),
// then audits the request once with the fingerprint of text (the
// caller's words: never written as they are).
func (l *lifecycle) forget(ctx context.Context, req Request, ids []string, label, text string) ForgetResponse {
	if r, ok := l.operatorGate(req); !ok {
		return ForgetResponse{Response: r}
	}
	n, r := l.purge(ctx, req, ids, label)
	if n > 0 {
		e := vault.AuditEntry{Action: ActionForget, Result: vault.ResultOK, Reason: label, Count: n}
		if text != "" {
			// While locked there is no key, and no fingerprint: never a plain hash.
			e.ContentHash, _ = l.v.Fingerprint(text)
		}
		if !r.OK() {
			e.Result = vault.ResultError
		}
		l.audit(req, e)
	}
	return ForgetResponse{Response: r, Purged: n}
}

// purge purges ids (each audited as memory:purged with label), clears
// the pointers archived memories hold to them, and scrubs the file's free
// pages, so no byte of them is left when it returns. It
// returns how many it purged.
func (l *lifecycle) purge(ctx context.Context, req Request, ids []string, label string) (int, Response) {
	a := req.actor()
	a.Reason = label
	n := 0
	for _, id := range ids {
		if err := l.v.Purge(id, label, a); err != nil {
			return n, l.fail("forget", err)
		}
		l.idx.Remove(id)
		n++
	}
	if n == 0 {
		return 0, Response{Status: StatusOK}
	}
	// Memories archived with a pointer to a purged one keep a note of it.
	archived, _, _ := l.v.List(vault.ListFilter{Partitions: []vault.Partition{vault.Archive}, OnDamaged: l.damaged.Skip})
	gone := map[string]bool{}
	for _, id := range ids {
		gone[id] = true
	}
	for _, m := range archived {
		if m.Archive != nil && gone[m.Archive.Pointer] {
			l.v.Update(m.ID, vault.OpUpdate, vault.Actor{Agent: vault.AgentOperator, Reason: fmt.Sprintf("the memory it pointed to (%s) was forgotten", m.Archive.Pointer)}, func(m *vault.Memory) error {
				m.Archive.Pointer = ""
				return nil
			})
		}
	}
	if err := l.scrub.Now(ctx); err != nil {
		return n, l.fail("forget scrub", err)
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
	return s.life.Clear(ctx, req, scope)
}

// Clear implements Service.Clear.
func (l *lifecycle) Clear(ctx context.Context, req Request, scope ClearScope) ForgetResponse {
	if r, ok := l.operatorGate(req); !ok {
		return ForgetResponse{Response: r}
	}
	if scope != ClearEpisodic && scope != ClearSemantic && scope != ClearAll {
		return ForgetResponse{Response: Response{StatusInvalid, "clear takes episodic, semantic or all"}}
	}
	all, hidden, err := l.v.List(vault.ListFilter{Partitions: vault.AllPartitions, OnDamaged: l.damaged.Skip})
	if err != nil {
		return ForgetResponse{Response: l.fail("clear", err)}
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
	n, r := l.purge(ctx, req, ids, "bulk clear: "+string(scope))
	if r.OK() {
		l.audit(req, vault.AuditEntry{Action: ActionBulkDelete, Result: vault.ResultOK, Count: n, Reason: string(scope)})
	}
	return ForgetResponse{Response: r, Purged: n}
}

// ActionBulkDelete is the audit action of a bulk clear.
const ActionBulkDelete vault.Action = "memory_bulk_delete"
