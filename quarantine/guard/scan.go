package guard

import (
	"math"
	"regexp/syntax"
	"sort"
	"strings"
)

// Texts are scanned in chunks: Go's regexp runs its fast backtracking
// engine only on short inputs, and falls back to a much slower NFA on long
// ones. Each chunk is at most chunkSize bytes, cut at a line break where one
// exists, and overlaps the next by chunkOverlap bytes so that a secret
// shorter than the overlap is never split; findings in the overlap are
// deduplicated. Private key blocks, which can be longer, are found on the
// whole text.
const (
	chunkSize    = 2 << 10
	chunkOverlap = 256
)

// forChunks calls fn for each chunk of text with the chunk's offset.
func forChunks(text string, fn func(chunk string, base int)) {
	for start := 0; start < len(text); {
		end := start + chunkSize
		if end >= len(text) {
			end = len(text)
		} else if nl := strings.LastIndexByte(text[start+chunkSize/2:end], '\n'); nl >= 0 {
			// Prefer to cut at a line break in the second half.
			end = start + chunkSize/2 + nl + 1
		}
		fn(text[start:end], start)
		if end == len(text) {
			return
		}
		next := end - chunkOverlap
		if next <= start {
			next = end
		}
		start = next
	}
}

type secretScanner struct {
	rules    []secretRule
	sentence sentenceOptions // see secrets_context.go
	// keys holds every rule's prefilter strings and gates (see gate.go),
	// found in a chunk in one pass, and the ASCII credential nouns
	// (credIDs), without which the sentence reading has nothing to follow.
	keys    *stringSet
	credIDs []int32
}

func newSecretScanner() *secretScanner {
	s := &secretScanner{rules: append(providerRules(), probableRules()...), sentence: defaultSentence}
	var all []string
	for i := range s.rules {
		r := &s.rules[i]
		if parsed, err := syntax.Parse(r.re.String(), syntax.Perl); err == nil {
			r.gates = requiredLiterals(parsed)
		}
		// A new slice: rules may share their keyword list with others
		// (and with every other scanner).
		keys := make([]string, len(r.any))
		for k, str := range r.any {
			keys[k] = canonical(str)
		}
		r.any = keys
		all = append(all, r.any...)
		for _, g := range r.gates {
			all = append(all, g...)
		}
	}
	creds := credentialNounsASCII()
	s.keys = newStringSet(append(all, creds...))
	ids := func(strs []string) []int32 {
		out := make([]int32, len(strs))
		for i, str := range strs {
			out[i] = s.keys.id(str)
		}
		return out
	}
	for i := range s.rules {
		r := &s.rules[i]
		r.anyIDs = ids(r.any)
		for _, g := range r.gates {
			r.gateIDs = append(r.gateIDs, ids(g))
		}
	}
	s.credIDs = ids(creds)
	return s
}

// scan returns the secret findings in text, sorted by start, with byte
// spans. Spans of one level do not overlap each other; a possible finding
// never overlaps a definite or probable one.
func (s *secretScanner) scan(text string) []Finding {
	var fs []Finding
	add := func(f Finding) { fs = append(fs, f) }
	pemBlocks(text, add)
	named := false
	forChunks(text, func(chunk string, base int) { named = s.scanChunk(chunk, base, add) || named })
	sentenceSecrets(text, s.sentence, named, add)
	fs = dropPlaceholders(text, fs)
	for i, f := range fs {
		if f.Level != LevelPossible && f.Type != SecretPrivateKey && interleavedSample(text[f.Start:f.End]) {
			fs[i].Level = LevelPossible
			fs[i].Reason += " (value looks like a documentation sample)"
		}
	}
	return normalise(fs)
}

// asciiLower lower-cases ASCII letters only, so byte offsets in the result
// match the input (strings.ToLower can change the length of non-ASCII text).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// longestRun returns the length of the longest run of token characters
// (letters, digits, "_", "-", "+", "/", "=", "."), the raw material of
// every provider key.
func longestRun(s string) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlnum(c) || c == '_' || c == '-' || c == '+' || c == '/' || c == '=' || c == '.' {
			cur++
			if cur > best {
				best = cur
			}
		} else {
			cur = 0
		}
	}
	return best
}

// scanChunk adds the findings of the rules in chunk and reports whether
// chunk may name a credential (an ASCII credential noun or any non-ASCII
// text).
func (s *secretScanner) scanChunk(chunk string, base int, add func(Finding)) bool {
	lower := asciiLower(chunk)
	run := longestRun(chunk)
	shift := func(f Finding) {
		f.Start += base
		f.End += base
		add(f)
	}
	has := s.keys.scan(canonical(lower))
	named := has.anyOf(s.credIDs) || !isASCII(chunk)
	var ms []namingMatch // the chunk's naming words, found when a rule needs them
rules:
	for _, r := range s.rules {
		if r.minRun > run || r.pre != nil && !r.pre(chunk) {
			continue
		}
		if len(r.anyIDs) > 0 && !has.anyOf(r.anyIDs) {
			continue
		}
		for _, g := range r.gateIDs {
			if !has.anyOf(g) {
				continue rules
			}
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(chunk, -1) {
			a, b := m[2*r.group], m[2*r.group+1]
			if a < 0 || a == b {
				continue
			}
			if r.check != nil && !r.check(chunk[a:b]) || documentedSample(chunk, a, b) {
				continue
			}
			if r.sentence {
				if ms == nil {
					ms = findNaming(chunk, lower)
				}
				if namedNonSecret(chunk, a, b, ms) {
					continue
				}
			}
			shift(Finding{Kind: KindSecret, Type: r.typ, Level: r.level, Start: a, End: b, Reason: "matches " + r.id})
		}
	}
	assignments(chunk, lower, shift)
	if run >= 32 {
		possibleSecrets(chunk, shift)
	}
	return named
}

func levelRank(l string) int {
	switch l {
	case LevelDefinite:
		return 3
	case LevelProbable:
		return 2
	}
	return 1
}

// normalise sorts findings, removes duplicates and findings contained in a
// stronger or longer one, and drops possible findings that overlap a
// definite or probable one.
func normalise(fs []Finding) []Finding {
	if len(fs) < 2 {
		return fs
	}
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if a.End != b.End {
			return a.End > b.End
		}
		return levelRank(a.Level) > levelRank(b.Level)
	})
	out := fs[:0]
	for _, f := range fs {
		keep := true
		for k := len(out) - 1; k >= 0 && k >= len(out)-8; k-- {
			o := out[k]
			if o.End <= f.Start {
				continue
			}
			// f starts inside o (sorted by start).
			inside := f.End <= o.End
			if inside && levelRank(o.Level) >= levelRank(f.Level) {
				keep = false
				break
			}
			if f.Level == LevelPossible && o.Level != LevelPossible {
				keep = false
				break
			}
			if inside && levelRank(f.Level) > levelRank(o.Level) && o.Level == LevelPossible {
				out = append(out[:k], out[k+1:]...)
			}
		}
		if keep {
			out = append(out, f)
		}
	}
	// A possible finding that starts before a stronger one and overlaps it.
	res := out[:0]
	for i, f := range out {
		if f.Level == LevelPossible {
			drop := false
			for j := i + 1; j < len(out) && out[j].Start < f.End; j++ {
				if out[j].Level != LevelPossible {
					drop = true
					break
				}
			}
			if drop {
				continue
			}
		}
		res = append(res, f)
	}
	return res
}

// shannon returns the Shannon entropy of s in bits per byte.
func shannon(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
