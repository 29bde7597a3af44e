// Package recall finds the memories that answer a natural-language query,
// locally and in memory.
//
// An [Engine] keeps two indexes over the same documents: a keyword index
// (BM25 over Porter-stemmed, unicode-aware tokens, hyphenated words also
// joined) and a vector index (cosine search over the embeddings of each
// memory's chunks, kept only as int8 codes, scanned as such (past
// [DefaultCoarseRows] vectors after a pass over their sign bits) and
// ranked again with the float32 query). A
// query runs against one or both ([Exact],
// [Semantic], [Hybrid]); hybrid results are fused by a convex combination
// of normalised scores ([FusionConvex]). The fused relevance is then
// weighted by each memory's confidence at the time of the query (decayed
// and boosted by package decay's rules, [Doc.ConfidenceAt]; computed, never
// written), its writer's trust, with a configurable weight its recency,
// and, when the query names a time ("in June", "last week"), whether it is
// from then, and cut to the per-recall limits (10
// episodic and 20 semantic memories, 4,000 tokens of context by default).
//
// A query may ask for the mode's relevance floor ([Floor], [Query].Floor):
// memories that match too little of it by keyword, and are not similar
// enough by meaning, are left out and counted, so a query about nothing
// indexed returns nothing. A query of a word or two has its own floor
// (Floor.Short); the words of a time it names count in neither leg (the
// memories' dates answer them); a name it spells otherwise than the
// memories it may see ("Muhhamed" for "Muhammad") is searched for as
// they spell it and counts as heard.
//
// Sensitive memories are never embedded: they are found by keyword only,
// and only while the caller keeps them in the engine (the memory service
// drops them when the vault locks).
//
// [Engine.Load] fills an engine in bulk at start-up, tokenising over all
// the CPUs; [Engine.SetVector] adds a vector made in the background to a
// document indexed without one.
//
// The engine holds no policy about who may read what: the caller passes
// an Allow predicate with every query, which decides from a document's
// class (partition, owner, product, field, tier, kind, trust, sensitivity)
// and is asked once per class, not once per document. Nothing a query's
// rule refuses shapes its answer: the keyword statistics are those of the
// documents it admits ([Engine.Search]). The engine does no I/O apart from
// calling its [Embedder]; persisting vectors is the caller's business
// ([EncodeVector], [DecodeVector]).
package recall
