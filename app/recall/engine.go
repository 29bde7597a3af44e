package recall

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/vault"
)

// Embedder turns texts into vectors; app/embed's USE and OpenAI satisfy it.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dim() int
	Name() string
}

// Mode selects the indexes a query uses.
type Mode string

// Search modes.
const (
	Hybrid   Mode = "hybrid"   // keyword and vector, fused by rank (default)
	Semantic Mode = "semantic" // vector only: never finds sensitive memories
	Exact    Mode = "exact"    // keyword only
)

// ParseMode parses a mode name; "" is Hybrid.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return Hybrid, nil
	case Hybrid, Semantic, Exact:
		return m, nil
	}
	return "", fmt.Errorf("%w %q (want hybrid, semantic or exact)", ErrMode, s)
}

// Config configures an Engine. Start from DefaultConfig: in a Config
// built by hand, a zero Recency turns the recency boost off, and other
// zero fields take their defaults.
type Config struct {
	// Embedder makes vectors; nil leaves the engine keyword-only (hybrid
	// queries then run as exact ones).
	Embedder Embedder
	// K1 and B are the BM25 parameters (DefaultK1, DefaultB).
	K1, B float64
	// Fusion combines the lists in hybrid mode (FusionConvex).
	Fusion Fusion
	// RRFK is the reciprocal rank fusion constant (60).
	RRFK float64
	// KeywordWeight and VectorWeight weight each list in the fusion
	// (0.7 and 0.3: with USE Lite, the vector share that held-out folds of
	// SciFact pick, and one that LoCoMo's conversations, which prefer 0.35
	// to 0.6, gain from too; see cmd/engram-bench/internal/eval).
	KeywordWeight, VectorWeight float64
	// MinSimilarity is the cosine below which the vector index offers no
	// candidate (0: only texts pointing away from the query are left out).
	MinSimilarity float64
	// Floors are the relevance floor of each mode, which queries asking
	// for it (Query.Floor) apply; nil means DefaultFloors, and a mode
	// missing from the map, or with a zero Floor, is not filtered.
	Floors map[Mode]Floor
	// Candidates is how many results each index contributes before fusion
	// and the filters' cut (100).
	Candidates int
	// Recency is the weight of the recency boost: the score is multiplied
	// by 1 + Recency × 2^(-age/HalfLife). DefaultConfig sets 0.3; 0 turns
	// it off.
	Recency float64
	// Context is the weight of a memory's neighbours in its session: its
	// score gains Context times the scores of the memories its writer
	// wrote just before and after it in the same session, when they are
	// candidates too (see session.go). DefaultConfig sets DefaultContext;
	// 0 turns it off.
	Context float64
	// TimeBoost is the weight of a query's time: when the query names a
	// day, month or year ("in June", "on 13 October 2023", "last week"),
	// the memories created then, or up to TimeSlack after, score 1 +
	// TimeBoost times more. DefaultConfig sets DefaultTimeBoost; 0 turns
	// it off.
	TimeBoost float64
	TimeSlack time.Duration
	// HalfLife is the age at which the recency boost halves (30 days).
	HalfLife time.Duration
	// MaxEpisodic, MaxSemantic and MaxTokens limit one recall (10, 20 and
	// 4,000); a negative value means no limit.
	MaxEpisodic, MaxSemantic, MaxTokens int
	// RebuildFraction is the share of tombstones in the vector index
	// above which it is rebuilt (0.25).
	RebuildFraction float64
	// CoarseRows is the number of vectors from which a vector search
	// first scans one bit per dimension and reads the int8 codes only of
	// the best (DefaultCoarseRows); negative never does.
	CoarseRows int
}

// DefaultCoarseRows is the default Config.CoarseRows: below it the int8
// scan is fast enough (see vectorIndex.search).
const DefaultCoarseRows = 256 << 10

// Floor is a relevance floor: a memory is recalled only if it matches at
// least Keyword of the query's keyword weight (Hit.KeywordShare) or, in
// semantic and hybrid modes, its most similar chunk has at least Vector
// cosine with the query (Hit.Similarity). Exact mode looks only at
// Keyword, semantic mode only at Vector, hybrid mode at either; a memory
// without a vector (sensitive) is judged by Keyword in every mode. A
// zero Keyword admits any keyword match.
type Floor struct {
	Keyword, Vector float64
	// Gate, when set, is a floor for the query as a whole: unless at
	// least one memory clears it, the query has no answer and nothing is
	// returned; if one does, each memory still needs Keyword or Vector.
	// Judging the best match rather than each memory empties queries
	// about what the vault never heard of without dropping a relevant
	// memory that matches less than others in an answered query.
	Gate *Floor
	// Unheard, when set, is the gate instead of Gate for a query whose
	// names (words written with a capital, other than a sentence's first
	// and the names of times) are all unheard: no memory the query may
	// see contains one (Result.Unheard). It should be at least as strict
	// as Gate. A question about someone or something the vault never
	// heard of is then answered only by a memory that matches it well.
	Unheard *Floor
	// Short, when set, is the floor instead of this one for a query of
	// at most ShortQuery distinct terms: a word or two is less similar to
	// the memories that answer it than a question is (with USE Lite,
	// "indentation" and "User prefers tabs over spaces in Go code" have
	// a cosine of 0.37).
	Short *Floor
}

// ShortQuery is the most distinct terms of a query judged by a mode's
// Floor.Short.
const ShortQuery = 2

// DefaultFloors returns the floors calibrated with USE Lite on a no-answer
// set built from LoCoMo's dev conversations (each question asked of the
// other conversations) and SciFact (each claim without its relevant
// abstracts), as cmd/engram-bench/internal/eval measures them
// (TestFloorLoCoMo, TestFloorSciFact, TestFloorUnheard).
//
// Gate and the floor on each memory are the strictest that cost less
// than half a point of recall_any@5 on the dev conversations (turns and
// observations) and of nDCG@10 on SciFact. In hybrid mode a query is
// answered only if some memory matches 15% of its keyword weight or has
// a cosine of 0.45 with it; then any keyword match passes and a memory
// found by meaning alone needs a cosine of 0.6. Semantic mode answers
// when some memory has a cosine of 0.35 and keeps those of 0.3. Exact
// mode has no Gate: any keyword gate that empties no-answer queries
// costs turns one and a half points or more.
//
// Unheard, for a query whose names the vault never heard of, is the gate
// that empties the most dev no-answer questions while each loss (recall_any@5
// of turns and of observations, SciFact's nDCG@10) stays under half a
// point; chosen on any two dev conversations, the rule picks the same
// gate. It needs a cosine of 0.7 or 40% of the keyword weight in hybrid
// mode, a cosine of 0.7 in semantic mode and 25% of the keyword weight in
// exact mode. On the dev conversations the queries it empties are then
// 98.8% of the no-answer questions in hybrid mode (turns; 99.8% as
// observations; 45% and 62% with Gate alone), for one question of 494 (a
// name the conversation never uses), and SciFact's nDCG@10 falls by 0.3
// points. (The least loss that empties 80%, the rule first used, chose
// a cosine of 0.55 and, in exact mode, 15%: exact mode then emptied 77% of
// the questions of conversations it was not chosen on.) SciFact's claims,
// once their abstracts are gone, still find abstracts on their topic and
// name what the corpus knows: neither gate empties them.
//
// Short, hybrid mode's floor for a query of one or two terms, lowers the
// vector gate and floor to a cosine of 0.35: with USE Lite a word or two
// reaches 0.35 to 0.6 with a memory it means without sharing a word
// ("indentation", "whitespace" and "code style" for "User prefers tabs
// over spaces in Go code": 0.37, 0.58, 0.52), and 0.06 to 0.21 with
// unrelated memories ("football", "pizza recipe", "quantum physics"). On
// the dev conversations' short queries (cmd/engram-bench/internal/eval,
// TestShortFloor) it empties 19.1% of two rare words asked of another
// conversation instead of 24.8%: words the vault holds are answered by
// keyword whatever the floor (semantic mode's floor of 0.3 and gate of
// 0.35 already let short queries through).
func DefaultFloors() map[Mode]Floor {
	return map[Mode]Floor{
		Semantic: {Vector: 0.30, Gate: &Floor{Vector: 0.35}, Unheard: &Floor{Vector: 0.70}},
		Hybrid: {Vector: 0.60, Gate: &Floor{Keyword: 0.15, Vector: 0.45}, Unheard: &Floor{Keyword: 0.40, Vector: 0.70},
			Short: &Floor{Vector: 0.35, Gate: &Floor{Keyword: 0.15, Vector: 0.35}, Unheard: &Floor{Keyword: 0.40, Vector: 0.70}}},
		Exact: {Unheard: &Floor{Keyword: 0.25}},
	}
}

// The time boost's defaults (see Config.TimeBoost).
const (
	DefaultTimeBoost = 1
	DefaultTimeSlack = 0
)

// DefaultConfig returns the defaults with emb as the embedder (nil for
// keyword-only recall).
func DefaultConfig(emb Embedder) Config {
	return Config{Embedder: emb, Recency: 0.3, TimeBoost: DefaultTimeBoost, TimeSlack: DefaultTimeSlack, Context: DefaultContext}
}

func (c *Config) fill() {
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	defInt := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.K1, DefaultK1)
	def(&c.B, DefaultB)
	def(&c.RRFK, 60)
	if c.Fusion == "" {
		c.Fusion = FusionConvex
	}
	def(&c.KeywordWeight, 0.7)
	def(&c.VectorWeight, 0.3)
	def(&c.RebuildFraction, 0.25)
	defInt(&c.CoarseRows, DefaultCoarseRows)
	if c.Floors == nil {
		c.Floors = DefaultFloors()
	}
	defInt(&c.Candidates, 100)
	defInt(&c.MaxEpisodic, 10)
	defInt(&c.MaxSemantic, 20)
	defInt(&c.MaxTokens, 4000)
	if c.HalfLife == 0 {
		c.HalfLife = 30 * 24 * time.Hour
	}
}

// Doc is what the engine knows of a memory.
type Doc struct {
	ID        string
	Content   string
	Kind      vault.Kind
	Field     vault.Field
	Tier      vault.Tier
	Partition vault.Partition
	Tags      []string
	Source    vault.Source
	Owner     string
	Product   string
	Trust     vault.Trust
	// Confidence is the confidence at creation or at the user's last
	// confirmation; recall ranks and filters by ConfidenceAt, the
	// confidence decayed to the time of the query.
	Confidence float64
	Created    time.Time
	// Confirmed is the user's last confirmation (zero if never), from
	// which decay counts instead of Created; Verifications and
	// Observations count the agents' confirmations and the consistent
	// observations since, each a boost (see package decay).
	Confirmed                   time.Time
	Verifications, Observations int
	// Sensitive memories are indexed by keyword only.
	Sensitive bool
	// Questioned is the reason of the user's standing question of the
	// memory, "" for none: its line is labelled "[questioned: REASON]".
	Questioned string
}

// ConfidenceAt is d's confidence at now, as the lifecycle rules of package
// decay compute it: Confidence decayed by kind from the last confirmation
// or creation, plus the boosts. A document of a kind without a decay
// profile, or with no timestamps, keeps its Confidence (plus boosts).
// It is computed per query: nothing is written.
func (d *Doc) ConfidenceAt(now time.Time) float64 {
	return decay.Confidence(decay.Record{
		Kind: decay.Kind(d.Kind), Initial: d.Confidence, Verifications: d.Verifications, Observations: d.Observations,
		Created: d.Created, Confirmed: d.Confirmed,
	}, now)
}

// DocOf returns the Doc of a memory. It leaves Confirmed, Verifications
// and Observations zero: the caller that knows how the memory's
// verifications count (the app's lifecycle rules) sets them.
func DocOf(m *vault.Memory) Doc {
	return Doc{
		ID: m.ID, Content: m.Content, Kind: m.Kind, Field: m.Field, Tier: m.Tier, Partition: m.Partition,
		Tags: slices.Clone(m.Tags), Source: m.Source, Owner: m.Owner, Product: m.Product, Trust: m.Trust, Confidence: m.Confidence,
		Created: m.Created, Sensitive: m.Sensitive(),
	}
}

// entry is a live document in its slot. Its vectors, if any, are in the
// vector index under the same slot.
type entry struct {
	doc Doc
	// before and after are the slots + 1 of the memories just before and
	// after this one in its session's order (e.sessions), 0 for none: a
	// search links its hits' neighbours without looking them up
	// (linkNeighbours).
	before, after uint32
}

// Engine is an in-memory recall index. Its methods are safe for
// concurrent use; searches run in parallel with each other.
type Engine struct {
	cfg Config

	mu    sync.RWMutex
	slots map[string]uint32 // id -> slot
	docs  []*entry          // by slot; nil once removed
	cls   *classes          // the class of each slot
	kw    *keywordIndex
	vec   *vectorIndex
	// sessions orders the memories of each writer's session (see
	// session.go); nil until one has a session.
	sessions map[sessionKey][]sessionEntry

	scratch sync.Pool // *scoreScratch
}

// New returns an empty engine.
func New(cfg Config) *Engine {
	cfg.fill()
	return &Engine{cfg: cfg, slots: map[string]uint32{}, cls: newClasses(), kw: newKeywordIndex(cfg.K1, cfg.B), vec: newVectorIndex(cfg.dim(), cfg.CoarseRows)}
}

// dim is the embedder's dimension, 0 without one.
func (c *Config) dim() int {
	if c.Embedder == nil {
		return 0
	}
	return c.Embedder.Dim()
}

// Dim is the dimension of the engine's embedder's vectors, 0 without one.
func (e *Engine) Dim() int { return e.cfg.dim() }

// Config returns the engine's configuration with defaults filled in.
func (e *Engine) Config() Config { return e.cfg }

// Model names the embedder and the way EmbedDocs uses it, or "" without
// an embedder. Stored vectors are comparable only under the same Model.
func (e *Engine) Model() string {
	if e.cfg.Embedder == nil {
		return ""
	}
	return e.cfg.Embedder.Name() + chunkScheme
}

// Len returns the number of documents indexed.
func (e *Engine) Len() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return len(e.slots)
}

// Put indexes d, replacing any document with its id. vec is d's embedding
// as EmbedDocs makes it: one vector per chunk of the text, back to back,
// each of the embedder's dimension (without an embedder, of the first
// vector's length), or nil for none. It is ignored for a sensitive
// document, which MUST NOT be embedded, and dropped when a chunk's vector
// is zero or not finite. Put normalises each chunk's vector in place and
// keeps only their int8 codes (see vectorIndex).
func (e *Engine) Put(d Doc, vec []float32) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	dim := e.vec.dim
	if dim == 0 {
		dim = e.cfg.dim() // 0 for an embedder that learns it from its first answer
	}
	if dim == 0 {
		dim = len(vec)
	}
	if d.Sensitive || dim == 0 || !usableChunks(vec, dim) {
		vec = nil
	}
	if vec != nil && len(vec)%dim != 0 {
		return fmt.Errorf("%w: length %d is not a multiple of the dimension %d", ErrVector, len(vec), dim)
	}
	e.removeLocked(d.ID)
	en := &entry{doc: d}
	slot := uint32(len(e.docs))
	e.docs = append(e.docs, en)
	e.slots[d.ID] = slot
	e.sessionAdd(en, slot)
	c := countTerms(Terms(nil, d.Content))
	e.kw.addCounted(slot, e.cls.add(&en.doc, c.n), c)
	if vec != nil {
		e.vec.add(slot, vec)
	}
	return nil
}

// usableChunks reports whether v holds usable vectors of length dim and
// normalises each to unit length when it does.
func usableChunks(v []float32, dim int) bool {
	if len(v) == 0 || len(v)%dim != 0 {
		return len(v) != 0 // the caller reports the length
	}
	for off := 0; off < len(v); off += dim {
		if !usable(v[off : off+dim]) {
			return false
		}
	}
	for off := 0; off < len(v); off += dim {
		normalise(v[off : off+dim])
	}
	return true
}

// meanChunk returns the unit mean of the chunk vectors in v, or v itself
// when it holds one.
func meanChunk(v []float32, dim int) []float32 {
	if len(v) == dim {
		return v
	}
	m := make([]float32, dim)
	for off := 0; off < len(v); off += dim {
		for i, x := range v[off : off+dim] {
			m[i] += x
		}
	}
	if !usable(m) { // chunks that cancel out: fall back to the first
		return v[:dim:dim]
	}
	normalise(m)
	return m
}

// usable reports whether v is a non-zero, finite vector.
func usable(v []float32) bool {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	return ss > 0 && !math.IsInf(ss, 0) && !math.IsNaN(ss)
}

// Remove drops the document with id, if any.
func (e *Engine) Remove(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.removeLocked(id)
}

// RemoveSensitive drops every sensitive document, for when their text
// stops being available (the vault locks). It returns how many it dropped.
func (e *Engine) RemoveSensitive() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for id, s := range e.slots {
		if e.docs[s].doc.Sensitive {
			e.removeLocked(id)
			n++
		}
	}
	return n
}

// HasSensitive reports whether any sensitive document is indexed.
func (e *Engine) HasSensitive() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, s := range e.slots {
		if e.docs[s].doc.Sensitive {
			return true
		}
	}
	return false
}

// HasVector reports whether the document with id has a vector.
func (e *Engine) HasVector(id string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	s, ok := e.slots[id]
	return ok && e.vec.has(s)
}

func (e *Engine) removeLocked(id string) {
	s, ok := e.slots[id]
	if !ok {
		return
	}
	e.vec.dead += e.vec.count(s)
	e.sessionRemove(e.docs[s])
	cls := e.cls.of[s]
	e.cls.remove(s, int(e.kw.docLen[s]))
	e.kw.remove(s, cls)
	e.docs[s] = nil
	delete(e.slots, id)
	if n := e.vec.len(); n > 0 && float64(e.vec.dead) > e.cfg.RebuildFraction*float64(n) {
		e.compactLocked()
	}
}

// compactLocked renumbers the live documents densely and rebuilds the
// vector index without tombstones.
func (e *Engine) compactLocked() {
	newSlot := make([]int32, len(e.docs))
	docs := make([]*entry, 0, len(e.slots))
	cls := newClasses() // and drops the classes no document has left
	vec := newVectorIndex(e.vec.dim, e.cfg.CoarseRows)
	for old, en := range e.docs {
		if en == nil {
			newSlot[old] = -1
			continue
		}
		s := uint32(len(docs))
		newSlot[old] = int32(s)
		docs = append(docs, en)
		cls.add(&en.doc, int(e.kw.docLen[old]))
		e.slots[en.doc.ID] = s
		vec.copySlot(s, e.vec, uint32(old))
	}
	for _, en := range docs {
		en.before, en.after = remapLink(en.before, newSlot), remapLink(en.after, newSlot)
	}
	e.kw.remap(newSlot, len(docs))
	e.kw.recount(cls.of, len(cls.list))
	e.docs, e.cls, e.vec = docs, cls, vec
}

// Tombstones returns the number of dead entries in the vector index and
// its size, for tests and diagnostics.
func (e *Engine) Tombstones() (dead, size int) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.vec.dead, e.vec.len()
}

// Similarity returns the cosine similarity of the embeddings of two
// memories (their unit mean chunk vectors, as the index keeps them), for
// duplicate and conflict detection. ok is false when either is unknown or
// has no vector (sensitive memories have none).
func (e *Engine) Similarity(a, b string) (sim float32, ok bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	sa, okA := e.slots[a]
	sb, okB := e.slots[b]
	if !okA || !okB || !e.vec.has(sa) || !e.vec.has(sb) {
		return 0, false
	}
	return dot(e.vec.mean(sa), e.vec.mean(sb)), true
}

// Neighbour is a memory similar to another.
type Neighbour struct {
	ID         string
	Similarity float32
}

// Neighbours returns up to k memories most similar to memory id by
// embedding, most similar first, not including id itself: the similarity
// is the best cosine between id's mean vector and another memory's chunk
// vectors. It returns nil when id has no vector.
func (e *Engine) Neighbours(id string, k int) []Neighbour {
	e.mu.RLock()
	defer e.mu.RUnlock()
	s, ok := e.slots[id]
	if !ok || !e.vec.has(s) {
		return nil
	}
	res := e.vec.search(e.vec.mean(s), k, func(slot uint32) bool { return slot != s && e.docs[slot] != nil })
	out := make([]Neighbour, len(res))
	for i, r := range res {
		out[i] = Neighbour{e.docs[r.slot].doc.ID, float32(r.score)}
	}
	return out
}

// dot is the inner product of a and b (as long as a). Four running sums
// instead of one: a single sum waits for each addition before the next,
// which made the similarities of a recall's candidates a tenth of its
// time at 1,000 memories.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// trustWeight is how much a writer's trust scales relevance.
func trustWeight(t vault.Trust) float64 {
	switch t {
	case vault.TrustSystem, vault.TrustOperator:
		return 1
	case vault.TrustVerified:
		return 0.95
	case vault.TrustStandard:
		return 0.85
	case vault.TrustUntrusted:
		return 0.6
	}
	return 0 // hostile or unknown: never recalled
}

// byScore orders hits best first, ties by id for a stable order.
func byScore(a, b *Hit) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return cmp.Compare(a.Doc.ID, b.Doc.ID)
}

// Reset drops every document.
func (e *Engine) Reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.slots, e.docs, e.cls, e.sessions = map[string]uint32{}, nil, newClasses(), nil
	e.kw, e.vec = newKeywordIndex(e.cfg.K1, e.cfg.B), newVectorIndex(e.cfg.dim(), e.cfg.CoarseRows)
}

// Holds reports whether the document indexed for id has exactly content
// and no vector.
func (e *Engine) Holds(id, content string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	s, ok := e.slots[id]
	return ok && e.docs[s].doc.Content == content && !e.vec.has(s)
}

// VectorFor returns the vector indexed for id when the indexed document
// has exactly content, so a change that keeps the text (tags, pinning)
// need not embed it again; nil otherwise. The vector is the index's:
// the dequantised int8 codes, which Put quantises to the same codes.
func (e *Engine) VectorFor(id, content string) []float32 {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if s, ok := e.slots[id]; ok && e.docs[s].doc.Content == content {
		return e.vec.vector(s)
	}
	return nil
}
