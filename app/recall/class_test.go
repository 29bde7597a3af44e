package recall

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
)

// refMatch is the read rule and filters applied to each whole document,
// written out without classes: what a search must agree with.
func refMatch(d *Doc, f *Filters, allow func(*Doc) bool) bool {
	if trustWeight(d.Trust) <= 0 || allow != nil && !allow(d) {
		return false
	}
	if d.Partition == vault.Archive && !f.IncludeArchived && !slices.Contains(f.Partitions, vault.Archive) {
		return false
	}
	in := func(ok bool, n int) bool { return n == 0 || ok }
	return in(slices.Contains(f.Partitions, d.Partition), len(f.Partitions)) &&
		in(slices.Contains(f.Tiers, d.Tier), len(f.Tiers)) &&
		in(slices.Contains(f.Kinds, d.Kind), len(f.Kinds)) &&
		in(slices.Contains(f.Fields, d.Field), len(f.Fields)) &&
		in(slices.ContainsFunc(d.Tags, func(t string) bool { return slices.Contains(f.Tags, t) }), len(f.Tags)) &&
		(f.MinConfidence == 0 || d.ConfidenceAt(t0) >= f.MinConfidence) && // the searches run at t0
		(f.After.IsZero() || !d.Created.Before(f.After)) && (f.Before.IsZero() || d.Created.Before(f.Before))
}

// pick returns a random element of list, or none (nil) half the time.
func pick[T any](r *rand.Rand, list []T) []T {
	if r.IntN(2) == 0 {
		return nil
	}
	return []T{list[r.IntN(len(list))]}
}

// TestSearchKeepsWhatRulesAdmit checks that searches answer the read rule
// and filters once per class of document and still keep exactly the
// documents each whole document would be admitted for: over random
// documents, after replacements, removals, a compaction and a bulk load,
// in every mode.
func TestSearchKeepsWhatRulesAdmit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	owners := []string{vault.AgentOperator, "claude", "cursor", "aider"}
	partitions := vault.AllPartitions
	tiers := []vault.Tier{vault.Episodic, vault.Semantic}
	kinds := []vault.Kind{vault.Fact, vault.Preference, vault.Event}
	fields := []vault.Field{vault.Learnings, vault.Preferences, vault.Gotchas}
	trusts := []vault.Trust{vault.TrustOperator, vault.TrustStandard, vault.TrustUntrusted, vault.TrustHostile}
	tags := []string{"infra", "billing", "ui"}
	products := []string{"", "engram", "lens"}
	randDoc := func(id string) Doc {
		d := Doc{
			ID: id, Content: fmt.Sprintf("shared note %s about w%d", id, r.IntN(30)),
			Partition: partitions[r.IntN(len(partitions))], Owner: owners[r.IntN(len(owners))],
			Tier: tiers[r.IntN(len(tiers))], Kind: kinds[r.IntN(len(kinds))], Field: fields[r.IntN(len(fields))],
			Trust: trusts[r.IntN(len(trusts))], Confidence: r.Float64(), Created: t0.Add(-time.Duration(r.IntN(90)) * 24 * time.Hour),
			Tags: pick(r, tags), Product: products[r.IntN(len(products))],
		}
		d.Sensitive = d.Partition == vault.Sensitive
		return d
	}
	emb := &bagEmbedder{dim: 32}
	cfg := Config{Embedder: emb, Candidates: 1000, MaxEpisodic: 1000, MaxSemantic: 1000, MaxTokens: 1 << 20, MinSimilarity: -1, RebuildFraction: 0.2}
	e := New(cfg)
	live := map[string]Doc{}
	for i := range 300 {
		d := randDoc(fmt.Sprintf("d%03d", i))
		put(t, e, emb, d)
		live[d.ID] = d
	}

	check := func(stage string) {
		t.Helper()
		for range 60 {
			f := Filters{Partitions: pick(r, partitions), Tiers: pick(r, tiers), Kinds: pick(r, kinds), Fields: pick(r, fields), Tags: pick(r, tags), IncludeArchived: r.IntN(2) == 0}
			if r.IntN(3) == 0 {
				f.MinConfidence = r.Float64()
			}
			if r.IntN(3) == 0 {
				f.After = t0.Add(-time.Duration(r.IntN(90)) * 24 * time.Hour)
			}
			me, product := owners[r.IntN(len(owners))], products[r.IntN(len(products))]
			allow := func(d *Doc) bool {
				return d.Partition == vault.Public || d.Owner == me || d.Owner == vault.AgentOperator && !d.Sensitive ||
					d.Product != "" && d.Product == product && !d.Sensitive
			}
			var want []string
			for id, d := range live {
				if refMatch(&d, &f, allow) {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			for _, mode := range []Mode{Exact, Hybrid} {
				res, err := e.Search(ctx, Query{Text: "shared note", Mode: mode, Filters: f, Allow: allow, Now: t0})
				if err != nil {
					t.Fatal(err)
				}
				got := ids(res.Hits)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("%s, %s, filters %+v, reader %s of %q: got %d documents, want %d\ngot  %v\nwant %v", stage, mode, f, me, product, len(got), len(want), got, want)
				}
			}
		}
	}
	check("built one by one")

	for i := range 80 { // replaced: some change class, some keep it
		id := fmt.Sprintf("d%03d", r.IntN(300))
		d := randDoc(id)
		if i%2 == 0 {
			d = live[id]
			d.Content += " again"
		}
		put(t, e, emb, d)
		live[id] = d
	}
	check("after replacements")

	compacted := false
	for _, id := range slices.Sorted(maps.Keys(live)) {
		if r.IntN(4) == 0 {
			before, _ := e.Tombstones()
			e.Remove(id)
			delete(live, id)
			after, _ := e.Tombstones()
			compacted = compacted || after < before
		}
	}
	if !compacted {
		t.Fatal("the removals did not compact the index")
	}
	check("after removals and compaction")

	docs := make([]Doc, 0, len(live))
	for _, id := range slices.Sorted(maps.Keys(live)) {
		docs = append(docs, live[id])
	}
	e = New(cfg)
	vecs := make([][]float32, len(docs))
	for i, d := range docs {
		vecs[i] = emb.vec(d.Content)
	}
	if err := e.Load(docs, vecs); err != nil {
		t.Fatal(err)
	}
	check("loaded in bulk")
}

// TestAllowAskedPerClass checks that the read rule is asked once per class
// of document and is shown only the class's attributes.
func TestAllowAskedPerClass(t *testing.T) {
	e := New(Config{})
	for i := range 40 {
		d := doc(fmt.Sprintf("d%02d", i), "shared note")
		d.Owner = []string{"claude", "cursor"}[i%2]
		d.Product = map[string]string{"claude": "engram", "cursor": "lens"}[d.Owner]
		d.Tags = []string{"infra"}
		put(t, e, nil, d)
	}
	var asked []Doc
	allow := func(d *Doc) bool {
		asked = append(asked, *d)
		return d.Product == "engram"
	}
	res, err := e.Search(ctx, Query{Text: "shared", Mode: Exact, Allow: allow, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 20 {
		t.Errorf("%d hits, want claude's 20", len(res.Hits))
	}
	if len(asked) != 2 {
		t.Fatalf("Allow asked %d times, want once for each of the 2 classes", len(asked))
	}
	for _, d := range asked {
		if d.ID != "" || d.Content != "" || d.Tags != nil || d.Confidence != 0 || !d.Created.IsZero() {
			t.Errorf("Allow was shown more than a class: %+v", d)
		}
		if d.Partition != vault.Internal || d.Field != vault.Learnings || d.Trust != vault.TrustOperator || d.Product != map[string]string{"claude": "engram", "cursor": "lens"}[d.Owner] {
			t.Errorf("Allow was not shown the class's attributes: %+v", d)
		}
	}
}

// TestClassCounts checks the counts a search's statistics come from,
// kept up by every Put and Remove and rebuilt by a compaction and a bulk
// load: each class's live documents and their length, and each term's
// documents by class, against the same counted from the live documents.
func TestClassCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	emb := &bagEmbedder{dim: 16}
	e := New(Config{Embedder: emb, RebuildFraction: 0.2})
	check := func(stage string) {
		t.Helper()
		docs, length := map[class]int{}, map[class]int{}
		df := map[string]map[class]int{}
		for _, en := range e.docs {
			if en == nil {
				continue
			}
			k := classOf(&en.doc)
			terms := Terms(nil, en.doc.Content)
			docs[k]++
			length[k] += len(terms)
			for _, term := range slices.Compact(slices.Sorted(slices.Values(terms))) {
				if df[term] == nil {
					df[term] = map[class]int{}
				}
				df[term][k]++
			}
		}
		for id := 1; id < len(e.cls.list); id++ {
			k := e.cls.list[id]
			if e.cls.docs[id] != docs[k] || e.cls.length[id] != length[k] {
				t.Errorf("%s: class %+v counts %d documents of length %d, want %d of %d", stage, k, e.cls.docs[id], e.cls.length[id], docs[k], length[k])
			}
		}
		for term, id := range e.kw.ids {
			got := map[class]int{}
			for _, c := range e.kw.byClass[id] {
				if c.n == 0 {
					t.Errorf("%s: term %q keeps a class with no document", stage, term)
				}
				got[e.cls.list[c.cls]] += int(c.n)
			}
			if !maps.Equal(got, df[term]) && (len(got) > 0 || len(df[term]) > 0) {
				t.Errorf("%s: term %q by class %v, want %v", stage, term, got, df[term])
			}
		}
	}
	owners := []string{"claude", "cursor", "aider"}
	randDoc := func(id string) Doc {
		d := doc(id, fmt.Sprintf("w%d w%d note w%d", r.IntN(20), r.IntN(20), r.IntN(50)))
		d.Owner, d.Tier = owners[r.IntN(len(owners))], []vault.Tier{vault.Episodic, vault.Semantic}[r.IntN(2)]
		return d
	}
	for i := range 200 {
		put(t, e, emb, randDoc(fmt.Sprintf("d%03d", i)))
	}
	check("built one by one")
	compacted := false
	for range 100 { // replaced, or removed
		id := fmt.Sprintf("d%03d", r.IntN(200))
		before, _ := e.Tombstones()
		if r.IntN(2) == 0 {
			put(t, e, emb, randDoc(id))
		} else {
			e.Remove(id)
		}
		after, _ := e.Tombstones()
		compacted = compacted || after < before
	}
	if !compacted {
		t.Fatal("the replacements and removals did not compact the index")
	}
	check("after replacements, removals and compactions")
	var docs []Doc
	for _, en := range e.docs {
		if en != nil {
			docs = append(docs, en.doc)
		}
	}
	if err := e.Load(docs, nil); err != nil {
		t.Fatal(err)
	}
	check("loaded in bulk")
}
