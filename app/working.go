package app

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
	"github.com/google/uuid"
)

// TierWorking is working memory: notes an agent keeps for one session.
// They live in this process only, are never written to the vault, and are
// gone when the session ends (or Engram stops).
const TierWorking Tier = "working"

// MaxWorkingMemories bounds one session's working memory.
const MaxWorkingMemories = 200

// PartitionWorking labels working memories in recall results.
const PartitionWorking Partition = "working"

type workingNote struct {
	id      string
	content string
	created time.Time
}

// storeWorking keeps a note in the caller's session. Secrets are redacted
// even here, and hostile content is refused like any write.
func (s *writer) storeWorking(req Request, in StoreInput) MemoryResponse {
	if req.Caller.Session == "" {
		return MemoryResponse{Response: Response{StatusInvalid, "working memory needs a session (the Engram-Session header, or an MCP session)"}}
	}
	if why := s.sessionDisabled(req.Caller); why != "" {
		return MemoryResponse{Response: Response{StatusRejected, why}}
	}
	a := s.admit(req, policy.Proposal{Confirmed: in.Confirmed, Memory: vault.Memory{Content: in.Content, Kind: orDefault(in.Kind, vault.Fact),
		Field: orDefault(in.Field, vault.Learnings), Tier: TierWorking, Partition: vault.Internal, Source: in.Source}})
	if a.Outcome == policy.Queued {
		// Working notes are read back in the session at once: what would
		// wait for review is refused instead.
		a.Outcome, a.Why = policy.Refused, "the working note was refused by the write guard ("+a.QueueReason+"; "+strings.Join(a.Result.Reasons, "; ")+")"
	}
	if a.Outcome != policy.Admitted {
		return MemoryResponse{Response: s.settle(req, a)}
	}
	content, _ := vault.Truncate(a.Memory.Content)
	note := workingNote{id: "working-" + uuid.NewString(), content: content, created: s.now().UTC()}
	s.sessions.update(req.Caller, func(st *session) {
		if len(st.working) >= MaxWorkingMemories {
			st.working = st.working[1:] // the oldest note goes first
		}
		st.working = append(st.working, note)
	})
	m := &vault.Memory{ID: note.id, Content: note.content, Tier: TierWorking, Partition: PartitionWorking, Owner: req.Caller.Name(), Created: note.created}
	var warnings []string
	if a.SecretTypes != "" {
		warnings = append(warnings, "secrets were redacted")
	}
	return MemoryResponse{Response: Response{Status: StatusOK, Message: "kept for this session only"}, Memory: m, Warnings: warnings}
}

// recallWorking returns the caller's session notes that share a term with
// the query, newest first.
func (s *writer) recallWorking(req Request, query string) []RecallResult {
	if req.Caller.Session == "" {
		return nil
	}
	terms := recall.Terms(nil, query)
	var notes []workingNote
	s.sessions.read(req.Caller, func(st *session) { notes = slices.Clone(st.working) })
	var out []RecallResult
	for _, n := range slices.Backward(notes) {
		words := recall.Terms(nil, n.content)
		hits := 0
		for _, t := range terms {
			if slices.Contains(words, t) {
				hits++
			}
		}
		if hits == 0 {
			continue
		}
		out = append(out, RecallResult{ID: n.id, Content: n.content, Score: float64(hits) / float64(len(terms)), Partition: PartitionWorking,
			Trust: vault.TrustStandard, Confidence: 1, Source: Source{Type: vault.SourceAIInference, AgentID: req.Caller.Agent, SessionID: req.Caller.Session}, Created: n.created})
	}
	return out
}

func workingContext(rs []RecallResult) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "[working memory, this session] %s\n", r.Content)
	}
	return b.String()
}
