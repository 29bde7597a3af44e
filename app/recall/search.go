package recall

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/engram-app/engram/vault"
)

// Filters narrow a query. Zero fields match everything; list fields match
// any of their values.
type Filters struct {
	Partitions []vault.Partition `json:"partitions,omitempty"`
	Tiers      []vault.Tier      `json:"tiers,omitempty"`
	Kinds      []vault.Kind      `json:"kinds,omitempty"`
	Fields     []vault.Field     `json:"fields,omitempty"`
	Trusts     []vault.Trust     `json:"trusts,omitempty"`
	// Tags match a memory with at least one of them.
	Tags          []string `json:"tags,omitempty"`
	MinConfidence float64  `json:"min_confidence,omitempty"`
	// After and Before bound the creation time (After inclusive, Before
	// exclusive).
	After  time.Time `json:"after,omitzero"`
	Before time.Time `json:"before,omitzero"`
	// IncludeArchived includes archived memories, which are otherwise
	// left out (naming the archive partition includes them too).
	IncludeArchived bool `json:"include_archived,omitempty"`
}

func anyOf[T comparable](list []T, v T) bool { return len(list) == 0 || slices.Contains(list, v) }

// Match reports whether d passes the filters at now (MinConfidence is
// compared with d's confidence at now).
func (f *Filters) Match(d *Doc, now time.Time) bool {
	k := classOf(d)
	return f.matchClass(&k) && f.matchDoc(d, now)
}

// Query is one recall.
type Query struct {
	Text    string
	Mode    Mode // "" is Hybrid
	Filters Filters
	// Limit caps the number of results below the engine's limits; 0 means
	// only the engine's limits apply.
	Limit int
	// Unlimited lifts the per-recall limits (Config.MaxEpisodic,
	// MaxSemantic, MaxTokens), which are for a model's context: every
	// memory above the floor is returned, up to Limit, from at least
	// UnlimitedCandidates of each index. The user's search asks for it.
	Unlimited bool
	// Now is the time recency and confidence are measured at; zero means
	// time.Now.
	Now time.Time
	// Reader is the agent the context block is for (Result.Context): its
	// own memories are labelled as its own (LabelFor). Empty for the user.
	Reader string
	// Allow is the read rule: documents it refuses are never returned,
	// and nothing of them shapes the answer (see Search). Nil allows
	// everything. It decides from a document's class: its Partition,
	// Owner, Product, Field, Tier, Kind, Trust and Sensitive, the only
	// fields set in the Doc it is given. A search asks it once about each
	// class of document in the index, before looking at any.
	Allow func(*Doc) bool
	// Vector, when set, is the query's embedding, so the engine does not
	// embed Text (benchmarks, or a caller that batches queries). It may
	// also be a memory's vectors as EmbedDocs returns them, one per chunk:
	// their mean is then the query. The engine does not change it.
	Vector []float32
	// Floor applies the engine's relevance floor for the mode
	// (Config.Floors): a memory that matches too little of the query, by
	// keyword and by meaning, is left out, so a query about nothing the
	// vault holds returns nothing. The memory service's Recall sets it
	// for every caller; internal searches (the duplicate check) do not.
	Floor bool
	// MaxTerms, when positive, scores only that many of the query's
	// distinct terms, the ones the fewest memories contain. A whole memory
	// as the query (the duplicate check) then costs a handful of short
	// posting lists instead of every list its common words have; its
	// near duplicates share its rare words.
	MaxTerms int
}

// Hit is one recalled memory.
type Hit struct {
	// Doc is the memory as the engine holds it, shared with the engine and
	// with other searches: read it, never change it. The engine never
	// changes a document it holds either; Put replaces it.
	Doc *Doc
	// Score is the final score: relevance × confidence at the time of the
	// query (Doc.ConfidenceAt) × trust weight × recency boost × the time
	// boost when the query names a time the memory is from. Only the
	// order means something.
	Score float64
	// Relevance is the mode's relevance before weighting: BM25 (exact),
	// (cosine+1)/2 (semantic) or the fused rank score (hybrid).
	Relevance float64
	// KeywordRank and VectorRank are 1-based ranks in each list, 0 when
	// the memory was not in it.
	KeywordRank, VectorRank int
	// KeywordShare is the memory's BM25 score as a share of the most a
	// memory could score for the query (every query term matched, with
	// a saturated frequency), both with the statistics of the documents
	// the query admits: 0 without a keyword match, at most 1. The words
	// of a time the query names (when it asks for the floor) do not
	// count in the most: the memories' dates answer them.
	// Similarity is the cosine of the query with the memory's most
	// similar chunk, or NaN when either has no vector. The relevance
	// floor compares them with the mode's Floor.
	KeywordShare, Similarity float64

	// prev and next are the hits written just before and after this one
	// in its session (linkNeighbours), nil for none.
	prev, next *Hit
}

// Result is the answer to a query.
type Result struct {
	// Mode is the mode the query ran in: Query.Mode, with "" read as
	// Hybrid.
	Mode Mode
	Hits []Hit
	// Context is the hits as a block for a model (see FormatContext).
	Context string
	// Tokens estimates the size of Context in model tokens.
	Tokens int
	// Dropped counts matching memories left out by the limits.
	Dropped int
	// BelowFloor counts the candidates left out by the relevance floor
	// (Query.Floor); with no hits, nothing passed it.
	BelowFloor int
	// Unheard are the names in a query asking for the floor (words
	// written with a capital, other than a sentence's first and the
	// names of times) that no memory the query may see contains, as
	// written in the query (see Floor.Unheard).
	Unheard []string
}

// ranked is a candidate slot with its relevance.
type ranked struct {
	slot  uint32
	score float64
}

// Search runs q. An empty query text returns no hits. Semantic mode fails
// with ErrNoEmbedder when the engine has no embedder; hybrid then runs as
// exact. Embedding the query (twice when a name it misspells is respelled:
// see respelling) is the only part that can be cancelled. A memory's
// score counts its session's neighbours among the admitted documents
// (Config.Context).
//
// The answer depends on the index only through the documents whose class
// q admits (its read rule, the trust floor and the filters on classes).
// The keyword statistics (the number of documents, their average length,
// each term's document frequency, and from them the scores, the keyword
// shares the floor compares and the terms MaxTerms keeps) count those
// documents alone; the filters on a document's own tags, confidence and
// dates choose among them without changing the statistics. The
// candidates, the floor's counts and the unheard names come from the
// admitted documents that pass those filters too. A document q does not
// admit, whatever it holds, changes nothing of the answer, except at the
// far end of the vector index's candidates: when more than
// 2×Candidates+16 admitted documents are about as similar to the query as
// the Candidates-th best, the size of the index decides whether they are
// told apart exactly or by their quantised vectors.
func (e *Engine) Search(ctx context.Context, q Query) (Result, error) {
	mode, err := ParseMode(string(q.Mode))
	if err != nil {
		return Result{}, err
	}
	if q.Now.IsZero() {
		q.Now = time.Now()
	}
	if mode == Semantic && e.cfg.Embedder == nil && q.Vector == nil {
		return Result{}, ErrNoEmbedder
	}
	useVec := mode != Exact && (e.cfg.Embedder != nil || q.Vector != nil)
	useKw := mode != Semantic
	qvec := q.Vector
	// A time the query names is matched against the memories' dates
	// (the time boost), not their words: its words are embedded as
	// little as they are counted in the floor's keyword share.
	span, timed := when(q.Text, q.Now)
	if useVec && qvec == nil && q.Text != "" {
		vs, err := e.cfg.Embedder.Embed(ctx, []string{span.without(q.Text)})
		if err != nil {
			return Result{}, fmt.Errorf("embed query: %w", err)
		}
		qvec = vs[0]
	}
	useVec = useVec && usable(qvec)
	terms := Terms(nil, q.Text)

	hits, unheard, err := e.gather(q, mode, terms, span.terms(), qvec, useKw, useVec)
	if err != nil {
		return Result{}, err
	}
	if useVec && q.Vector == nil && len(unheard.spelled) > 0 {
		// A name the query misspells weighs in its embedding as another
		// name: the query is embedded again as the memories spell it, and
		// searched with that.
		text := EmbeddedText(respellText(q.Text, unheard.spelled), q.Now)
		vs, err := e.cfg.Embedder.Embed(ctx, []string{text})
		if err != nil {
			return Result{}, fmt.Errorf("embed query: %w", err)
		}
		if usable(vs[0]) {
			if hits, unheard, err = e.gather(q, mode, terms, span.terms(), vs[0], useKw, useVec); err != nil {
				return Result{}, err
			}
		}
	}
	// Pointers are sorted, not the hits: a Hit is a few hundred bytes,
	// and moving them took 1.0 s of Search's 2.5 s in one profile.
	out := make([]*Hit, 0, len(hits))
	below := 0
	floor, floored := e.floorFor(mode, terms)
	if q.Floor && floored && !answers(hits, mode, floor, unheard.all) {
		// No memory matches the query well enough for any to be an
		// answer: a query about what Engram never heard of returns
		// nothing rather than the nearest unrelated memories.
		below, hits = len(hits), nil
	}
	timed = timed && e.cfg.TimeBoost > 0
	for _, h := range hits {
		h.Score = h.Relevance * h.Doc.ConfidenceAt(q.Now) * trustWeight(h.Doc.Trust) * e.recency(h.Doc.Created, q.Now)
		if timed && span.holds(h.Doc.Created, e.cfg.TimeSlack) {
			h.Score *= 1 + e.cfg.TimeBoost
		}
	}
	// Every candidate's neighbours count, those below the floor too:
	// the floor judges a memory alone, the context what is around it.
	withContext(hits, e.cfg.Context)
	for _, h := range hits {
		if q.Floor && floored && !passes(h, mode, floor) {
			below++
			continue
		}
		out = append(out, h)
	}
	slices.SortFunc(out, byScore)
	res := e.limit(out, q.Limit, q.Reader, q.Unlimited)
	res.Mode = mode
	res.BelowFloor = below
	res.Unheard = unheard.words
	return res, nil
}

// EmbeddedText is the text of a query, asked at now, that a search
// embeds when it is not given the query's vector: the query without the
// time it names, if any, when other words are left (see Search).
func EmbeddedText(text string, now time.Time) string {
	span, _ := when(text, now)
	return span.without(text)
}

// floorFor returns the relevance floor of mode for a query of terms
// (Config.Floors; Floor.Short for a short query), and whether there is
// one.
func (e *Engine) floorFor(mode Mode, terms []string) (Floor, bool) {
	f, ok := e.cfg.Floors[mode]
	if ok && f.Short != nil && distinct(terms) <= ShortQuery {
		f = *f.Short
	}
	return f, ok
}

// distinct counts the distinct strings of ts.
func distinct(ts []string) int {
	n := 0
	for i, t := range ts {
		if !slices.Contains(ts[:i], t) {
			n++
		}
	}
	return n
}

// answers reports whether any of hits clears the gate of f (f.Gate, or
// f.Unheard for a query whose names are all unheard): whether the query
// is answered at all.
func answers(hits map[uint32]*Hit, mode Mode, f Floor, unheard bool) bool {
	gate := f.Gate
	if unheard && f.Unheard != nil {
		gate = f.Unheard
	}
	if gate == nil || len(hits) == 0 {
		return true
	}
	for _, h := range hits {
		if clears(h, mode, *gate) {
			return true
		}
	}
	return false
}

// passes reports whether h clears the relevance floor f (see Floor).
func passes(h *Hit, mode Mode, f Floor) bool {
	if f.Keyword == 0 && f.Vector == 0 {
		return true
	}
	return clears(h, mode, f)
}

// clears reports whether h matches at least f's keyword share or vector
// similarity, as mode reads them (see Floor).
func clears(h *Hit, mode Mode, f Floor) bool {
	kw := h.KeywordShare > 0 && h.KeywordShare >= f.Keyword
	vec := !math.IsNaN(h.Similarity) && h.Similarity >= f.Vector
	switch {
	case mode == Exact || math.IsNaN(h.Similarity):
		return kw
	case mode == Semantic:
		return vec
	}
	return kw || vec
}

// gather finds the candidates of a search under the read lock: each
// index's list, fused in hybrid mode, as hits pointing at their
// documents, which the engine never changes in place (Put replaces an
// entry), so that scoring, sorting and the limits run without the lock
// and do not hold up writers.
func (e *Engine) gather(q Query, mode Mode, terms, dateTerms []string, qvec []float32, useKw, useVec bool) (map[uint32]*Hit, unheard, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if d := e.vec.dim; useVec && d != 0 && len(qvec) != d {
		if len(qvec)%d != 0 {
			return nil, unheard{}, fmt.Errorf("%w: query dimension %d, want %d", ErrVector, len(qvec), d)
		}
		// A memory's chunk vectors from EmbedDocs, as the duplicate check
		// passes them: the memory's mean vector is the query.
		qvec = meanChunk(qvec, d)
	}
	// Everything below counts and ranks only what keep accepts, and the
	// keyword statistics only the classes the query admits (scope): what
	// the caller may not see changes nothing of the answer.
	admitted, perDoc := e.cls.admitted(&q), q.Filters.perDoc()
	keep := func(slot uint32) bool {
		return admitted[e.cls.of[slot]] && (!perDoc || q.Filters.matchDoc(&e.docs[slot].doc, q.Now))
	}
	// A name the query spells otherwise than the memories it may see is
	// searched for as they spell it (respell), and is heard; in a short
	// query another word typed with a slip is searched for as the words
	// they hold (respellWords). In a longer one the other words carry the
	// query, and a respelled word is more often noise than the slip it
	// mends (SciFact's claims lost 0.0015 of nDCG@10 to it).
	var rs respelling
	if q.Floor {
		ns := names(q.Text)
		short := distinct(terms) <= ShortQuery
		terms, rs = e.respell(terms, ns, e.holder(mode, keep))
		if short {
			nameTerms := make(map[string]bool, len(ns))
			for _, n := range ns {
				nameTerms[n.term] = true
			}
			terms = e.respellWords(terms, nameTerms, e.holder(mode, keep))
		}
	}
	var kwList, vecList []ranked
	n := max(e.cfg.Candidates, q.Limit)
	if q.Unlimited {
		n = max(n, UnlimitedCandidates)
	}
	var acc []float32 // BM25 of every matching slot, while fusing
	var maxKw float64 // the most a memory could score for terms
	if useKw && len(terms) > 0 {
		sc := e.cls.scope(admitted)
		qt := e.kw.query(terms, &sc)
		if q.MaxTerms > 0 {
			qt = rarest(qt, q.MaxTerms)
			rs.alts = nil // qt is no longer terms' (maxScoreOf)
		}
		if len(qt) > 0 {
			var release func()
			// An exact search reads the scores of its hits alone.
			acc, kwList, release = e.keywordTop(qt, &sc, n, keep, mode == Exact)
			defer release()
			maxKw = e.kw.maxScoreOf(terms, qt, rs.alts, sc.n)
			if q.Floor && len(dateTerms) > 0 && q.MaxTerms == 0 {
				// The share of the query's words other than the time it
				// names, which the memories' dates answer.
				rest := slices.DeleteFunc(slices.Clone(terms), func(t string) bool { return slices.Contains(dateTerms, t) })
				if m := e.kw.maxScoreOf(rest, e.kw.query(rest, &sc), rs.alts, sc.n); m > 0 {
					maxKw = m
				}
			}
		}
	}
	var unitQ []float32
	if useVec {
		unitQ = unit(qvec)
		for _, r := range e.vec.search(unitQ, n, keep) {
			if r.score < e.cfg.MinSimilarity {
				break // results come best first
			}
			vecList = append(vecList, ranked(r))
		}
	}

	// The hits live in one slice, allocated once; the map finds them by
	// slot. A memory in the vector list already has its similarity (the
	// same best-chunk cosine, computed the same way), so only a keyword
	// hit that is not in it computes its own.
	hits := make(map[uint32]*Hit, len(kwList)+len(vecList))
	pool := make([]Hit, 0, len(kwList)+len(vecList))
	hit := func(slot uint32, sim float64) *Hit {
		h := hits[slot]
		if h == nil {
			pool = append(pool, Hit{Doc: &e.docs[slot].doc, Similarity: sim})
			h = &pool[len(pool)-1]
			if acc != nil && maxKw > 0 {
				h.KeywordShare = min(float64(acc[slot])/maxKw, 1)
			}
			if math.IsNaN(sim) && unitQ != nil && e.vec.has(slot) {
				h.Similarity = e.vec.slotSimilarity(unitQ, slot)
			}
			hits[slot] = h
		}
		return h
	}
	for i, r := range vecList {
		h := hit(r.slot, r.score)
		h.VectorRank = i + 1
		if mode == Semantic {
			h.Relevance = (r.score + 1) / 2
		}
	}
	for i, r := range kwList {
		h := hit(r.slot, math.NaN())
		h.KeywordRank = i + 1
		if mode == Exact {
			h.Relevance = r.score
		}
	}
	if mode == Hybrid {
		e.fuse(hits, acc, unitQ, kwList, vecList)
	}
	if e.cfg.Context != 0 {
		e.linkNeighbours(hits, keep)
	}
	var u unheard
	if q.Floor {
		u = e.unheard(q.Text, e.holder(mode, keep), hits, rs.heard)
		u.spelled = rs.spelled
	}
	return hits, u, nil
}

// holder returns whether a slot counts as holding a word a query names:
// keep accepts it and, in semantic mode, which finds only documents with
// a vector, it has one.
func (e *Engine) holder(mode Mode, keep func(uint32) bool) func(uint32) bool {
	return func(s uint32) bool { return keep(s) && (mode != Semantic || e.vec.has(s)) }
}

// recency is the boost factor 1 + w × 2^(-age/halfLife).
func (e *Engine) recency(created, now time.Time) float64 {
	if e.cfg.Recency == 0 {
		return 1
	}
	age := max(now.Sub(created), 0)
	return 1 + e.cfg.Recency*math.Exp2(-float64(age)/float64(e.cfg.HalfLife))
}

// scoreScratch is what a keyword search reuses from one query to the next:
// the score accumulator, indexed by slot and zero between uses, and the
// list of the slots it touched.
type scoreScratch struct {
	acc     []float32
	touched []uint32
	at      []int32 // keywordIndex.top's, 0 between uses
}

// keywordTop returns the k best BM25 matches in sc that keep accepts, and
// the BM25 scores of every slot (zero where no term matches and outside
// sc) until release is called. With onlyTop, the scores in acc are those
// of the slots of top, and of the others at most what they are.
func (e *Engine) keywordTop(terms []queryTerm, sc *scope, k int, keep func(uint32) bool, onlyTop bool) (acc []float32, top []ranked, release func()) {
	scr, _ := e.scratch.Get().(*scoreScratch)
	if scr == nil {
		scr = &scoreScratch{}
	}
	if len(scr.acc) < len(e.docs) {
		scr.acc = make([]float32, len(e.docs)+len(e.docs)/4+64)
		scr.at = make([]int32, len(scr.acc))
	}
	acc = scr.acc
	var touched []uint32
	if onlyTop {
		touched, top = e.kw.top(terms, sc, k, keep, acc, scr.touched[:0], make([]ranked, 0, k+1), scr.at)
	} else {
		touched = e.kw.score(terms, sc, acc, scr.touched[:0])
		top = topSlots(acc, touched, k, keep, make([]ranked, 0, k+1))
	}
	return acc, top, func() {
		for _, s := range touched {
			acc[s] = 0
		}
		scr.touched = touched
		e.scratch.Put(scr)
	}
}

// topSlots appends to top the k best-scoring slots among touched that keep
// accepts, best first.
func topSlots(acc []float32, touched []uint32, k int, keep func(uint32) bool, top []ranked) []ranked {
	for _, s := range touched {
		sc := float64(acc[s])
		if len(top) == k && sc <= top[k-1].score || !keep(s) {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, sc, func(r ranked, t float64) int {
			if r.score > t {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, i, ranked{s, sc})
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// UnlimitedCandidates is the fewest candidates each index offers a query
// with Unlimited set.
const UnlimitedCandidates = 1000

// limit cuts hits to the query's limit and, unless unlimited, the
// per-tier limits and the token budget, in score order. A hit that does
// not fit the remaining budget is skipped and a shorter one after it may
// still be taken. The context lines are labelled for reader.
func (e *Engine) limit(hits []*Hit, limit int, reader string, unlimited bool) Result {
	var res Result
	var episodic, semantic, tokens int
	lines := make([]string, 0, min(len(hits), 32))
	for _, h := range hits {
		if limit > 0 && len(res.Hits) >= limit {
			res.Dropped++
			continue
		}
		switch {
		case unlimited:
		case h.Doc.Tier == vault.Episodic && e.cfg.MaxEpisodic >= 0 && episodic >= e.cfg.MaxEpisodic,
			h.Doc.Tier != vault.Episodic && e.cfg.MaxSemantic >= 0 && semantic >= e.cfg.MaxSemantic:
			res.Dropped++
			continue
		}
		line := FormatLine(h.Doc, reader)
		n := EstimateTokens(line)
		if !unlimited && e.cfg.MaxTokens >= 0 && tokens+n > e.cfg.MaxTokens {
			res.Dropped++
			continue
		}
		tokens += n
		if h.Doc.Tier == vault.Episodic {
			episodic++
		} else {
			semantic++
		}
		res.Hits = append(res.Hits, *h)
		lines = append(lines, line)
	}
	res.Context = joinLines(lines)
	res.Tokens = tokens
	return res
}

// EstimateTokens estimates the model tokens of s: one per four characters,
// rounded up, which is close for English with common tokenizers and
// errs high for code.
func EstimateTokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }
