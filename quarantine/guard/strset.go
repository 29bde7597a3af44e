package guard

// stringSet finds which of a fixed list of strings occur in a text in one
// pass (Aho-Corasick). The patterns' prefilters and gates ask about some
// hundreds of strings; asking strings.Contains for each scanned a memory
// hundreds of times.
//
// States are numbered breadth first. Those at most denseDepth bytes deep
// (the root and the states nearest it, where a scan spends most of its
// time) have a full row of transitions; a deeper state keeps only the
// transitions that differ from those of the first full-row state on its
// chain of failure links, which are few (its trie children and those of
// the deeper states on that chain). A full row for every state, most of
// it repeating the failure transitions, took megabytes for the sets of
// strings in ten languages, whose UTF-8 bytes make many columns.
type stringSet struct {
	ids    map[string]int32
	class  [256]uint8 // byte -> column of a row; 0 for bytes in no string
	nclass int32

	// dense[st*nclass+class] is the next state of each state st below
	// ndense.
	dense  []int32
	ndense int32

	// A state st from ndense on moves on class c to edgeTo[j] for the j in
	// edgeStart[k]:edgeStart[k+1], k = st-ndense, with edgeClass[j] == c,
	// and otherwise as state base[k] (below ndense) does.
	edgeStart []int32
	edgeClass []uint8
	edgeTo    []int32
	base      []int32

	// outIDs[outStart[st]:outStart[st+1]] are the ids of the strings that
	// end at state st.
	outStart []int32
	outIDs   []int32
}

// denseDepth is how deep the states with a full row of transitions go.
// With 2, the deeper states of the guard's sets keep one or two
// transitions each on average, and the full rows take some hundred
// kilobytes in all; a scan of ordinary text is in one of the full-row
// states on most bytes.
const denseDepth = 2

// trieEdge is a transition of the trie while a set is built.
type trieEdge struct {
	class uint8
	to    int32
}

// newStringSet builds the set of strs; empty strings and repeats are
// dropped.
func newStringSet(strs []string) *stringSet {
	s := &stringSet{ids: map[string]int32{}}
	var order []string
	for _, str := range strs {
		if _, ok := s.ids[str]; !ok && str != "" {
			s.ids[str] = int32(len(order))
			order = append(order, str)
		}
	}
	for _, str := range order {
		for i := 0; i < len(str); i++ {
			if s.class[str[i]] == 0 {
				if s.nclass == 255 {
					panic("stringSet: more than 255 distinct bytes")
				}
				s.nclass++
				s.class[str[i]] = uint8(s.nclass)
			}
		}
	}
	s.nclass++ // column 0: every other byte
	nc := int(s.nclass)

	// The trie, in the order its states are made.
	kids := [][]trieEdge{nil}
	ends := [][]int32{nil}
	child := func(st int32, c uint8) int32 {
		for _, e := range kids[st] {
			if e.class == c {
				return e.to
			}
		}
		return -1
	}
	for _, str := range order {
		st := int32(0)
		for i := 0; i < len(str); i++ {
			c := s.class[str[i]]
			next := child(st, c)
			if next < 0 {
				next = int32(len(kids))
				kids[st] = append(kids[st], trieEdge{c, next})
				kids = append(kids, nil)
				ends = append(ends, nil)
			}
			st = next
		}
		ends[st] = append(ends[st], s.ids[str])
	}

	// Number the states breadth first, so that depth never decreases
	// with the number and the full-row states come first.
	n := len(kids)
	bfs := make([]int32, 0, n) // new number -> trie state
	num := make([]int32, n)    // trie state -> new number
	depth := make([]int, n)
	bfs = append(bfs, 0)
	for i := 0; i < len(bfs); i++ {
		u := bfs[i]
		for _, e := range kids[u] {
			num[e.to] = int32(len(bfs))
			depth[e.to] = depth[u] + 1
			bfs = append(bfs, e.to)
		}
	}

	// Failure links, in breadth-first order: a state's failure state is
	// shallower, so its own is known. A state reports what its failure
	// state reports as well.
	fail := make([]int32, n) // by trie state, to trie state
	out := make([][]int32, n)
	for _, u := range bfs {
		out[u] = append(out[u], ends[u]...)
		if u != 0 {
			out[u] = append(out[u], out[fail[u]]...)
		}
		for _, e := range kids[u] {
			f := int32(0)
			if u != 0 {
				for f = fail[u]; ; f = fail[f] {
					if v := child(f, e.class); v >= 0 {
						f = v
						break
					}
					if f == 0 {
						break
					}
				}
			}
			fail[e.to] = f
		}
	}

	for _, u := range bfs {
		if depth[u] <= denseDepth {
			s.ndense++
		}
	}
	s.dense = make([]int32, int(s.ndense)*nc)
	for st := range s.ndense {
		u := bfs[st]
		row := s.dense[int(st)*nc : int(st+1)*nc]
		if u != 0 {
			copy(row, s.dense[int(num[fail[u]])*nc:int(num[fail[u]]+1)*nc])
		}
		for _, e := range kids[u] {
			row[e.class] = num[e.to]
		}
	}
	s.edgeStart = make([]int32, 1, n-int(s.ndense)+1)
	s.base = make([]int32, 0, n-int(s.ndense))
	for _, u := range bfs[s.ndense:] {
		var seen [256]bool
		f := u
		for ; num[f] >= s.ndense; f = fail[f] {
			for _, e := range kids[f] {
				if !seen[e.class] {
					seen[e.class] = true
					s.edgeClass = append(s.edgeClass, e.class)
					s.edgeTo = append(s.edgeTo, num[e.to])
				}
			}
		}
		s.edgeStart = append(s.edgeStart, int32(len(s.edgeClass)))
		s.base = append(s.base, num[f])
	}

	s.outStart = make([]int32, 0, n+1)
	for _, u := range bfs {
		s.outStart = append(s.outStart, int32(len(s.outIDs)))
		s.outIDs = append(s.outIDs, out[u]...)
	}
	s.outStart = append(s.outStart, int32(len(s.outIDs)))
	return s
}

// id returns the number of str in the set, or -1.
func (s *stringSet) id(str string) int32 {
	if i, ok := s.ids[str]; ok {
		return i
	}
	return -1
}

// presence records which strings of a set occur in one text.
type presence []bool

// scan returns which strings of the set occur in text.
func (s *stringSet) scan(text string) presence {
	return s.scanInto(text, make(presence, len(s.ids)))
}

// scanInto is scan into has, which it clears first and which must have
// been made by scan for this set (or with its length).
func (s *stringSet) scanInto(text string, has presence) presence {
	clear(has)
	s.find(text, func(_ int, id int32) { has[id] = true })
	return has
}

// find calls found for every occurrence in text of a string of the set,
// in the order in which they end, with the index just after its end and
// its id.
func (s *stringSet) find(text string, found func(end int, id int32)) {
	st := int32(0)
	for i := 0; i < len(text); i++ {
		if st < s.ndense {
			st = s.dense[st*s.nclass+int32(s.class[text[i]])]
		} else {
			st = s.stepDeep(st, s.class[text[i]])
		}
		if lo, hi := s.outStart[st], s.outStart[st+1]; lo < hi {
			for _, id := range s.outIDs[lo:hi] {
				found(i+1, id)
			}
		}
	}
}

// stepDeep returns the state after a state without a full row, st, reads
// a byte of class c.
func (s *stringSet) stepDeep(st int32, c uint8) int32 {
	k := st - s.ndense
	for j := s.edgeStart[k]; j < s.edgeStart[k+1]; j++ {
		if s.edgeClass[j] == c {
			return s.edgeTo[j]
		}
	}
	return s.dense[s.base[k]*s.nclass+int32(c)]
}

// anyOf reports whether one of the strings numbered ids occurs.
func (p presence) anyOf(ids []int32) bool {
	for _, id := range ids {
		if p[id] {
			return true
		}
	}
	return false
}
