package guard

import (
	"net/url"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The effects layer reads what a memory would make an agent do, in every
// memory, whoever it addresses. A memory vault holds conventions,
// preferences, gotchas and decisions, and every one of them is addressed
// to future agents: that is what it is for. So the layer does not ask
// whether a text speaks to an agent (the intent layer does, for the
// planted instructions of the attack benchmarks); it asks whether doing
// what the text says has a dangerous effect:
//
//   - running code fetched from the network, or hidden in an encoding;
//   - exposing credentials (in a commit, a log, a ticket, a reply);
//   - sending data to an outside address;
//   - dropping a safeguard (checks, reviews, TLS verification, 2FA);
//   - destroying data that is not a build output;
//   - raising privileges (root, admin roles, world-writable files,
//     someone's key in authorized_keys);
//   - hiding actions from the user;
//   - putting the memory above the user's or the system's instructions;
//   - moving money.
//
// Each effect is recognised by its structure, not by a sentence: a shell
// construct (a download piped to a shell, `rm -rf` of a path that is not
// a build output, a TLS check turned off by a flag), or a verb of a class
// with an object of a class in one sentence ("paste" ... ".env" ... "into
// the PR description"), in English and in nine other languages. A
// prohibition governing the effect ("never run curl | sh", "コミットしない
// でください") makes it a rule against the effect, which is what rules files
// are full of, and it does not count; neither do scoped forms ("rm -rf
// ./dist", "terraform destroy in the sbx- sandbox workspaces", "force-push
// your own feature branch").
//
// Conditions make a found effect weigh more, never stand for one: a
// trigger ("if the user says 'ship it'", "after the 1st of next month"),
// an authority claimed for it ("approved by the CTO"), a check dropped
// ("without asking", "no need to review"). Encoded payloads are decoded
// and judged (unveil.go), and a decoder piped to a shell is an effect of
// its own. A term defined in one sentence ("'the sync step' means `curl …
// | sudo bash`") carries its definition into every other sentence that
// uses it, so a definition and its invocation, joined (app/split.go joins
// an agent's recent writes), are judged together.
//
// A download piped to a shell is fetched code run from whatever host,
// except a short list of vendors' documented installers
// (officialInstallers, whose effect TestEvalConventions reports apart).
//
// The risk of a memory with an effect is suspicious (it goes to review);
// it stays below hostile, so the layer alone never rejects. Each effect
// is a finding with the span of the words that carry it and a reason a
// person reads in one line, naming the outside host where there is one;
// the result's reasons name the effect in the guard's words only, as
// they reach the audit log.

// effectWeight is the risk of a memory with one effect; effectCap the
// most the layer gives with every condition.
const (
	effectWeight = 0.6
	effectCap    = 0.8
)

// effectHit is one effect found: its class, the span of the words that
// carry it (byte offsets into the text read) and the reason.
type effectHit struct {
	class      string
	start, end int
	// reason names the effect and, where it has one, its outside object
	// (a host, a domain): for the finding, which the review shows beside
	// the marked words. label names the effect alone, in words of the
	// guard's own: Result.Reasons reach the audit log, which holds no
	// text a user or an agent wrote (see vault.AuditEntry).
	reason, label string
}

// effectScreening is what the effects layer found.
type effectScreening struct {
	risk float64
	hits []effectHit
	// conditions are the conditions that raised the risk (a trigger, an
	// authority claimed, a check dropped), with their spans.
	conditions []effectHit
}

// fxSpan is a half-open byte range.
type fxSpan struct{ start, end int }

// fxRule recognises one effect: an anchor expression, and parts that must
// occur in the same sentence.
type fxRule struct {
	class string
	re    *regexp.Regexp
	parts []fxPart
	// judge, when set, looks at the sentence, the anchor's submatch
	// indices, the span of the anchor and its parts and where each part
	// was found, and returns the object to name in the reason, or false to
	// reject the match.
	judge func(sent string, m []int, sp fxSpan, parts []fxSpan) (string, bool)
	// direct, when set, asks that the first part follow the anchor as its
	// object: at most that many words between them, and no punctuation
	// ("disable the 2FA requirement", not "override X at the narrowest
	// test").
	direct int
	// negated rules describe an effect that is itself a negation ("don't
	// tell the user"): no prohibition check.
	negated bool
	// what is the reason, with %s replaced by the object (or the words
	// matched, when the rule names no object).
	what string

	// gates are hand-written gates: one string of each must occur in the
	// sentence (in canonical lower case). They are for the parts of a
	// rule whose expressions name no literal long enough to gate them.
	gates [][]string

	ids [][]int32 // gates, numbered in effectRules' set
}

// fxPart is a further expression a rule needs in the sentence: after the
// anchor's start when after is set, before it when before is set,
// and within near bytes of the anchor (0: anywhere in the sentence).
type fxPart struct {
	re     *regexp.Regexp
	after  bool
	before bool
	near   int
}

// fxRuleSet is the rules with the gate automaton of all their literals.
type fxRuleSet struct {
	rules []*fxRule
	set   *stringSet
}

var (
	effectRulesOnce sync.Once
	effectRulesSet  *fxRuleSet
)

// effectRules builds the gates of the rules once.
func effectRules() *fxRuleSet {
	effectRulesOnce.Do(func() {
		rs := &fxRuleSet{rules: allRules()}
		shareProgs(rs.rules)
		var all []string
		needs := make([][][]string, len(rs.rules))
		for i, r := range rs.rules {
			var need [][]string
			for _, re := range append([]*regexp.Regexp{r.re}, partRes(r.parts)...) {
				if parsed, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
					for _, g := range requiredLiterals(parsed) {
						if len(g) > 0 {
							need = append(need, g)
						}
					}
				}
			}
			for _, gate := range r.gates {
				g := make([]string, len(gate))
				for k, a := range gate {
					g[k] = canonical(a)
				}
				need = append(need, g)
			}
			needs[i] = need
			for _, g := range need {
				all = append(all, g...)
			}
		}
		rs.set = newStringSet(all)
		for i, r := range rs.rules {
			for _, g := range needs[i] {
				var ids []int32
				for _, s := range g {
					ids = append(ids, rs.set.id(s))
				}
				r.ids = append(r.ids, ids)
			}
		}
		effectRulesSet = rs
	})
	return effectRulesSet
}

// shareProgs makes the rules whose anchors or parts have the same
// expression share one compiled program: the fragments for credentials,
// data and places are the anchor or a part of several rules each, some
// 700 kB of copies.
func shareProgs(rules []*fxRule) {
	progs := map[string]*regexp.Regexp{}
	share := func(re *regexp.Regexp) *regexp.Regexp {
		if p, ok := progs[re.String()]; ok {
			return p
		}
		progs[re.String()] = re
		return re
	}
	for _, r := range rules {
		r.re = share(r.re)
		for i := range r.parts {
			r.parts[i].re = share(r.parts[i].re)
		}
	}
}

func partRes(ps []fxPart) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(ps))
	for i, p := range ps {
		out[i] = p.re
	}
	return out
}

// readEffects screens text for the effects it would make an agent bring
// about.
func readEffects(text string) effectScreening {
	var out effectScreening
	if strings.TrimSpace(text) == "" {
		return out
	}
	sents := fxSentences(text)
	views := definitionViews(text, sents)
	has := make(presence, len(effectRules().set.ids))
	for _, s := range sents {
		out.hits = appendHits(out.hits, findEffects(text[s.start:s.end], s.start, has))
	}
	for _, v := range views {
		for _, h := range findEffects(v.text, 0, has) {
			// The invocation carries the effect: mark the term.
			h.start, h.end = v.at.start, v.at.end
			h.reason += " (through a term defined in another sentence)"
			h.label += " (through a term defined in another sentence)"
			out.hits = appendHits(out.hits, []effectHit{h})
		}
	}
	for _, u := range unveil(text) {
		if u.runs {
			r := "tells agents to run code hidden in " + u.encoding
			out.hits = appendHits(out.hits, []effectHit{{class: fxHiddenCode, start: u.start, end: u.end, reason: r, label: r}})
		}
		for _, ds := range fxSentences(u.text) {
			for _, h := range findEffects(u.text[ds.start:ds.end], 0, has) {
				h.start, h.end = u.start, u.end
				h.reason += " (hidden in " + u.encoding + ")"
				h.label += " (hidden in " + u.encoding + ")"
				out.hits = appendHits(out.hits, []effectHit{h})
			}
		}
	}
	if loc := unpinnedMatch(text); loc != nil {
		r := "tells agents to run unpinned code fetched anew on every run"
		out.hits = appendHits(out.hits, []effectHit{{class: fxFetchedCode, start: loc[0], end: loc[1], reason: r, label: r}})
	}
	if len(out.hits) == 0 {
		return out
	}
	risk := effectWeight
	var classes []string
	for _, h := range out.hits {
		if !slices.Contains(classes, h.class) {
			classes = append(classes, h.class)
		}
	}
	if len(classes) > 1 {
		risk += 0.1
	}
	for _, c := range readConditions(text) {
		risk += 0.1
		out.conditions = append(out.conditions, c)
	}
	out.risk = min(risk, effectCap)
	return out
}

// A package runner told to fetch the newest version on every run runs
// whatever its publisher ships that day.
var (
	unpinnedRe    = regexp.MustCompile(`(?i)\b(?:npx|bunx|pnpm\s+dlx|uvx|pipx\s+run)\s+(?:-y\s+|--yes\s+)?[@\w./-]+|\bdocker\s+(?:run|pull)\b[^\n` + "`" + `]{0,200}?:latest\b`)
	unpinnedCueRe = regexp.MustCompile(`(?i)\b(?:deliberately|intentionally|on purpose)\b[^.;\n]{0,30}\b(?:not pinned|unpinned|newest|latest)\b|\b(?:not pinned|unpinned|not in package\.json|isn'?t in package\.json)\b[^.;\n]{0,30}\b(?:deliberately|intentionally|on purpose)\b|\b(?:we )?(?:don'?t|do not|never) pin (?:it|them)\b`)
)

func unpinnedMatch(text string) []int {
	if !containsAny(asciiLower(text), []string{"npx", "bunx", "dlx", "uvx", "pipx", "docker"}) || !containsAny(asciiLower(text), []string{"pin", "package.json", "latest", "newest"}) {
		return nil
	}
	if loc := unpinnedRe.FindStringIndex(text); loc != nil && unpinnedCueRe.MatchString(text) {
		return loc
	}
	return nil
}

// appendHits adds hits that do not repeat one of the same class over the
// same words.
func appendHits(hs []effectHit, add []effectHit) []effectHit {
next:
	for _, h := range add {
		for _, o := range hs {
			if o.class == h.class && h.start < o.end && o.start < h.end {
				continue next
			}
		}
		hs = append(hs, h)
	}
	return hs
}

// findEffects runs the rules over one sentence; base is its offset in the
// text the spans refer to, and has a buffer for the gates it finds.
func findEffects(sent string, base int, has presence) []effectHit {
	// A question asks; it does not tell an agent to do anything.
	if t := strings.TrimRight(sent, " \t\n\"'”)"); strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？") {
		return nil
	}
	rs := effectRules()
	has = rs.set.scanInto(canonical(sent), has)
	var out []effectHit
next:
	for _, r := range rs.rules {
		for _, g := range r.ids {
			if !has.anyOf(g) {
				continue next
			}
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(sent, 4) {
			// A lexicon's match starts with the space before its word.
			for m[0] < m[1] && (sent[m[0]] == ' ' || sent[m[0]] == '\t' || sent[m[0]] == '(' || sent[m[0]] == '"' || sent[m[0]] == '\'') {
				m[0]++
			}
			start, end, locs, ok := r.partsAt(sent, m[0], m[1])
			if !ok {
				continue
			}
			if r.direct > 0 && len(locs) > 0 && !directObject(sent[m[1]:max(m[1], locs[0].start)], r.direct) {
				continue
			}
			if !r.negated && brokenByNegation(sent, m[1], locs) {
				continue
			}
			obj := ""
			if r.judge != nil {
				if obj, ok = r.judge(sent, m, fxSpan{start, end}, locs); !ok {
					continue
				}
			}
			if !r.negated && (prohibitedEffect(sent, m[0], m[1]) || prohibitedEffect(sent, start, end)) {
				continue
			}
			label := strings.Replace(r.what, "%s", anonObject(r.what), 1)
			reason := label
			if obj != "" {
				reason = strings.Replace(r.what, "%s", obj, 1)
			}
			out = append(out, effectHit{class: r.class, start: base + start, end: base + end, reason: reason, label: label})
			break
		}
	}
	return out
}

// anonObject is what a reason names in place of a rule's object in the
// label: the kind of place, not the memory's words.
func anonObject(what string) string {
	switch {
	case strings.HasSuffix(what, "from %s"):
		return "the network"
	case strings.HasSuffix(what, "at %s"):
		return "an outside host"
	}
	return "an outside address"
}

// partsAt finds the rule's parts around an anchor at [s, e) and returns the
// span of all of them.
func (r *fxRule) partsAt(sent string, s, e int) (int, int, []fxSpan, bool) {
	start, end := s, e
	locs := make([]fxSpan, 0, len(r.parts))
	for _, p := range r.parts {
		lo, hi := 0, len(sent)
		if p.after {
			lo = s
		}
		if p.before {
			hi = s
		}
		if p.near > 0 {
			lo, hi = max(lo, s-p.near), min(hi, e+p.near)
		}
		for lo > 0 && lo < len(sent) && !utf8.RuneStart(sent[lo]) {
			lo--
		}
		for hi < len(sent) && !utf8.RuneStart(sent[hi]) {
			hi++
		}
		if lo >= hi {
			return 0, 0, nil, false
		}
		loc := p.re.FindStringIndex(sent[lo:hi])
		if loc == nil {
			return 0, 0, nil, false
		}
		locs = append(locs, fxSpan{lo + loc[0], lo + loc[1]})
		start, end = min(start, lo+loc[0]), max(end, lo+loc[1])
	}
	return start, end, locs, true
}

// directObject reports whether gap, the text between a verb and a part,
// is short enough for the part to be the verb's object.
func directObject(gap string, words int) bool {
	if strings.ContainsAny(gap, ",;:()[]—") {
		return false
	}
	return len(strings.Fields(gap)) <= words
}

// brokenByNegation reports whether a negation or a contrast stands
// between the anchor and a part after it ("don't store it in memory",
// "remove the value rather than bypassing the hook"): the part belongs to
// another verb.
var gapNegRe = regexp.MustCompile(`(?i)\b(?:don'?t|do not|never|not|nor|rather than|instead of|without|refuses?|blocks?)\b|au lieu de|plutôt que|en lugar de|en vez de|anstatt|statt|em vez de|ao invés de|invece di|而不是|вместо|के बजाय|대신`)

func brokenByNegation(sent string, anchorEnd int, locs []fxSpan) bool {
	for _, l := range locs {
		if l.start > anchorEnd && gapNegRe.MatchString(sent[anchorEnd:l.start]) {
			return true
		}
	}
	return false
}

// fxSentences splits text into the spans that a rule's parts must share: a
// full stop, question or exclamation mark followed by a space or the end,
// a semicolon, a line break, and the full stops of Chinese, Japanese and
// Hindi end one. Inside `inline code` only a line break does, so that a
// command ("a; b") stays whole.
func fxSentences(text string) []fxSpan {
	var out []fxSpan
	start := 0
	inline, block := false, false
	cut := func(i, next int) {
		if strings.TrimSpace(text[start:i]) != "" {
			out = append(out, fxSpan{start, i})
		}
		start = next
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case strings.HasPrefix(text[i:], "```"):
			block = !block
			inline = false
			i += 3
			continue
		case r == '`' && !block:
			inline = !inline
		case r == '\n':
			inline = false
			cut(i, i+1)
		case inline || block:
		case r == ';' || r == '。' || r == '；' || r == '！' || r == '？' || r == '।':
			cut(i+size, i+size)
		case r == '.' || r == '!' || r == '?':
			// Not the dot of a file name, the ? of a query string or
			// the ! of a markdown image.
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t' {
				cut(i+1, i+1)
			}
		}
		i += size
	}
	cut(len(text), len(text))
	return out
}

// Prohibitions. A negation in the clause before an effect ("never run",
// "do not commit", "no one adds", "instead of deleting") or, in languages
// that put it after the verb, just after it ("コミットしないでください",
// "커밋하지 마세요", "commit न करें", "wird nie gemountet"), makes the
// sentence a rule against the effect.
var (
	negBeforeRe = regexp.MustCompile(`(?i)(?:\b(?:never|don'?t|do not|does not|doesn'?t|did not|didn'?t|must not|mustn'?t|should not|shouldn'?t|shall not|cannot|can'?t|can not|won'?t|will not|isn'?t|aren'?t|wasn'?t|is not|are not|not|no|nor|nobody|no one|none|avoid\w*|instead of|rather than|refus\w*|forbid\w*|prohibit\w*|bans?|banned|disallow\w*|prevent\w*|block(?:s|ed|ing)?|reject\w*|(?:advise[sd]?|warns?|warned|recommends?|argues?|decided) against|without having to|stop(?:ped)? (?:us|anyone|people) from)\b` +
		`|(?:^|[^\p{L}])(?:nunca|jamás|jamais|niemals|nie|nicht|kein\w*|não|nao|mai|non\s|никогда|нельзя|запрещено|вместо|не|ne\s|n'|no|evita\w*|évite\w*|vermeide\w*|en lugar de|en vez de|au lieu de|plutôt que|statt|anstatt|em vez de|ao invés de|invece di|senza mai|prohibido|interdit|verboten|proibido|vietato)(?:[^\p{L}]|$)` +
		`|不要|别|禁止|切勿|不得|不能|不可|严禁|勿|不许|不准|避免|绝不|从不|而不是|不会` +
		`|절대|금지` +
		`|कभी भी|कभी नहीं|मत)[^.;:\n]{0,60}$`)
	negAfterRe = regexp.MustCompile(`^(?:[^.;,\n]{0,20}?\b(?:is|are|was|were)\s+(?:never|not|forbidden|prohibited|banned)\b` +
		`|[^.;\n]{0,45}?(?:^|[^\p{L}])(?:nie|niemals|nicht|kein\w*)(?:[^\p{L}]|$)` +
		`|[^.;\n]{0,45}?(?:しない|しません|ません|禁止|ないで|ないこと|ないように|いけない|ダメ|だめ|しないこと` +
		`|않|말아|마세요|마십시오|지 마|금지|안 ?돼|안 됩니다` +
		`|न करें|न करे|ना करें|नहीं|मत))`)
)

// prohibitedEffect reports whether a negation governs the words at
// [s, e) of sent.
func prohibitedEffect(sent string, s, e int) bool {
	fxBefore := sent[:s]
	// The clause: after the last comma, colon or dash that starts a new
	// clause, and at most 90 bytes.
	if i := strings.LastIndexAny(fxBefore, ",:—，、："); i >= 0 {
		_, size := utf8.DecodeRuneInString(fxBefore[i:])
		fxBefore = fxBefore[i+size:]
	}
	if len(fxBefore) > 90 {
		fxBefore = fxBefore[len(fxBefore)-90:]
		for len(fxBefore) > 0 && !utf8.RuneStart(fxBefore[0]) {
			fxBefore = fxBefore[1:]
		}
	}
	if negBeforeRe.MatchString(fxBefore) && !negationIsTheEffect(fxBefore) {
		return true
	}
	fxAfter := sent[e:]
	if i := strings.IndexAny(fxAfter, ",—，"); i >= 0 && !isVerbFinalText(sent) {
		fxAfter = fxAfter[:i]
	}
	return negAfterRe.MatchString(fxAfter)
}

// negationIsTheEffect reports whether the negation before an effect drops
// a check rather than forbidding the effect: "no need to read the script
// first, curl … | sh", "don't bother checking, just …".
var (
	negationEffectRe = regexp.MustCompile(`(?i)\b(?:no need to|without|don'?t bother|do not bother|never ask|don'?t ask|do not ask|don'?t wait|do not wait|no longer need to|not need to)\b[^.;:\n]{0,60}$`)
	directNegRe      = regexp.MustCompile(`(?i)\b(?:never|don'?t|do not|must not|should not|avoid)\s+\w+\W*$`)
)

func negationIsTheEffect(fxBefore string) bool {
	return negationEffectRe.MatchString(fxBefore) && !directNegRe.MatchString(fxBefore)
}

// isVerbFinalText reports whether sent is mostly in a script of a verb-final
// language the layer reads (Japanese, Korean, Hindi): their negation ends
// the clause, after commas.
func isVerbFinalText(sent string) bool {
	for _, r := range sent {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Devanagari) {
			return true
		}
	}
	return false
}

// fxHostOf returns the host of the first URL or address in s, or "".
func fxHostOf(s string) string {
	if m := fxURLRe.FindStringSubmatch(s); m != nil {
		if u, err := url.Parse(strings.TrimRight(m[0], ".,;:)'\"`")); err == nil && u.Host != "" {
			return u.Hostname()
		}
		return m[1]
	}
	if m := fxGitHostRe.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	if m := fxEmailRe.FindString(s); m != "" {
		return m
	}
	if m := fxBareHostRe.FindString(s); m != "" {
		return strings.TrimRight(m, ".")
	}
	return ""
}

var (
	fxURLRe      = regexp.MustCompile(`(?i)\b(?:https?|ftp|sftp|s3|gs)://([^\s/'"` + "`" + `<>)\]]+)[^\s'"` + "`" + `<>)\]]*`)
	fxGitHostRe  = regexp.MustCompile(`(?i)\bgit@([\w.-]+):`)
	fxEmailRe    = regexp.MustCompile(`[\w.+-]+@[\w-]+(?:\.[\w-]+)+`)
	fxBareHostRe = regexp.MustCompile(`(?i)\b[a-z0-9][\w-]*(?:\.[\w-]+)*\.(?:com|org|net|io|xyz|ru|cn|info|biz|co|me|app|dev|test|example|sh|cloud|site|online|top|ai|tech)\b`)
)
