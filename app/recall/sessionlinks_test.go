package recall

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// checkSessionLinks checks that every live document's session links
// (entry.before, entry.after) name its neighbours in its session's order,
// as linkNeighbours follows them.
func checkSessionLinks(t *testing.T, e *Engine, step string) {
	t.Helper()
	n := 0
	for k, list := range e.sessions {
		for i, se := range list {
			s, ok := e.slots[se.id]
			if !ok || e.docs[s] == nil {
				t.Fatalf("%s: session %v holds %s, not indexed", step, k, se.id)
			}
			want := [2]uint32{}
			if i > 0 {
				want[0] = e.slots[list[i-1].id] + 1
			}
			if i < len(list)-1 {
				want[1] = e.slots[list[i+1].id] + 1
			}
			if got := [2]uint32{e.docs[s].before, e.docs[s].after}; got != want {
				t.Fatalf("%s: %s links %v, want %v", step, se.id, got, want)
			}
			n++
		}
	}
	for id, s := range e.slots {
		if _, ok := sessionOf(&e.docs[s].doc); ok {
			n--
		} else if e.docs[s].before != 0 || e.docs[s].after != 0 {
			t.Fatalf("%s: %s has no session but links", step, id)
		}
	}
	if n != 0 {
		t.Fatalf("%s: %d documents with a session are not in its order", step, -n)
	}
}

// TestSessionLinks: puts (new and replacing), removals, compactions and
// bulk loads keep every document linked to its session neighbours.
func TestSessionLinks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cfg := DefaultConfig(nil)
	cfg.RebuildFraction = 0.1 // compact often
	e := New(cfg)
	var all []Doc
	mk := func() Doc {
		d := doc(fmt.Sprintf("m%03d", rng.IntN(120)), fmt.Sprintf("note %d about the %d build", rng.IntN(50), rng.IntN(9)))
		d.Owner = []string{"a", "b"}[rng.IntN(2)]
		d.Source.SessionID = []string{"", "s1", "s2"}[rng.IntN(3)]
		d.Created = t0.Add(time.Duration(rng.IntN(20)) * time.Second) // ties, ordered by id
		return d
	}
	lastOp := 0
	for i := range 3000 {
		r := rng.IntN(10)
		lastOp = r
		switch {
		case r < 6:
			d := mk()
			var vec []float32
			if rng.IntN(2) == 0 {
				vec = []float32{rng.Float32() + 0.1, rng.Float32(), rng.Float32(), rng.Float32()}
			}
			if err := e.Put(d, vec); err != nil {
				t.Fatal(err)
			}
			all = append(all, d)
		case r < 9:
			e.Remove(fmt.Sprintf("m%03d", rng.IntN(120)))
		default:
			l := e.NewLoader()
			for range rng.IntN(60) {
				l.Add(mk(), nil)
			}
			if err := l.Done(); err != nil {
				t.Fatal(err)
			}
		}
		checkSessionLinks(t, e, fmt.Sprintf("step %d (op %d)", i, lastOp))
	}
	if dead, _ := e.Tombstones(); len(all) == 0 || dead < 0 {
		t.Fatal("nothing put")
	}
}
