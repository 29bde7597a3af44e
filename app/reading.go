package app

import (
	"context"
	"slices"
	"time"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/app/upkeep"
	"github.com/engram-app/engram/vault"
)

// reading is the part of the service that answers reads: recall and its
// status (recall_service.go), the briefing at a session's start
// (briefing.go), listings, a memory's history and the audit log (here).
// Service owns one, made by New, and its exported methods delegate to
// it. It reaches the vault and the checks every request passes through
// the door, and records each recall's access times. Its methods are safe
// for concurrent use.
type reading struct {
	*door
	now func() time.Time
	// idx is the recall index; access writes recall's access times;
	// damaged counts the records a scan skips.
	idx     *upkeep.Index
	access  *upkeep.Access
	damaged *upkeep.Damaged
	// recallStatus is what the caller of New said about the embedder
	// (Options.RecallStatus); RecallStatus completes it.
	recallStatus RecallStatus
	// working returns the caller's session notes that match a query (the
	// writer keeps them).
	working func(req Request, query string) []RecallResult
}

// List returns the memories the caller may read, newest first.
func (s *Service) List(ctx context.Context, req Request, in ListInput) ListResponse {
	return s.rd.List(ctx, req, in)
}

// List is Service.List's work.
func (s *reading) List(ctx context.Context, req Request, in ListInput) ListResponse {
	if r, ok := s.gate(req); !ok {
		return ListResponse{Response: r}
	}
	damaged := 0
	parts := in.Partitions
	switch {
	case len(parts) > 0:
	case len(in.Filters.Partitions) > 0:
		parts = in.Filters.Partitions
	case in.Filters.IncludeArchived:
		parts = vault.AllPartitions
	}
	all, hidden, err := s.v.List(vault.ListFilter{Partitions: parts, Field: in.Field, OnDamaged: func(id string, err error) {
		damaged++
		s.damaged.Skip(id, err)
	}})
	if err != nil {
		return ListResponse{Response: s.fail("list", err)}
	}
	out := all[:0]
	now := s.now()
	f := in.Filters
	f.IncludeArchived = f.IncludeArchived || slices.Contains(parts, vault.Archive) // listed: asked for
	for i := range all {
		if !s.canRead(req.Caller, policy.InfoOf(&all[i])) {
			continue
		}
		if d := docOf(&all[i]); !f.Match(&d, now) {
			continue
		}
		if in.Masked && all[i].Sensitive() {
			all[i].Content = ""
		}
		out = append(out, all[i])
	}
	slices.SortFunc(out, func(a, b Memory) int { return b.Created.Compare(a.Created) })
	if in.Max > 0 && len(out) > in.Max {
		out = out[:in.Max]
	}
	if in.Masked && req.Caller.Operator {
		return ListResponse{Response: Response{Status: StatusOK}, Memories: out, Hidden: hidden, Damaged: damaged}
	}
	e := vault.AuditEntry{Action: vault.ActionList, Agent: req.Caller.Name(), Session: req.Caller.Session, Field: in.Field, Result: vault.ResultOK, Count: len(out)}
	if slices.ContainsFunc(out, func(m Memory) bool { return m.Sensitive() }) {
		// A listing that shows sensitive memories is an L3 access: its
		// entry names the partition, is kept as long, and is committed
		// before the answer (vault.Audit commits other reads later).
		e.Partition = vault.Sensitive
	}
	if err := s.v.Audit(e); err != nil {
		return ListResponse{Response: s.fail("list", err)}
	}
	return ListResponse{Response: Response{Status: StatusOK}, Memories: out, Hidden: hidden, Damaged: damaged}
}

// History answers "why do you believe this?": provenance and versions.
func (s *Service) History(ctx context.Context, req Request, id string) HistoryResponse {
	return s.rd.History(ctx, req, id)
}

// History is Service.History's work.
func (s *reading) History(ctx context.Context, req Request, id string) HistoryResponse {
	got := s.get(req, id)
	if !got.OK() {
		return HistoryResponse{Response: got.Response}
	}
	vers, err := s.v.History(id, req.actor())
	if err != nil {
		return HistoryResponse{Response: s.fail("history", err)}
	}
	return HistoryResponse{Response: Response{Status: StatusOK}, Memory: got.Memory, Versions: vers}
}

// Audit returns audit entries. Only the operator reads the log.
func (s *Service) Audit(ctx context.Context, req Request, in AuditInput) AuditResponse {
	return s.rd.Audit(ctx, req, in)
}

// Audit is Service.Audit's work.
func (s *reading) Audit(ctx context.Context, req Request, in AuditInput) AuditResponse {
	if r, ok := s.operatorGate(req); !ok {
		return AuditResponse{Response: r}
	}
	es, err := s.v.AuditLog(vault.AuditFilter{Agent: in.Agent, Field: in.Field, Last: in.Last, Since: in.Since})
	if err != nil {
		return AuditResponse{Response: s.fail("audit", err)}
	}
	return AuditResponse{Response: Response{Status: StatusOK}, Entries: es}
}
