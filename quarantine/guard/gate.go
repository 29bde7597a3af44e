package guard

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Go's regexp runs in linear time, but a pattern with many long
// alternatives and bounded repetitions runs its slowest engine (the NFA)
// over every byte of the text, and one such pattern can cost hundreds of
// microseconds on a short memory. Most of that work is wasted: an
// alternative like `\btwo (?:responses|answers)\b[^\n]{0,120}?\bunfiltered\b`
// cannot match a text that lacks "unfiltered".
//
// splitAlternatives rewrites a pattern as the alternatives it is made of,
// each compiled on its own (small programs also run on the faster
// backtracking engine) and each behind the literals every one of its
// matches must contain, read from the parsed expression. The result
// reports what MatchString of the whole expression would report (which
// is not kept compiled); TestGatedMatchesRegexp checks this on every
// shipped pattern.

// maxAlternatives bounds how far a pattern is split; one with more
// alternatives stays whole, behind the gates of the whole.
const maxAlternatives = 48

// minGateLen is the shortest literal worth a gate: shorter ones are in
// nearly every text.
const minGateLen = 3

// splitAlternatives returns the gated alternatives of expr, a Perl-syntax
// expression; it panics if expr does not compile (every caller's is
// fixed in the source). With tails, a concatenation is also split at an
// alternation followed by more expression, each branch with its own copy
// of the rest (see alternatives).
func splitAlternatives(expr string, tails bool) []gatedRe {
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic("guard: expression " + expr + ": " + err.Error())
	}
	alts := alternatives(parsed, tails)
	if len(alts) > maxAlternatives || len(alts) == 0 {
		alts = []*syntax.Regexp{parsed}
	}
	out := make([]gatedRe, 0, len(alts))
	for _, a := range alts {
		out = append(out, gatedRe{re: regexp.MustCompile(exprString(a)), need: requiredLiterals(a)})
	}
	return out
}

// alternatives splits re into expressions of which a text matches one
// exactly when it matches re. It undoes what the parser does to a list of
// alternatives (it factors out their common prefix: `\bfoo|\bbar` becomes
// `\b(?:foo|bar)`), and leaves alternations further in alone: the gates
// handle those. Without tails, a concatenation is split at an
// alternation only when the parts after it are literals and assertions
// too: one written as `(?:ignore|disregard|...)\b[^.\n]{0,40}?...` stays
// whole, as each branch would carry a compiled copy of the rest
// (megabytes over the injection patterns), and the whole, behind the
// union of the branches' words and the rest's, opens on nearly the same
// texts. With tails it is split there too: the intent gate's expressions
// are small (the copies cost 0.2 MB) and its gates open on most memories,
// where running each whole expression made a store 0.1 ms slower. A
// capture around the whole is dropped: only whether there is a match
// counts.
func alternatives(re *syntax.Regexp, tails bool) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpCapture:
		return alternatives(re.Sub[0], tails)
	case syntax.OpAlternate:
		var out []*syntax.Regexp
		for _, s := range re.Sub {
			out = append(out, alternatives(s, tails)...)
		}
		return out
	case syntax.OpConcat:
		for i, s := range re.Sub {
			if s.Op == syntax.OpCapture {
				s = s.Sub[0]
			}
			if s.Op == syntax.OpAlternate && (tails || !slices.ContainsFunc(re.Sub[i+1:], notPrefixPart)) {
				var out []*syntax.Regexp
				for _, a := range alternatives(s, tails) {
					sub := append(append(append([]*syntax.Regexp{}, re.Sub[:i]...), a), re.Sub[i+1:]...)
					out = append(out, &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: sub})
				}
				return out
			}
			if !prefixPart(s) {
				break
			}
		}
	}
	return []*syntax.Regexp{re}
}

func notPrefixPart(re *syntax.Regexp) bool { return !prefixPart(re) }

// prefixPart reports whether re can be part of a prefix the parser
// factored out of alternatives: a literal or a zero-width assertion.
func prefixPart(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpCharClass:
		return true
	}
	return false
}

// maxFinite bounds the strings finite enumerates.
const maxFinite = 64

// maxRunGroup bounds a gate made of a run of parts: "you must obey" alone
// is as good a gate as its twelve continuations, and cheaper.
const maxRunGroup = 4

// finite returns, in ASCII lower case, every string re can match, when
// there are few: literals, small character classes, alternations and
// concatenations of them, optional parts. Zero-width assertions match "".
func finite(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpLiteral:
		// A fold-case literal's runes are stored in one case; the text
		// may hold any, and canonical forms are the same for all.
		return []string{canonical(string(re.Rune))}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) >= 8 {
					return nil, false
				}
				out = append(out, canonical(string(r)))
			}
		}
		return dedupe(out), true
	case syntax.OpCapture:
		return finite(re.Sub[0])
	case syntax.OpQuest:
		s, ok := finite(re.Sub[0])
		return dedupe(append(s, "")), ok
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			s, ok := finite(sub)
			if !ok || len(out)+len(s) > maxFinite {
				return nil, false
			}
			out = append(out, s...)
		}
		return dedupe(out), true
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			s, ok := finite(sub)
			if !ok {
				return nil, false
			}
			if out = product(out, s); out == nil {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}

// product concatenates every string of a with every string of b, or
// returns nil when there would be more than maxFinite.
func product(a, b []string) []string {
	if len(a)*len(b) > maxFinite {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return dedupe(out)
}

func dedupe(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	out := ss[:0:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// gateGroup turns the strings a part of the expression can match into a
// gate: nil when one is too short to be worth it. A string that contains
// another of the group is dropped: the text holds the shorter one too.
func gateGroup(ss []string) []string {
	for _, s := range ss {
		if len(s) < minGateLen {
			return nil
		}
	}
	var out []string
	for i, s := range ss {
		covered := false
		for j, t := range ss {
			if j != i && len(t) < len(s) && strings.Contains(s, t) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, s)
		}
	}
	return out
}

// requiredLiterals returns groups of lower-case strings such that every
// match of re contains, in ASCII lower case, at least one string of each
// group. It may return fewer groups than could be proved, never a wrong
// one.
func requiredLiterals(re *syntax.Regexp) [][]string {
	if ss, ok := finite(re); ok {
		if g := gateGroup(ss); g != nil {
			return [][]string{g}
		}
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		// Runs of finite parts join into longer strings ("part" then
		// "1" or "one"); other parts give their own groups.
		var out [][]string
		run := []string{""}
		flush := func() {
			if g := gateGroup(run); g != nil {
				out = append(out, g)
			}
			run = []string{""}
		}
		for _, sub := range re.Sub {
			ss, ok := finite(sub)
			if !ok {
				flush()
				out = append(out, requiredLiterals(sub)...)
				continue
			}
			next := product(run, ss)
			if next == nil || len(next) > maxRunGroup {
				flush()
				next = ss
			}
			run = next
		}
		flush()
		return out
	case syntax.OpAlternate:
		// One string of some group of each alternative is present: the
		// union of one group per alternative is a group for the whole.
		var group []string
		for _, s := range re.Sub {
			gs := requiredLiterals(s)
			if len(gs) == 0 {
				return nil
			}
			group = append(group, bestGroup(gs)...)
		}
		return [][]string{gateGroup(dedupe(group))}
	}
	return nil
}

// bestGroup picks the group whose shortest string is longest: the most
// selective gate.
func bestGroup(gs [][]string) []string {
	best, bestLen := gs[0], -1
	for _, g := range gs {
		short := len(g[0])
		for _, s := range g {
			short = min(short, len(s))
		}
		if short > bestLen {
			best, bestLen = g, short
		}
	}
	return best
}

// gateStrings holds every gate string of every pattern: one pass over a
// text tells all the gates at once. It and the patterns' gated forms are
// built on first use (about 0.1 s), not at start-up: most engram commands
// never screen a text.
var (
	gateStrings *stringSet
	gatesOnce   sync.Once
)

// Prepare builds what the first screening would otherwise build: the
// patterns' gated forms, the effect rules and their gate automata, about
// 0.2 s. Long-running processes call it at start, in the background, so
// the first write does not wait for it.
func Prepare() {
	gatesIn("")
	effectRules()
}

// gatesIn tells which gate strings occur in a text, given its ASCII
// lower-case form. The first call gives the patterns their gated forms:
// callers call it before they match a pattern.
func gatesIn(lower string) presence {
	gatesOnce.Do(func() { gateStrings = gateAll(injectionPatterns) })
	return gateStrings.scan(canonical(lower))
}

// canonical maps every letter of s to one member of its case-folding
// orbit, the one (?i) treats it as: ASCII letters to lower case, "ſ" to
// "s" and the Kelvin sign to "k", other letters to the orbit's smallest
// rune ("É" and "é" to "É", "Σ", "σ" and "ς" to "Σ"). A text holds a match
// of a literal, with (?i) or without, only if its canonical form holds
// the literal's. Gates are canonical, and are looked for in canonical
// text; ASCII text is its own canonical form once lower-cased.
func canonical(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return asciiLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteRune(canonicalRune(r))
	}
	return b.String()
}

func canonicalRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	best := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < utf8.RuneSelf {
			return canonicalRune(f)
		}
		best = min(best, f)
	}
	return best
}

// gateAll gives every regular-expression pattern its gated form (the
// expression stays in expr, the reference the tests compare against) in
// place of its prefilter, and numbers the gate strings in the set it
// returns.
func gateAll(ps []injectionPattern) *stringSet {
	var all []string
	for i := range ps {
		p := &ps[i]
		if p.fn == nil && p.expr != "" {
			p.fn = gateSet(splitAlternatives(p.expr, false))
		}
		gs, ok := p.fn.(gateSet)
		if !ok {
			continue
		}
		for j := range gs {
			for _, group := range gs[j].need {
				for k, str := range group {
					group[k] = canonical(str)
				}
				all = append(all, group...)
			}
		}
		if p.expr != "" {
			// The gates read from the expression replace its hand-written
			// prefilter, which missed what (?i) matches beyond ASCII
			// ("ПАРОЛЬ" for "пароль").
			p.any = nil
		}
	}
	set := newStringSet(all)
	for i := range ps {
		gs, _ := ps[i].fn.(gateSet)
		for j := range gs {
			gs[j].ids = make([][]int32, len(gs[j].need))
			for k, group := range gs[j].need {
				for _, str := range group {
					gs[j].ids[k] = append(gs[j].ids[k], set.id(str))
				}
			}
		}
	}
	return set
}

// exprString writes re back as an expression that compiles to the same
// matcher. syntax.Regexp.String does too, but it works out flags by
// folding every rune of every class: a second for all the patterns at each
// start of engram, as every character class like [^\n] spans a million
// runes. Here classes, already case-folded by the parser, are written as
// their ranges.
func exprString(re *syntax.Regexp) string {
	var b strings.Builder
	writeExpr(&b, re)
	return b.String()
}

func writeExpr(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(`[^\x00-\x{10FFFF}]`)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			b.WriteString(`(?i:`)
		} else {
			b.WriteString(`(?:`)
		}
		for _, r := range re.Rune {
			writeRune(b, r)
		}
		b.WriteString(`)`)
	case syntax.OpCharClass:
		b.WriteString(`[`)
		for i := 0; i+1 < len(re.Rune); i += 2 {
			writeRune(b, re.Rune[i])
			if re.Rune[i+1] != re.Rune[i] {
				b.WriteString(`-`)
				writeRune(b, re.Rune[i+1])
			}
		}
		if len(re.Rune) == 0 {
			b.WriteString(`^\x00-\x{10FFFF}`)
		}
		b.WriteString(`]`)
	case syntax.OpAnyCharNotNL:
		b.WriteString(`[^\n]`)
	case syntax.OpAnyChar:
		b.WriteString(`(?s:.)`)
	case syntax.OpBeginLine:
		b.WriteString(`(?m:^)`)
	case syntax.OpEndLine:
		b.WriteString(`(?m:$)`)
	case syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndText:
		b.WriteString(`\z`)
	case syntax.OpWordBoundary:
		b.WriteString(`\b`)
	case syntax.OpNoWordBoundary:
		b.WriteString(`\B`)
	case syntax.OpCapture:
		b.WriteString(`(`)
		writeExpr(b, re.Sub[0])
		b.WriteString(`)`)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		b.WriteString(`(?:`)
		writeExpr(b, re.Sub[0])
		b.WriteString(`)`)
		switch re.Op {
		case syntax.OpStar:
			b.WriteString(`*`)
		case syntax.OpPlus:
			b.WriteString(`+`)
		case syntax.OpQuest:
			b.WriteString(`?`)
		default:
			b.WriteString(`{` + strconv.Itoa(re.Min) + `,`)
			if re.Max >= 0 {
				b.WriteString(strconv.Itoa(re.Max))
			}
			b.WriteString(`}`)
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteString(`?`)
		}
	case syntax.OpConcat:
		b.WriteString(`(?:`)
		for _, sub := range re.Sub {
			writeExpr(b, sub)
		}
		b.WriteString(`)`)
	case syntax.OpAlternate:
		b.WriteString(`(?:`)
		for i, sub := range re.Sub {
			if i > 0 {
				b.WriteString(`|`)
			}
			writeExpr(b, sub)
		}
		b.WriteString(`)`)
	default:
		b.WriteString(re.String()) // every op is handled above
	}
}

// writeRune writes r so that it stands for itself, in a class or out.
func writeRune(b *strings.Builder, r rune) {
	if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ') {
		b.WriteRune(r)
		return
	}
	b.WriteString(`\x{` + strconv.FormatInt(int64(r), 16) + `}`)
}
