package guard

// stringSet finds which of a fixed list of strings occur in a text in one
// pass (Aho-Corasick, compiled to a table of transitions). The patterns'
// prefilters and gates ask about some hundreds of strings; asking
// strings.Contains for each scanned a memory hundreds of times.
type stringSet struct {
	ids    map[string]int32
	class  [256]uint8 // byte -> column of delta; 0 for bytes in no string
	nclass int
	delta  []int32   // state*nclass + class -> next state
	out    [][]int32 // state -> ids of the strings that end there
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
	nc := s.nclass

	// The trie: goto_ holds -1 where a state has no child.
	goto_ := make([]int32, nc)
	for i := range goto_ {
		goto_[i] = -1
	}
	s.out = [][]int32{nil}
	for _, str := range order {
		st := int32(0)
		for i := 0; i < len(str); i++ {
			c := int32(s.class[str[i]])
			if goto_[st*int32(nc)+c] < 0 {
				goto_[st*int32(nc)+c] = int32(len(s.out))
				s.out = append(s.out, nil)
				for range nc {
					goto_ = append(goto_, -1)
				}
			}
			st = goto_[st*int32(nc)+c]
		}
		s.out[st] = append(s.out[st], s.ids[str])
	}

	// Breadth first, each state's missing transitions are its failure
	// state's, and it also reports what its failure state reports.
	s.delta = make([]int32, len(goto_))
	fail := make([]int32, len(s.out))
	var queue []int32
	for c := range nc {
		if v := goto_[c]; v >= 0 {
			s.delta[c] = v
			queue = append(queue, v)
		}
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if f := fail[u]; len(s.out[f]) > 0 {
			s.out[u] = append(s.out[u][:len(s.out[u]):len(s.out[u])], s.out[f]...)
		}
		for c := range nc {
			i := int(u)*nc + c
			f := s.delta[int(fail[u])*nc+c]
			if v := goto_[i]; v >= 0 {
				fail[v] = f
				s.delta[i] = v
				queue = append(queue, v)
			} else {
				s.delta[i] = f
			}
		}
	}
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
	nc := int32(s.nclass)
	st := int32(0)
	for i := 0; i < len(text); i++ {
		st = s.delta[st*nc+int32(s.class[text[i]])]
		for _, id := range s.out[st] {
			has[id] = true
		}
	}
	return has
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
