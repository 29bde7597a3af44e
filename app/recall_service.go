package app

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/app/upkeep"
	"github.com/engram-app/engram/vault"
)

// RecallMode selects keyword, vector or hybrid search.
type RecallMode = recall.Mode

// RecallFilters narrow a recall.
type RecallFilters = recall.Filters

// RecallInput is a recall request. The jsonschema tags are the
// descriptions the MCP tool recall_memory gives models, as for
// StoreInput (the filters' own are set by package mcpserver).
type RecallInput struct {
	Query string     `json:"query" jsonschema:"what you want to know, as a question or a few words (for example: which package manager does this project use)"`
	Limit int        `json:"limit,omitempty" jsonschema:"the most memories to return"`
	Mode  RecallMode `json:"mode,omitempty" jsonschema:"hybrid (default: by keywords and by meaning), semantic (by meaning only) or exact (by keywords only)"` // hybrid (default), semantic or exact
	// Filters: partitions, tiers, kinds, fields, tags, min confidence,
	// date range, archived.
	Filters RecallFilters `json:"filters,omitzero" jsonschema:"optional; every filter given must match"`
}

// RecallResult is one recalled memory.
type RecallResult struct {
	ID        string      `json:"id"`
	Content   string      `json:"content"`
	Score     float64     `json:"score"`
	Partition Partition   `json:"partition"`
	Trust     vault.Trust `json:"trust"`
	// Confidence is the memory's confidence now, decayed and boosted by
	// the lifecycle rules (see CurrentConfidence), as recall ranked it.
	Confidence float64   `json:"confidence"`
	Source     Source    `json:"source"`
	Created    time.Time `json:"created"`
	// Questioned is the reason of the user's standing question, if any.
	Questioned string `json:"questioned,omitempty"`
}

// RecallResponse returns the recalled memories, best first, and the same
// memories as a context block for a model. BelowFloor counts the matches
// left out by the relevance floor; when no memory passed it (none matched
// at all, or all too weakly), Message says so.
type RecallResponse struct {
	Response
	Results []RecallResult `json:"results"`
	Context string         `json:"context,omitempty"`
	// Total counts the memories above the relevance floor among the
	// candidates each index offers (100 for Recall, at least 1,000 for
	// Search), of which Results holds the best up to the limits (the
	// working memory's entries are not counted).
	Total      int `json:"total,omitempty"`
	BelowFloor int `json:"below_floor,omitempty"`
	// Unheard are the names in the query that no memory the caller may
	// read mentions (recall.Result.Unheard); with no results, Message
	// names them.
	Unheard []string `json:"unheard,omitempty"`
	// KeywordOnly is set when the query asked for meaning (hybrid, the
	// default) but recall could match keywords only: it says why, e.g.
	// the embedding model is not installed (RecallStatus.KeywordOnly).
	KeywordOnly string `json:"keyword_only,omitempty"`
}

// NothingPassedFloor begins the message of a recall whose every match
// fell below the relevance floor: nothing Engram holds answers the query.
// The message goes on to name the query's unheard names, if any.
const NothingPassedFloor = "nothing passed the relevance floor: no memory matches the query closely enough"

// Recall finds the memories that answer a natural-language query, under
// the same read rules as Get: an agent never sees another agent's internal
// memories or any sensitive one; the operator sees all, sensitive ones
// only while the vault is unlocked. Results are cut to the engine's
// limits (10 episodic, 20 semantic, 4,000 tokens by default) and to the
// engine's relevance floor for the mode (recall.DefaultFloors), so a query
// about nothing the vault holds returns nothing rather than the nearest
// unrelated memories; the response then says so. Nothing the caller may
// not read shapes the answer: the keyword statistics behind the scores,
// the floor and the unheard names count only the memories it may read
// (recall.Engine.Search). The recall is audited with the number of
// results; each sensitive result is audited as an L3 access.
func (s *Service) Recall(ctx context.Context, req Request, in RecallInput) RecallResponse {
	return s.rd.Recall(ctx, req, in)
}

// Recall is Service.Recall's work.
func (s *reading) Recall(ctx context.Context, req Request, in RecallInput) RecallResponse {
	return s.recallFor(ctx, req, in, false)
}

// Search is Recall for the user's search (the desktop and the CLI): the
// same read rules, ranking and relevance floor, without the per-recall
// limits, which are for a model's context. Every memory above the floor
// is returned, up to in.Limit when positive (0: all, from at least the
// recall.UnlimitedCandidates best of each index), and Total counts them.
func (s *Service) Search(ctx context.Context, req Request, in RecallInput) RecallResponse {
	return s.rd.Search(ctx, req, in)
}

// Search is Service.Search's work.
func (s *reading) Search(ctx context.Context, req Request, in RecallInput) RecallResponse {
	return s.recallFor(ctx, req, in, true)
}

// recallFor is Recall, or Search when unlimited.
func (s *reading) recallFor(ctx context.Context, req Request, in RecallInput, unlimited bool) RecallResponse {
	if r, ok := s.gate(req); !ok {
		return RecallResponse{Response: r}
	}
	if r := ValidateRecallInput(in); !r.OK() {
		return RecallResponse{Response: r}
	}
	if !s.idx.Enabled() {
		return RecallResponse{Response: Response{StatusUnavailable, "recall is not enabled"}}
	}
	if err := s.idx.WaitBuilt(ctx); err != nil {
		return RecallResponse{Response: Response{StatusUnavailable, "the recall index could not be built; see the log"}}
	}
	status := s.RecallStatus()
	if in.Limit < 0 {
		return RecallResponse{Response: Response{StatusInvalid, "invalid: negative limit"}}
	}
	s.idx.SyncSensitive()
	canRead := s.reader(req.Caller)
	now := s.now()
	// The engine parses the mode (the one place it is read): an unknown
	// one is the caller's error, semantic without a model is unavailable.
	res, err := s.idx.Engine().Search(ctx, recall.Query{
		Text: in.Query, Mode: in.Mode, Filters: in.Filters, Limit: in.Limit, Now: now, Floor: true, Reader: labelReader(req.Caller), Unlimited: unlimited,
		Allow: func(d *recall.Doc) bool {
			return canRead(vault.Info{Partition: d.Partition, Sealed: d.Sensitive, Owner: d.Owner, Field: d.Field, Product: d.Product})
		},
	})
	switch {
	case errors.Is(err, recall.ErrMode):
		return RecallResponse{Response: Response{StatusInvalid, err.Error()}}
	case errors.Is(err, recall.ErrNoEmbedder):
		return RecallResponse{Response: Response{StatusUnavailable, "recall by meaning is off (" + status.KeywordOnly + "): ask again with mode hybrid or exact"}, KeywordOnly: status.KeywordOnly}
	case err != nil:
		s.log.Error("recall", "err", err)
		return RecallResponse{Response: Response{StatusUnavailable, "recall could not complete the request"}}
	}
	out := make([]RecallResult, len(res.Hits))
	for i, h := range res.Hits {
		d := h.Doc
		out[i] = RecallResult{ID: d.ID, Content: d.Content, Score: h.Score, Partition: d.Partition, Trust: d.Trust, Confidence: d.ConfidenceAt(now), Source: d.Source, Created: d.Created, Questioned: d.Questioned}
		if d.Sensitive {
			s.audit(req, vault.AuditEntry{Action: vault.ActionL3Access, MemoryID: d.ID, Field: d.Field, Partition: d.Partition, Result: vault.ResultOK, Reason: "recall"})
		}
	}
	if err := s.v.Audit(vault.AuditEntry{Action: vault.ActionList, Agent: req.Caller.Name(), Session: req.Caller.Session, Result: vault.ResultOK, Reason: "recall (" + string(res.Mode) + ")", Count: len(out)}); err != nil {
		return RecallResponse{Response: s.fail("recall", err)}
	}
	ids := make([]string, len(out))
	for i := range out {
		ids[i] = out[i].ID
	}
	s.access.Record(ids, now)
	if working := s.working(req, in.Query); len(working) > 0 {
		out = append(working, out...)
		res.Context = workingContext(working) + res.Context
	}
	resp := RecallResponse{Response: Response{Status: StatusOK}, Results: out, Context: res.Context, Total: len(res.Hits) + res.Dropped, BelowFloor: res.BelowFloor, Unheard: res.Unheard}
	if res.Mode != recall.Exact {
		resp.KeywordOnly = status.KeywordOnly
	}
	if len(res.Hits) == 0 && len(recall.Terms(nil, in.Query)) > 0 {
		resp.Message = NothingPassedFloor
		if len(res.Unheard) > 0 {
			resp.Message += "; no memory you may read mentions " + quoteList(res.Unheard)
		}
	}
	return resp
}

// RecallStatus says whether recall finds memories by meaning, with which
// model (as Options.RecallStatus described it), or why by keywords alone.
func (s *Service) RecallStatus() RecallStatus {
	return s.rd.RecallStatus()
}

// RecallStatus is Service.RecallStatus's work.
func (s *reading) RecallStatus() RecallStatus {
	st := s.recallStatus
	if s.idx == nil || !s.idx.Enabled() {
		return RecallStatus{KeywordOnly: "recall is not enabled"}
	}
	emb := s.idx.Engine().Config().Embedder
	switch {
	case emb == nil:
		st.Semantic, st.Verified = false, false
		if st.KeywordOnly == "" {
			st.KeywordOnly = "no embedding model is configured"
		}
	default:
		st.Semantic, st.KeywordOnly = true, ""
		if st.Model == "" {
			st.Model = emb.Name()
		}
	}
	return st
}

// labelReader is the agent a recall's context block is labelled for: its own
// memories read as its own. The user reads every memory by its author.
func labelReader(c Caller) string {
	if c.Operator {
		return ""
	}
	return c.Agent
}

// docOf is m as the recall index keeps it, with what the lifecycle rules
// need to compute its confidence at the time of each query (recordOf):
// the user's last confirmation and the boosts since.
func docOf(m *Memory) recall.Doc {
	d := recall.DocOf(m)
	r := recordOf(m)
	d.Confirmed, d.Verifications, d.Observations = r.Confirmed, r.Verifications, r.Observations
	if why, ok := QuestionedBy(m); ok {
		d.Confidence, d.Questioned = r.Initial, why
	}
	return d
}

// quoteList writes names as "A", "B" and "C".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// EmbedProgress is an alias of upkeep.EmbedProgress: the progress of the
// background embedding of memories without a vector.
type EmbedProgress = upkeep.EmbedProgress

// EmbedProgress returns the progress of the background embedding. The
// desktop app and the CLI poll it; Done reaching Total with Running false
// means every memory that can have a vector has one.
func (s *Service) EmbedProgress() EmbedProgress {
	return s.rd.EmbedProgress()
}

// EmbedProgress is Service.EmbedProgress's work.
func (s *reading) EmbedProgress() EmbedProgress {
	if s.idx == nil {
		return EmbedProgress{}
	}
	return s.idx.Progress()
}

// WaitEmbedded waits until the first index build is done and the
// background embedding it started has finished, and returns the
// embedding's error, if any.
func (s *Service) WaitEmbedded(ctx context.Context) error {
	return s.rd.WaitEmbedded(ctx)
}

// WaitEmbedded is Service.WaitEmbedded's work.
func (s *reading) WaitEmbedded(ctx context.Context) error {
	if s.idx == nil {
		return nil
	}
	return s.idx.WaitEmbedded(ctx)
}

// WaitVectors waits until every memory written so far has its vector,
// indexed and stored (or failed to get one), or ctx ends.
func (s *Service) WaitVectors(ctx context.Context) error {
	return s.rd.WaitVectors(ctx)
}

// WaitVectors is Service.WaitVectors's work.
func (s *reading) WaitVectors(ctx context.Context) error {
	if s.idx == nil {
		return nil
	}
	return s.idx.WaitVectors(ctx)
}
