package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/vault"
)

// checkTags normalises tags and refuses what a label should not be:
// too many or too long tags, or tags holding a secret, personal data or
// (from an agent) instructions. Tags are stored in plaintext and shown
// with recall results, so without this they would be a way around the
// write guard.
func (s *writer) checkTags(req Request, tags []string) ([]string, Response) {
	out := normaliseTags(tags)
	if len(out) > maxTags {
		return nil, Response{StatusInvalid, fmt.Sprintf("invalid: at most %d tags", maxTags)}
	}
	for _, t := range out {
		if utf8.RuneCountInString(t) > maxTagLen {
			return nil, Response{StatusInvalid, fmt.Sprintf("invalid: a tag is longer than %d characters", maxTagLen)}
		}
	}
	if len(out) == 0 {
		return out, Response{Status: StatusOK}
	}
	// As given: lower-cased, a key like AKIA… no longer looks like one.
	if bad := s.pol.Clean(strings.Join(tags, " "), vault.SourceAIInference, !req.Caller.Operator); bad != "" {
		bad, _, _ = strings.Cut(bad, " (") // the reasons name the words, which a label need not
		return nil, Response{StatusInvalid, "invalid: tags may not hold " + bad}
	}
	return out, Response{Status: StatusOK}
}

func normaliseTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// Update changes a memory as a new version. New content is admitted as a
// new memory's is (see admit), before the vault's transaction; the change
// then applies only if the memory is still the version that was judged
// (else it is judged again).
func (s *Service) Update(ctx context.Context, req Request, id string, in UpdateInput) MemoryResponse {
	return s.w.Update(ctx, req, id, in)
}

// Update is Service.Update's work.
func (s *writer) Update(ctx context.Context, req Request, id string, in UpdateInput) MemoryResponse {
	op := orDefault(in.Operation, vault.OpUpdate)
	if r, ok := s.gate(req); !ok {
		return MemoryResponse{Response: r}
	}
	if r := ValidateUpdateInput(in); !r.OK() {
		return MemoryResponse{Response: r}
	}
	if why := s.sessionDisabled(req.Caller); !req.Caller.Operator && why != "" {
		return MemoryResponse{Response: Response{StatusRejected, why}}
	}
	switch op {
	case vault.OpTag:
		// Tags do not depend on the memory: checked before the transaction.
		tags, r := s.checkTags(req, in.Tags)
		if !r.OK() {
			return MemoryResponse{Response: r}
		}
		return s.apply(req, id, op, in.IfVersion, nil, func(m *vault.Memory) error {
			m.Tags = tags
			return nil
		})
	case vault.OpReclassify:
		if in.Partition == nil {
			return MemoryResponse{Response: Response{StatusInvalid, "invalid: reclassify needs a partition"}}
		}
		return s.apply(req, id, op, in.IfVersion, nil, func(m *vault.Memory) error {
			if !req.Caller.Operator {
				// An agent's request is classified as a new memory's is.
				asked := *m
				asked.Partition = *in.Partition
				p, why := policy.Classify(asked, false, false)
				if why != "" {
					return fmt.Errorf("%w: %s", vault.ErrInvalid, strings.TrimPrefix(why, "invalid: "))
				}
				m.Partition = p
				return nil
			}
			m.Partition = *in.Partition
			return nil
		})
	case vault.OpUpdate:
	default:
		return MemoryResponse{Response: Response{StatusInvalid, fmt.Sprintf("invalid: operation %q", op)}}
	}
	if in.Content == nil && in.Expires != "" {
		return s.updateExpiry(ctx, req, id, in)
	}
	if in.Content == nil {
		return MemoryResponse{Response: Response{StatusInvalid, "invalid: an update needs new content"}}
	}
	for range 3 {
		if r := s.check(req, id, vault.ActionUpdate, policy.CanWrite); !r.OK() {
			return MemoryResponse{Response: r}
		}
		cur, err := s.v.Peek(id)
		if err != nil {
			return MemoryResponse{Response: s.fail("update", err)}
		}
		a := s.admit(req, policy.Proposal{Memory: vault.Memory{Content: *in.Content}, Existing: &cur, Confirmed: in.Confirmed})
		if a.Outcome != policy.Admitted {
			return MemoryResponse{Response: s.settle(req, a)}
		}
		moved := false
		var facts []vault.AuditEntry // committed with the change
		if a.SecretTypes != "" {
			facts = append(facts, vault.AuditEntry{Action: vault.ActionSecretRedacted, Agent: req.Caller.Name(), Session: req.Caller.Session,
				Field: cur.Field, ContentHash: s.fingerprint(*in.Content), Result: vault.ResultOK, Reason: a.SecretTypes, Redactions: policy.Redactions(a.Result.Findings)})
		}
		r := s.apply(req, id, op, in.IfVersion, facts, func(m *vault.Memory) error {
			if m.Version != cur.Version {
				moved = true
				return errMoved
			}
			m.Content, m.Tier, m.Partition, m.Trust = a.Memory.Content, a.Memory.Tier, a.Memory.Partition, a.Memory.Trust
			if in.Expires != "" {
				exp, r := s.expiryFor(req, *m, in.Expires)
				if !r.OK() {
					return fmt.Errorf("%w: %s", vault.ErrInvalid, strings.TrimPrefix(r.Message, "invalid: "))
				}
				m.Expires = exp
			}
			return nil
		})
		if moved {
			continue // changed meanwhile: judge the change against the new version
		}
		if r.OK() {
			r.Warnings = append(r.Warnings, a.Warnings...)
		}
		return r
	}
	return MemoryResponse{Response: Response{StatusConflict, "the memory kept changing while the update was checked; try again"}}
}

// SetPinned pins or unpins a memory.
func (s *Service) SetPinned(ctx context.Context, req Request, id string, pinned bool) MemoryResponse {
	return s.w.SetPinned(ctx, req, id, pinned)
}

// SetPinned is Service.SetPinned's work.
func (s *writer) SetPinned(ctx context.Context, req Request, id string, pinned bool) MemoryResponse {
	return s.change(ctx, req, id, vault.OpPin, 0, func(m *vault.Memory) error {
		m.Pinned = pinned
		return nil
	})
}

// change applies fn to memory id as a new version, for a request not yet
// gated (see apply).
func (s *writer) change(ctx context.Context, req Request, id string, op vault.Operation, ifVersion int, fn func(m *vault.Memory) error) MemoryResponse {
	if r, ok := s.gate(req); !ok {
		return MemoryResponse{Response: r}
	}
	if why := s.sessionDisabled(req.Caller); !req.Caller.Operator && why != "" {
		return MemoryResponse{Response: Response{StatusRejected, why}}
	}
	return s.apply(req, id, op, ifVersion, nil, fn)
}

// apply applies fn to memory id as a new version, with facts (audit
// entries) committed with it, for a request already gated: the write
// rule is decided again inside the vault's transaction, where nothing can
// change the memory under it.
func (s *writer) apply(req Request, id string, op vault.Operation, ifVersion int, facts []vault.AuditEntry, fn func(m *vault.Memory) error) MemoryResponse {
	a := req.actor()
	a.IfVersion, a.Audit = ifVersion, facts
	var denied bool
	m, err := s.v.Update(id, op, a, func(m *vault.Memory) error {
		if !policy.CanWrite(req.Caller, policy.InfoOf(m)) {
			denied = true
			return errDenied
		}
		return fn(m)
	})
	if denied {
		return MemoryResponse{Response: s.deny(req, vault.ActionUpdate, id, "", "this memory belongs to another agent")}
	}
	if err != nil {
		return MemoryResponse{Response: s.fail("update", err)}
	}
	s.idx.Put(&m)
	return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &m}
}

// Rollback restores version to of a memory as a new version.
func (s *Service) Rollback(ctx context.Context, req Request, id string, to int) MemoryResponse {
	return s.w.Rollback(ctx, req, id, to)
}

// Rollback is Service.Rollback's work.
func (s *writer) Rollback(ctx context.Context, req Request, id string, to int) MemoryResponse {
	if r, ok := s.gate(req); !ok {
		return MemoryResponse{Response: r}
	}
	if r := s.check(req, id, vault.ActionRollback, policy.CanWrite); !r.OK() {
		return MemoryResponse{Response: r}
	}
	m, err := s.v.Rollback(id, to, req.actor())
	if err != nil {
		return MemoryResponse{Response: s.fail("rollback", err)}
	}
	s.idx.Put(&m)
	return MemoryResponse{Response: Response{Status: StatusOK}, Memory: &m}
}

// Delete removes a memory and its versions.
func (s *Service) Delete(ctx context.Context, req Request, id string) Response {
	return s.w.Delete(ctx, req, id)
}

// Delete is Service.Delete's work.
func (s *writer) Delete(ctx context.Context, req Request, id string) Response {
	if r, ok := s.gate(req); !ok {
		return r
	}
	if r := s.check(req, id, vault.ActionDelete, policy.CanWrite); !r.OK() {
		return r
	}
	if err := s.v.Delete(id, req.actor()); err != nil {
		return s.fail("delete", err)
	}
	s.idx.Remove(id)
	return Response{Status: StatusOK}
}
