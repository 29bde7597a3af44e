package guard

import (
	"regexp"
	"regexp/syntax"
	"strings"
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
// reports what re.MatchString reports; TestGatedMatchesRegexp checks this
// on every shipped pattern. Like the patterns' own prefilters, gates fold
// ASCII letters only: under (?i) Go also matches "k" to the Kelvin sign
// and "s" to the long s, which a gate does not see.

// maxAlternatives bounds how far a pattern is split: a concatenation of
// several alternations multiplies out.
const maxAlternatives = 48

// minGateLen is the shortest literal worth a gate: shorter ones are in
// nearly every text.
const minGateLen = 3

// splitAlternatives returns the gated alternatives of re, which was
// compiled from a Perl-syntax expression.
func splitAlternatives(re *regexp.Regexp) []gatedRe {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		// The expression compiled, so it parses; keep it whole if not.
		return []gatedRe{{re: re}}
	}
	alts := alternatives(parsed)
	if len(alts) > maxAlternatives || len(alts) == 0 {
		alts = []*syntax.Regexp{parsed}
	}
	out := make([]gatedRe, 0, len(alts))
	for _, a := range alts {
		out = append(out, gatedRe{re: regexp.MustCompile(a.String()), need: requiredLiterals(a)})
	}
	return out
}

// alternatives splits re into expressions of which a text matches one
// exactly when it matches re. It undoes what the parser does to a list of
// alternatives (it factors out their common prefix: `\bfoo|\bbar` becomes
// `\b(?:foo|bar)`), and leaves alternations further in alone: the gates
// handle those. Captures are dropped: only whether there is a match
// counts.
func alternatives(re *syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpCapture:
		return alternatives(re.Sub[0])
	case syntax.OpAlternate:
		var out []*syntax.Regexp
		for _, s := range re.Sub {
			out = append(out, alternatives(s)...)
		}
		return out
	case syntax.OpConcat:
		for i, s := range re.Sub {
			if s.Op == syntax.OpCapture {
				s = s.Sub[0]
			}
			if s.Op == syntax.OpAlternate {
				var out []*syntax.Regexp
				for _, a := range alternatives(s) {
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
		// may hold any: asciiLower of either gives the same string, except
		// for letters whose folds are not ASCII (the gates do not see
		// the Kelvin sign or the long s, see above).
		if re.Flags&syntax.FoldCase != 0 {
			for _, r := range re.Rune {
				if r >= utf8.RuneSelf && unicode.SimpleFold(r) != r {
					return nil, false // "É" also matches "é"
				}
			}
		}
		return []string{asciiLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) >= 8 {
					return nil, false
				}
				out = append(out, asciiLower(string(r)))
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

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// gatedMatch turns a pattern's expression into gated alternatives when it has
// more than one or any gate; patterns that gain nothing keep re.
func gatedMatch(re *regexp.Regexp) func(text, lower string) bool {
	gs := splitAlternatives(re)
	if len(gs) == 1 && len(gs[0].need) == 0 {
		return nil
	}
	return anyGated(gs...)
}

// gateAll gives every regular-expression pattern its gated form. The
// expression stays in re, the reference the tests compare against.
func gateAll(ps []injectionPattern) {
	for i := range ps {
		if ps[i].fn == nil && ps[i].re != nil {
			ps[i].fn = gatedMatch(ps[i].re)
		}
	}
}

func init() { gateAll(injectionPatterns) }
