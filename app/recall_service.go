package app

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

// RecallMode selects keyword, vector or hybrid search.
type RecallMode = recall.Mode

// RecallFilters narrow a recall.
type RecallFilters = recall.Filters

// RecallInput is a recall request.
type RecallInput struct {
	Query string     `json:"query"`
	Limit int        `json:"limit,omitempty"`
	Mode  RecallMode `json:"mode,omitempty"` // hybrid (default), semantic or exact
	// Filters: partitions, tiers, kinds, fields, tags, min confidence,
	// date range, archived.
	Filters RecallFilters `json:"filters,omitzero"`
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

// vectorBatch is how many texts are embedded at once when (re)building
// the index.
const vectorBatch = 32

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
	return s.recallFor(ctx, req, in, false)
}

// Search is Recall for the user's search (the desktop and the CLI): the
// same read rules, ranking and relevance floor, without the per-recall
// limits, which are for a model's context. Every memory above the floor
// is returned, up to in.Limit when positive (0: all, from at least the
// recall.UnlimitedCandidates best of each index), and Total counts them.
func (s *Service) Search(ctx context.Context, req Request, in RecallInput) RecallResponse {
	return s.recallFor(ctx, req, in, true)
}

// recallFor is Recall, or Search when unlimited.
func (s *Service) recallFor(ctx context.Context, req Request, in RecallInput, unlimited bool) RecallResponse {
	if r, ok := s.gate(req); !ok {
		return RecallResponse{Response: r}
	}
	if r := ValidateRecallInput(in); !r.OK() {
		return RecallResponse{Response: r}
	}
	if s.recall == nil {
		return RecallResponse{Response: Response{StatusUnavailable, "recall is not enabled"}}
	}
	if err := s.WaitIndexed(ctx); err != nil {
		return RecallResponse{Response: Response{StatusUnavailable, "the recall index could not be built; see the log"}}
	}
	mode, err := recall.ParseMode(string(in.Mode))
	if err != nil {
		return RecallResponse{Response: Response{StatusInvalid, err.Error()}}
	}
	status := s.RecallStatus()
	if mode == recall.Semantic && !status.Semantic {
		return RecallResponse{Response: Response{StatusUnavailable, "recall by meaning is off (" + status.KeywordOnly + "): ask again with mode hybrid or exact"}, KeywordOnly: status.KeywordOnly}
	}
	if in.Limit < 0 {
		return RecallResponse{Response: Response{StatusInvalid, "invalid: negative limit"}}
	}
	s.syncSensitive(ctx)
	canRead := s.reader(req.Caller)
	now := s.now()
	res, err := s.recall.Search(ctx, recall.Query{
		Text: in.Query, Mode: mode, Filters: in.Filters, Limit: in.Limit, Now: now, Floor: true, Reader: labelReader(req.Caller), Unlimited: unlimited,
		Allow: func(d *recall.Doc) bool {
			return canRead(vault.Info{Partition: d.Partition, Sealed: d.Sensitive, Owner: d.Owner, Field: d.Field, Product: d.Product})
		},
	})
	if err != nil {
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
	if err := s.v.Audit(vault.AuditEntry{Action: vault.ActionList, Agent: req.Caller.Name(), Session: req.Caller.Session, Result: vault.ResultOK, Reason: "recall (" + string(mode) + ")", Count: len(out)}); err != nil {
		return RecallResponse{Response: s.fail("recall", err)}
	}
	ids := make([]string, len(out))
	for i := range out {
		ids[i] = out[i].ID
	}
	s.recordAccess(ids, now)
	if working := s.recallWorking(req, in.Query); len(working) > 0 {
		out = append(working, out...)
		res.Context = workingContext(working) + res.Context
	}
	resp := RecallResponse{Response: Response{Status: StatusOK}, Results: out, Context: res.Context, Total: len(res.Hits) + res.Dropped, BelowFloor: res.BelowFloor, Unheard: res.Unheard}
	if mode != recall.Exact {
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
	st := s.recallStatus
	if s.recall == nil {
		return RecallStatus{KeywordOnly: "recall is not enabled"}
	}
	emb := s.recall.Config().Embedder
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

// Similarity returns the cosine similarity of two memories' embeddings,
// for duplicate and conflict detection; ok is false when recall is off or
// either memory has no vector (sensitive memories never have one). It
// applies no read rule: callers inside app decide what to do with it.
func (s *Service) Similarity(a, b string) (sim float32, ok bool) {
	if s.recall == nil {
		return 0, false
	}
	return s.recall.Similarity(a, b)
}

// syncSensitive keeps sensitive memories in the index only while the
// vault is unlocked: it drops them once it is locked and loads them again
// after it is unlocked.
func (s *Service) syncSensitive(ctx context.Context) {
	s.recallMu.Lock()
	defer s.recallMu.Unlock()
	locked := s.v.Locked()
	switch {
	case locked && s.sensitiveIndexed:
		s.recall.RemoveSensitive()
		s.sensitiveIndexed = false
	case !locked && !s.sensitiveIndexed:
		mems, _, err := s.v.List(vault.ListFilter{Partitions: []Partition{vault.Sensitive, vault.Archive}, OnDamaged: s.skipDamaged})
		if err != nil {
			s.log.Error("recall: load sensitive memories", "err", err)
			return
		}
		for i := range mems {
			if mems[i].Sensitive() {
				_ = s.recall.Put(docOf(&mems[i]), nil)
			}
		}
		s.sensitiveIndexed = true
	}
}

// Reindex rebuilds the recall index from the vault: every memory it can
// read (sensitive ones only while unlocked). It returns once every memory
// is in the index by keyword, and recall works from then on. The vectors
// stored in the vault that match a memory's content and the embedder are
// then loaded in the background, stale ones deleted, and the memories
// left without a vector embedded, most recently used first (see
// EmbedProgress and WaitEmbedded); this stops any earlier such run. A
// service without recall does nothing.
func (s *Service) Reindex(ctx context.Context) error {
	if s.v == nil || s.recall == nil {
		return nil
	}
	s.stopEmbedding(false)
	s.recallMu.Lock()
	defer s.recallMu.Unlock()
	model := s.recall.Model()
	// Memories are tokenised on the other cores while the vault decodes
	// the next ones.
	load := s.recall.NewLoader()
	var todo []toEmbed
	_, err := s.v.Each(vault.ListFilter{Partitions: []Partition{vault.Public, vault.Internal, vault.Sensitive, vault.Archive}, OnDamaged: s.skipDamaged}, func(m *Memory) error {
		load.Add(docOf(m), nil)
		if !m.Sensitive() && model != "" {
			todo = append(todo, toEmbed{id: m.ID, content: m.Content, hash: m.ContentHash, accessed: m.Accessed})
		}
		return nil
	})
	if err != nil {
		load.Discard()
		return err
	}
	if err := load.Done(); err != nil {
		return err
	}
	s.sensitiveIndexed = !s.v.Locked()
	s.startEmbedding(model, todo)
	return nil
}

// attachStored gives the memories in todo their vectors stored in the
// vault, where they match the model and the memory's content, deletes
// the stale ones, and returns the memories left to embed.
func (s *Service) attachStored(ctx context.Context, model string, todo []toEmbed) ([]toEmbed, error) {
	type stored struct {
		hash string
		vec  []float32
	}
	blobs := map[string]stored{}
	stale, err := s.v.Vectors(func(id string, blob []byte) error {
		hash, v, ok, err := recall.DecodeVectorOf(blob, model)
		switch {
		case err != nil:
			s.log.Warn("recall: damaged vector, embedding again", "id", id)
		case ok:
			blobs[id] = stored{hash, v}
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	if len(stale) > 0 && !s.v.ReadOnly() {
		if err := s.v.DeleteVectors(stale...); err != nil {
			return nil, err
		}
	}
	// In slices, so that recalls are not held up behind one long lock.
	const slice = 8192
	var found []recall.DocVector
	missing := todo[:0]
	for i, m := range todo {
		if b, ok := blobs[m.id]; ok && b.hash == m.hash {
			found = append(found, recall.DocVector{ID: m.id, Content: m.content, Vec: b.vec})
		} else {
			// Without a stored vector; one whose memory changed since
			// the index was read has been embedded by that write.
			missing = append(missing, m)
		}
		if len(found) == slice || i == len(todo)-1 {
			s.recall.SetVectors(found)
			found = found[:0]
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	return missing, nil
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

// index brings memory m into the recall index after a write, or takes a
// sensitive memory's vector out. A memory whose text has no vector yet is
// indexed by keyword at once and gets its vector in the background
// (embedqueue.go). Failures leave the memory findable by keyword and are
// logged: the write itself succeeded.
func (s *Service) index(ctx context.Context, m *Memory) {
	if s.recall == nil {
		return
	}
	d := docOf(m)
	var vec []float32
	later := false
	switch {
	case d.Sensitive:
		if s.recall.HasVector(m.ID) {
			if err := s.v.DeleteVectors(m.ID); err != nil {
				s.log.Error("recall: delete vector", "err", err)
			}
		}
	case s.recall.Model() == "":
	default:
		if vec = s.recall.VectorFor(m.ID, m.Content); vec != nil {
			break
		}
		later = true
	}
	// Under recallMu, so a concurrent Reindex cannot reset the index after
	// this Put with a list of memories taken before this write.
	s.recallMu.Lock()
	if err := s.recall.Put(d, vec); err != nil {
		s.log.Error("recall: index", "err", err)
	}
	s.recallMu.Unlock()
	if later {
		s.queueEmbed(m)
	}
}

// unindex removes a deleted memory from the recall index and its vector
// from the vault.
func (s *Service) unindex(id string) {
	if s.recall == nil {
		return
	}
	s.recallMu.Lock()
	s.recall.Remove(id)
	s.recallMu.Unlock()
	if err := s.v.DeleteVectors(id); err != nil {
		s.log.Error("recall: delete vector", "err", err)
	}
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
