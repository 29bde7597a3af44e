package recall

import (
	"slices"
	"time"

	"github.com/engram-app/engram/vault"
)

// class is what a search decides on before it reads a document itself:
// the attributes the read rule (Query.Allow), the trust floor and most
// filters look at. Documents with the same attributes share a class, and a
// search answers its rule and filters once per class rather than once per
// document. That matters for an agent that may read only its own
// memories: its scans would otherwise follow a pointer to a document and
// run the access check for most documents in the index, only to refuse
// them (BenchmarkRecall100kOneAgent). A class holds every attribute
// Query.Allow may read: the rule sees no other.
type class struct {
	partition vault.Partition
	owner     string
	product   string
	field     vault.Field
	tier      vault.Tier
	kind      vault.Kind
	trust     vault.Trust
	sensitive bool
}

func classOf(d *Doc) class {
	return class{d.Partition, d.Owner, d.Product, d.Field, d.Tier, d.Kind, d.Trust, d.Sensitive}
}

// doc returns a Doc with c's attributes and nothing else: what Allow is
// given, so that a rule reading anything else sees it empty rather than
// depending on which document of the class it was asked about.
func (c *class) doc() Doc {
	return Doc{Partition: c.partition, Owner: c.owner, Product: c.product, Field: c.field, Tier: c.tier, Kind: c.kind, Trust: c.trust, Sensitive: c.sensitive}
}

// classes numbers the classes of an engine's documents and counts the
// live documents of each and their length, from which a search takes the
// keyword statistics of the classes it admits (scope). Class 0 is the
// class of a removed slot, which no search keeps.
type classes struct {
	ids    map[class]uint32
	list   []class  // by number; list[0] is unused
	of     []uint32 // slot -> its class
	docs   []int    // by class: its live documents
	length []int    // by class: the sum of their lengths in terms
}

func newClasses() *classes {
	return &classes{ids: map[class]uint32{}, list: []class{{}}, docs: []int{0}, length: []int{0}}
}

// add records the class of d, whose text is n terms long, as that of the
// next slot, and returns it.
func (c *classes) add(d *Doc, n int) uint32 {
	k := classOf(d)
	id, ok := c.ids[k]
	if !ok {
		id = uint32(len(c.list))
		c.ids[k] = id
		c.list = append(c.list, k)
		c.docs = append(c.docs, 0)
		c.length = append(c.length, 0)
	}
	c.of = append(c.of, id)
	c.docs[id]++
	c.length[id] += n
	return id
}

// remove marks slot, whose text was n terms long, as removed.
func (c *classes) remove(slot uint32, n int) {
	id := c.of[slot]
	c.docs[id]--
	c.length[id] -= n
	c.of[slot] = 0
}

// scope is what a search's keyword statistics count: the live documents
// of the classes it admits, and nothing else. The documents a caller may
// not see, or has filtered out by class, then change no idf, no average
// length and no share of the query's weight, so an answer says nothing of
// them. The filters on a document's own tags, confidence and dates do not
// narrow it: they choose among documents the caller may see, and counting
// only the documents they pass would take a look at each.
type scope struct {
	admitted []bool   // by class
	of       []uint32 // slot -> its class
	// all is set when every live document is admitted: a term's
	// document frequency is then the length of its posting list.
	all    bool
	n      int // live documents admitted
	length int // the sum of their lengths in terms
}

// scope returns the scope of a search that admits the classes in
// admitted (from admitted).
func (c *classes) scope(admitted []bool) scope {
	sc := scope{admitted: admitted, of: c.of, all: true}
	for id := 1; id < len(c.list); id++ {
		switch {
		case admitted[id]:
			sc.n += c.docs[id]
			sc.length += c.length[id]
		case c.docs[id] > 0:
			sc.all = false
		}
	}
	return sc
}

// has reports whether the live document in slot is in the scope.
func (sc *scope) has(slot uint32) bool { return sc.all || sc.admitted[sc.of[slot]] }

// df is the document frequency in the scope of a term with posting list
// ps and counts by class cs.
func (sc *scope) df(ps []posting, cs []classCount) int {
	if sc.all {
		return len(ps)
	}
	n := 0
	for _, c := range cs {
		if sc.admitted[c.cls] {
			n += int(c.n)
		}
	}
	return n
}

// admitted answers, for each class, whether its documents pass q's trust
// floor, read rule and the filters on class attributes; the filters on a
// document's own tags, confidence and dates remain (Filters.perDoc).
func (c *classes) admitted(q *Query) []bool {
	ok := make([]bool, len(c.list))
	for id := 1; id < len(c.list); id++ {
		k := &c.list[id]
		if trustWeight(k.trust) <= 0 || !q.Filters.matchClass(k) {
			continue
		}
		if q.Allow != nil {
			d := k.doc()
			if !q.Allow(&d) {
				continue
			}
		}
		ok[id] = true
	}
	return ok
}

// matchClass is Match on the attributes of a class.
func (f *Filters) matchClass(k *class) bool {
	if k.partition == vault.Archive && !f.IncludeArchived && !slices.Contains(f.Partitions, vault.Archive) {
		return false
	}
	return anyOf(f.Partitions, k.partition) && anyOf(f.Tiers, k.tier) && anyOf(f.Kinds, k.kind) && anyOf(f.Fields, k.field) && anyOf(f.Trusts, k.trust)
}

// perDoc reports whether f has filters matchClass leaves to matchDoc.
func (f *Filters) perDoc() bool {
	return len(f.Tags) > 0 || f.MinConfidence > 0 || !f.After.IsZero() || !f.Before.IsZero()
}

// matchDoc is Match on what a document has of its own; MinConfidence
// applies to its confidence at now.
func (f *Filters) matchDoc(d *Doc, now time.Time) bool {
	if len(f.Tags) > 0 && !slices.ContainsFunc(d.Tags, func(t string) bool { return slices.Contains(f.Tags, t) }) {
		return false
	}
	if f.MinConfidence > 0 && d.ConfidenceAt(now) < f.MinConfidence {
		return false
	}
	return (f.After.IsZero() || !d.Created.Before(f.After)) && (f.Before.IsZero() || d.Created.Before(f.Before))
}
