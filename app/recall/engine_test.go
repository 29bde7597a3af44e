package recall

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
)

var ctx = context.Background()

func TestBM25Scores(t *testing.T) {
	// Three documents; "cat" is in two of them.
	x := newKeywordIndex(DefaultK1, DefaultB)
	x.add(0, 1, "cat cat dog")
	x.add(1, 1, "cat")
	x.add(2, 1, "bird fish")
	acc := make([]float32, 3)
	all := &scope{all: true, n: 3, length: 6} // every document
	x.score(x.query(Terms(nil, "cat"), all), all, acc, nil)
	// idf = ln(1 + (3-2+0.5)/(2+0.5)); avgdl = 6/3 = 2.
	idf := math.Log(1 + 1.5/2.5)
	bm := func(tf, dl float64) float64 {
		return idf * tf * (DefaultK1 + 1) / (tf + DefaultK1*(1-DefaultB+DefaultB*dl/2))
	}
	tests := []struct {
		doc  int
		want float64
	}{
		{0, bm(2, 3)},
		{1, bm(1, 1)},
		{2, 0},
	}
	for _, tc := range tests {
		if got := float64(acc[tc.doc]); math.Abs(got-tc.want) > 1e-5 {
			t.Errorf("BM25(cat, doc %d) = %.6f, want %.6f", tc.doc, got, tc.want)
		}
	}

	x.remove(0, 1)
	clear(acc)
	all = &scope{all: true, n: 2, length: 3}
	x.score(x.query(Terms(nil, "cat"), all), all, acc, nil)
	// After removal: N=2, df=1, avgdl=(1+2)/2.
	idf = math.Log(1 + 1) // (N - df + 0.5) / (df + 0.5) = 1.5 / 1.5
	want := idf * 1 * (DefaultK1 + 1) / (1 + DefaultK1*(1-DefaultB+DefaultB*1/1.5))
	if acc[0] != 0 || math.Abs(float64(acc[1])-want) > 1e-5 {
		t.Errorf("after remove: scores %v, want [0 %.6f 0]", acc, want)
	}
}

func TestExactRanking(t *testing.T) {
	e := New(Config{})
	put(t, e, nil,
		doc("tabs", "The team indents Go code with tabs"),
		doc("deploy", "Deploys go through ops/deploy.sh and need a review"),
		doc("deploys2", "Deploying on Fridays is forbidden; deploys wait until Monday"),
		doc("lunch", "Lunch is at noon"),
	)
	tests := []struct {
		query string
		want  []string
	}{
		{"how do we deploy?", []string{"deploys2", "deploy"}},
		{"indentation tabs", []string{"tabs"}},
		{"the", nil}, // stopwords only
		{"", nil},
		{"DEPLOYING", []string{"deploys2", "deploy"}},
	}
	for _, tc := range tests {
		r, err := e.Search(ctx, Query{Text: tc.query, Mode: Exact, Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(r.Hits); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("Search(%q) = %v, want %v", tc.query, got, tc.want)
		}
	}
}

func TestRRFFusion(t *testing.T) {
	// The keyword list and the vector list disagree; RRF ranks a document
	// both lists hold above one that tops only one of them.
	emb := &bagEmbedder{dim: 64}
	e := New(Config{Embedder: emb, Fusion: FusionRRF, KeywordWeight: 1, VectorWeight: 1})
	put(t, e, emb,
		doc("both", "alpha beta gamma"),
		doc("kw", "alpha alpha alpha"),
		doc("vec", "beta gamma delta epsilon"),
	)
	q := Query{Text: "alpha beta gamma", Now: t0}
	r, err := e.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(r.Hits); len(got) == 0 || got[0] != "both" {
		t.Fatalf("hybrid = %v, want both first", got)
	}
	for _, h := range r.Hits {
		want := 0.0
		if h.KeywordRank > 0 {
			want += 1 / (60 + float64(h.KeywordRank))
		}
		if h.VectorRank > 0 {
			want += 1 / (60 + float64(h.VectorRank))
		}
		if math.Abs(h.Relevance-want) > 1e-12 {
			t.Errorf("%s: relevance %v, want RRF %v (ranks %d, %d)", h.Doc.ID, h.Relevance, want, h.KeywordRank, h.VectorRank)
		}
	}
}

func TestModes(t *testing.T) {
	emb := &bagEmbedder{dim: 64}
	e := New(Config{Embedder: emb})
	secret := doc("secret", "alice phone number 555")
	secret.Sensitive, secret.Partition = true, vault.Sensitive
	put(t, e, emb, doc("pub", "alice likes tea"), secret)
	if e.HasVector("secret") {
		t.Fatal("a sensitive document has a vector")
	}
	tests := []struct {
		mode Mode
		want []string
	}{
		{Exact, []string{"secret", "pub"}},
		{Semantic, []string{"pub"}},
		{Hybrid, []string{"pub", "secret"}},
	}
	for _, tc := range tests {
		r, err := e.Search(ctx, Query{Text: "alice phone", Mode: tc.mode, Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		if r.Mode != tc.mode {
			t.Errorf("%s: Result.Mode = %q", tc.mode, r.Mode)
		}
		got := ids(r.Hits)
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tc.mode, got, want)
		}
	}
	if r, err := e.Search(ctx, Query{Text: "alice", Now: t0}); err != nil || r.Mode != Hybrid {
		t.Errorf("no mode: Result.Mode = %q, %v; want hybrid", r.Mode, err)
	}
	if _, err := New(Config{}).Search(ctx, Query{Text: "x", Mode: Semantic}); !errors.Is(err, ErrNoEmbedder) {
		t.Errorf("semantic without embedder: %v, want ErrNoEmbedder", err)
	}
	if _, err := e.Search(ctx, Query{Text: "x", Mode: "fuzzy"}); !errors.Is(err, ErrMode) {
		t.Errorf("unknown mode: %v, want ErrMode", err)
	}
	if n := e.RemoveSensitive(); n != 1 || e.HasSensitive() {
		t.Errorf("RemoveSensitive = %d, HasSensitive %v; want 1, false", n, e.HasSensitive())
	}
}

func TestFilters(t *testing.T) {
	base := doc("m", "x")
	base.Tags = []string{"go", "ops"}
	archived := base
	archived.Partition = vault.Archive
	tests := []struct {
		name string
		f    Filters
		d    Doc
		want bool
	}{
		{"empty matches", Filters{}, base, true},
		{"partition", Filters{Partitions: []vault.Partition{vault.Public}}, base, false},
		{"partition any of", Filters{Partitions: []vault.Partition{vault.Public, vault.Internal}}, base, true},
		{"tier", Filters{Tiers: []vault.Tier{vault.Episodic}}, base, false},
		{"kind", Filters{Kinds: []vault.Kind{vault.Fact}}, base, true},
		{"field", Filters{Fields: []vault.Field{vault.Decisions}}, base, false},
		{"tag any", Filters{Tags: []string{"ops", "x"}}, base, true},
		{"tag none", Filters{Tags: []string{"x"}}, base, false},
		{"min confidence passes", Filters{MinConfidence: 0.95}, base, true},
		{"min confidence fails", Filters{MinConfidence: 0.96}, base, false},
		{"after inclusive", Filters{After: t0}, base, true},
		{"after", Filters{After: t0.Add(time.Second)}, base, false},
		{"before exclusive", Filters{Before: t0}, base, false},
		{"before", Filters{Before: t0.Add(time.Second)}, base, true},
		{"archived hidden", Filters{}, archived, false},
		{"archived included", Filters{IncludeArchived: true}, archived, true},
		{"archive partition named", Filters{Partitions: []vault.Partition{vault.Archive}}, archived, true},
	}
	for _, tc := range tests {
		if got := tc.f.Match(&tc.d, time.Time{}); got != tc.want {
			t.Errorf("%s: Match = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRanking(t *testing.T) {
	now := t0.Add(90 * 24 * time.Hour)
	mk := func(id string, trust vault.Trust, conf float64, created time.Time) Doc {
		d := doc(id, "shared words here")
		d.Trust, d.Confidence, d.Created = trust, conf, created
		return d
	}
	docs := []Doc{
		mk("old-operator", vault.TrustOperator, 0.95, t0),
		mk("new-operator", vault.TrustOperator, 0.95, now),
		mk("untrusted", vault.TrustUntrusted, 0.95, now),
		mk("low-confidence", vault.TrustOperator, 0.3, now),
		mk("hostile", vault.TrustHostile, 1, now),
	}
	tests := []struct {
		recency float64
		want    []string
	}{
		{0.3, []string{"new-operator", "old-operator", "untrusted", "low-confidence"}},
		{0, []string{"new-operator", "old-operator", "untrusted", "low-confidence"}}, // tie broken by id
		{5, []string{"new-operator", "untrusted", "low-confidence", "old-operator"}},
	}
	for _, tc := range tests {
		e := New(Config{Recency: tc.recency})
		put(t, e, nil, docs...)
		r, err := e.Search(ctx, Query{Text: "shared words", Mode: Exact, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(r.Hits); !slices.Equal(got, tc.want) {
			t.Errorf("recency %v: %v, want %v", tc.recency, got, tc.want)
		}
	}
}

func TestLimits(t *testing.T) {
	var docs []Doc
	for i := range 15 {
		d := doc(fmt.Sprintf("e%02d", i), "topic episodic")
		d.Tier = vault.Episodic
		docs = append(docs, d)
	}
	for i := range 25 {
		docs = append(docs, doc(fmt.Sprintf("s%02d", i), "topic semantic"))
	}
	long := doc("long", "topic "+strings.Repeat("word ", 4000))
	count := func(hits []Hit, tier vault.Tier) int {
		n := 0
		for _, h := range hits {
			if h.Doc.Tier == tier {
				n++
			}
		}
		return n
	}
	tests := []struct {
		name                string
		cfg                 Config
		limit               int
		episodic, semantic  int
		maxTokens, dropped  int
		wantLong, checkLong bool
	}{
		{"defaults", Config{}, 0, 10, 20, 4000, 11, false, true},
		{"query limit", Config{}, 5, -1, -1, 4000, 36, false, false},
		{"unlimited", Config{MaxEpisodic: -1, MaxSemantic: -1, MaxTokens: -1}, 0, 15, 26, 1 << 30, 0, true, true},
		{"small budget", Config{MaxTokens: 30}, 0, -1, -1, 30, -1, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := New(tc.cfg)
			put(t, e, nil, append(slices.Clone(docs), long)...)
			r, err := e.Search(ctx, Query{Text: "topic", Mode: Exact, Limit: tc.limit, Now: t0})
			if err != nil {
				t.Fatal(err)
			}
			if tc.limit > 0 && len(r.Hits) != tc.limit {
				t.Errorf("%d hits, want %d", len(r.Hits), tc.limit)
			}
			if tc.episodic >= 0 && count(r.Hits, vault.Episodic) != tc.episodic {
				t.Errorf("%d episodic, want %d", count(r.Hits, vault.Episodic), tc.episodic)
			}
			if tc.semantic >= 0 && count(r.Hits, vault.Semantic) != tc.semantic {
				t.Errorf("%d semantic, want %d", count(r.Hits, vault.Semantic), tc.semantic)
			}
			sum := 0
			for _, line := range strings.Split(strings.TrimSuffix(r.Context, "\n"), "\n") {
				sum += EstimateTokens(line)
			}
			if r.Tokens > tc.maxTokens || r.Tokens != sum {
				t.Errorf("tokens %d (lines estimate %d), budget %d", r.Tokens, sum, tc.maxTokens)
			}
			if tc.dropped >= 0 && r.Dropped != tc.dropped {
				t.Errorf("dropped %d, want %d", r.Dropped, tc.dropped)
			}
			if got := slices.Contains(ids(r.Hits), "long"); tc.checkLong && got != tc.wantLong {
				t.Errorf("long memory included = %v, want %v", got, tc.wantLong)
			}
			if n := strings.Count(r.Context, "\n"); n != len(r.Hits) {
				t.Errorf("context has %d lines for %d hits", n, len(r.Hits))
			}
		})
	}
}

func TestAllow(t *testing.T) {
	e := New(Config{})
	mine, theirs := doc("mine", "shared note"), doc("theirs", "shared note")
	mine.Owner, theirs.Owner = "claude", "cursor"
	put(t, e, nil, mine, theirs)
	r, err := e.Search(ctx, Query{Text: "shared", Mode: Exact, Allow: func(d *Doc) bool { return d.Owner == "claude" }})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(r.Hits); !slices.Equal(got, []string{"mine"}) {
		t.Errorf("Allow(owner claude) = %v, want [mine]", got)
	}
}

func TestTombstonesAndRebuild(t *testing.T) {
	emb := &bagEmbedder{dim: 32}
	e := New(Config{Embedder: emb, RebuildFraction: 0.25})
	for i := range 20 {
		put(t, e, emb, doc(fmt.Sprintf("d%02d", i), fmt.Sprintf("word%d common", i)))
	}
	steps := []struct {
		name       string
		do         func()
		dead, size int
	}{
		{"built", func() {}, 0, 20},
		{"remove 3", func() { e.Remove("d00"); e.Remove("d01"); e.Remove("d02") }, 3, 20},
		{"replace 2", func() { put(t, e, emb, doc("d03", "word3 changed"), doc("d04", "word4 changed")) }, 5, 22},
		{"remove past a quarter rebuilds", func() { e.Remove("d05") }, 0, 16},
		{"remove unknown", func() { e.Remove("nope") }, 0, 16},
	}
	for _, st := range steps {
		st.do()
		if dead, size := e.Tombstones(); dead != st.dead || size != st.size {
			t.Errorf("%s: tombstones %d of %d, want %d of %d", st.name, dead, size, st.dead, st.size)
		}
	}
	if e.Len() != 16 {
		t.Fatalf("Len = %d, want 16", e.Len())
	}
	// After the rebuild both indexes still answer for every live document.
	for i := 3; i < 20; i++ {
		id := fmt.Sprintf("d%02d", i)
		if i == 5 {
			continue
		}
		for _, mode := range []Mode{Exact, Semantic} {
			r, err := e.Search(ctx, Query{Text: fmt.Sprintf("word%d", i), Mode: mode, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(r.Hits); len(got) != 1 || got[0] != id {
				t.Errorf("%s word%d = %v, want [%s]", mode, i, got, id)
			}
		}
	}
	for _, gone := range []string{"word0", "word5"} {
		r, _ := e.Search(ctx, Query{Text: gone, Mode: Exact})
		if len(r.Hits) != 0 {
			t.Errorf("removed document found for %s: %v", gone, ids(r.Hits))
		}
	}
}

func TestSimilarity(t *testing.T) {
	emb := &bagEmbedder{dim: 64}
	e := New(Config{Embedder: emb})
	s := doc("s", "alice phone")
	s.Sensitive = true
	put(t, e, emb, doc("a", "tabs for indentation"), doc("b", "indentation with tabs"), doc("c", "lunch at noon"), s)
	tests := []struct {
		a, b   string
		min    float32
		max    float32
		wantOK bool
	}{
		{"a", "b", 0.99, 1.01, true},
		{"a", "c", -0.01, 0.5, true},
		{"a", "s", 0, 0, false},
		{"a", "missing", 0, 0, false},
	}
	for _, tc := range tests {
		sim, ok := e.Similarity(tc.a, tc.b)
		if ok != tc.wantOK || ok && (sim < tc.min || sim > tc.max) {
			t.Errorf("Similarity(%s, %s) = %v, %v; want in [%v, %v], %v", tc.a, tc.b, sim, ok, tc.min, tc.max, tc.wantOK)
		}
	}
	if n := e.Neighbours("a", 1); len(n) != 1 || n[0].ID != "b" {
		t.Errorf("Neighbours(a, 1) = %v, want b", n)
	}
}

func TestConvexFusion(t *testing.T) {
	emb := &bagEmbedder{dim: 64}
	e := New(Config{Embedder: emb, Fusion: FusionConvex, KeywordWeight: 0.5, VectorWeight: 0.5})
	s := doc("sensitive", "alpha alpha")
	s.Sensitive = true
	put(t, e, emb,
		doc("both", "alpha beta gamma"),
		doc("kw", "alpha alpha alpha"),
		doc("vec", "beta gamma delta"),
		s,
	)
	r, err := e.Search(ctx, Query{Text: "alpha beta gamma", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, h := range r.Hits {
		got[h.Doc.ID] = h.Relevance
	}
	// "both" has the top BM25 score and cosine 1: relevance 1.
	if math.Abs(got["both"]-1) > 1e-6 || ids(r.Hits)[0] != "both" {
		t.Errorf("both: relevance %v, first %v; want 1 and first", got["both"], ids(r.Hits))
	}
	for _, id := range []string{"kw", "vec", "sensitive"} {
		if rel, ok := got[id]; !ok || rel <= 0 || rel >= 1 {
			t.Errorf("%s: relevance %v, %v; want in (0, 1)", id, rel, ok)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	emb := &bagEmbedder{dim: 16}
	e := New(Config{Embedder: emb, RebuildFraction: 0.1})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			d := doc(fmt.Sprintf("d%d", i%20), fmt.Sprintf("word%d shared", i))
			if err := e.Put(d, emb.vec(d.Content)); err != nil {
				t.Error(err)
				return
			}
			if i%7 == 0 {
				e.Remove(fmt.Sprintf("d%d", i%20))
			}
		}
	}()
	for i := range 200 {
		if _, err := e.Search(ctx, Query{Text: fmt.Sprintf("word%d shared", i)}); err != nil {
			t.Fatal(err)
		}
	}
	<-done
}

// TestMaxTerms: only the query's rarest known terms are scored.
func TestMaxTerms(t *testing.T) {
	e := New(Config{})
	put(t, e, nil,
		doc("a", "the deploy script needs two reviewers"),
		doc("b", "the deploy script runs nightly"),
		doc("c", "the deploy window is friday"),
		doc("d", "reviewers sign the release"),
	)
	tests := []struct {
		max  int
		want []string
	}{
		// "nightly" is in one memory, "script" in two, "deploy" in three;
		// "unicorn" in none, so it never takes a place.
		{1, []string{"b"}},
		{2, []string{"b", "a"}},
		{0, []string{"b", "a", "c"}},
	}
	for _, tc := range tests {
		r, err := e.Search(ctx, Query{Text: "deploy script nightly unicorn", Mode: Exact, Now: t0, MaxTerms: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(r.Hits); !slices.Equal(got, tc.want) {
			t.Errorf("MaxTerms %d: %v, want %v", tc.max, got, tc.want)
		}
	}
}

// TestConfidenceNow: ranking and MinConfidence use the confidence at the
// time of the query, decayed from the last confirmation and raised by
// verifications, not the confidence a memory was written with.
func TestConfidenceNow(t *testing.T) {
	e := New(DefaultConfig(nil))
	now := t0.Add(365 * 24 * time.Hour)
	stale := doc("stale", "the deploy window is Tuesday")
	confirmed := doc("confirmed", "the deploy window is Friday")
	confirmed.Confirmed = now.Add(-7 * 24 * time.Hour)
	verified := doc("verified", "the deploy window is Monday")
	verified.Verifications = 2
	put(t, e, nil, stale, confirmed, verified)
	if c := stale.ConfidenceAt(now); math.Abs(c-0.475) > 0.001 {
		t.Errorf("stale.ConfidenceAt = %.3f, want 0.475 (a fact's half-life is a year)", c)
	}
	r, err := e.Search(context.Background(), Query{Text: "deploy window", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(r.Hits), []string{"confirmed", "verified", "stale"}; !slices.Equal(got, want) {
		t.Errorf("order = %q, want %q", got, want)
	}
	r, _ = e.Search(context.Background(), Query{Text: "deploy window", Now: now, Filters: Filters{MinConfidence: 0.6}})
	if got, want := ids(r.Hits), []string{"confirmed", "verified"}; !slices.Equal(got, want) {
		t.Errorf("MinConfidence 0.6: %q, want %q", got, want)
	}
	// At the time of writing nothing has decayed: all three pass.
	r, _ = e.Search(context.Background(), Query{Text: "deploy window", Now: t0, Filters: Filters{MinConfidence: 0.9}})
	if len(r.Hits) != 3 {
		t.Errorf("MinConfidence 0.9 at t0: %q, want all three", ids(r.Hits))
	}
}

// TestHitSimilarity checks every hit's Similarity against the cosine of
// the query with the memory's best chunk, computed here on its own, for
// hits found by meaning, by keyword or both, below and above the size at
// which the vector index changes its scan (smallRows).
func TestHitSimilarity(t *testing.T) {
	for _, n := range []int{300, smallRows + 300} {
		emb := &bagEmbedder{dim: 64}
		cfg := DefaultConfig(emb)
		cfg.MaxSemantic, cfg.MaxTokens = -1, -1
		e := New(cfg)
		vecs := map[string][]float32{}
		for i := range n {
			d := doc(fmt.Sprintf("m%05d", i), fmt.Sprintf("note %d: the deploy step %d waits for %s", i, i%13, []string{"review", "the cache", "a tag", "ops"}[i%4]))
			v := emb.vec(d.Content)
			if i%7 == 0 { // two chunks: the similarity is the better one's
				v = append(v, emb.vec("a second chunk about "+d.Content[:9])...)
			}
			vecs[d.ID] = slices.Clone(v)
			if err := e.Put(d, v); err != nil {
				t.Fatal(err)
			}
		}
		q := "which deploy step waits for review"
		qv := unit(emb.vec(q))
		res, err := e.Search(context.Background(), Query{Text: q, Mode: Hybrid, Now: t0})
		if err != nil {
			t.Fatal(err)
		}
		var kwOnly, vecOnly, both int
		for _, h := range res.Hits {
			switch {
			case h.KeywordRank > 0 && h.VectorRank > 0:
				both++
			case h.KeywordRank > 0:
				kwOnly++
			default:
				vecOnly++
			}
			v := vecs[h.Doc.ID]
			want := math.Inf(-1)
			for off := 0; off < len(v); off += 64 {
				want = max(want, float64(dot(qv, dequantised(unit(v[off:off+64])))))
			}
			if math.Abs(h.Similarity-want) > 1e-6 {
				t.Fatalf("n=%d %s (keyword rank %d, vector rank %d): similarity %v, want %v", n, h.Doc.ID, h.KeywordRank, h.VectorRank, h.Similarity, want)
			}
		}
		if kwOnly == 0 || vecOnly == 0 || both == 0 {
			t.Fatalf("n=%d: %d hits by keyword only, %d by meaning only, %d by both: the test misses a kind", n, kwOnly, vecOnly, both)
		}
	}
}

// TestHitKeepsItsDoc checks that a hit keeps the document it was found
// with when the memory is replaced after the search: hits share the
// engine's documents, which the engine never changes in place.
func TestHitKeepsItsDoc(t *testing.T) {
	emb := &bagEmbedder{dim: 64}
	e := New(DefaultConfig(emb))
	put(t, e, emb, doc("a", "the deploy script needs two reviewers"))
	res, err := e.Search(context.Background(), Query{Text: "deploy reviewers", Now: t0})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("%v %v", res.Hits, err)
	}
	put(t, e, emb, doc("a", "the deploy script needs one reviewer"))
	if got := res.Hits[0].Doc.Content; got != "the deploy script needs two reviewers" {
		t.Fatalf("the hit's document changed to %q", got)
	}
}
