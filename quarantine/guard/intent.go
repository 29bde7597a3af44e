package guard

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The intent layer reads what a text asks an agent to do, whatever the
// wording, in text that speaks to an agent: the planted instructions of
// the attack benchmarks. A memory states a fact, a preference, a
// convention or a decision; a planted instruction addresses the agent (an
// imperative sentence, "you", "the assistant", "future sessions", often
// behind a trigger such as "whenever" or "before answering") and asks for
// an effect the user did not ask for: data sent to an outside address,
// data destroyed, money or access moved, a safeguard dropped, credentials
// handled, an approval claimed for a third party, the memory store itself
// changed, or all of it kept from the user.
//
// The effects layer (effects.go) reads the dangerous effects of every
// memory, whoever it addresses, since in a memory vault every memory is
// addressed to future agents. Fetched code run is its alone: a download
// piped to a shell is dangerous in any grammar, and its prohibitions and
// canonical installers need the structure that layer reads; so is the
// handling of credentials, which the effects layer tells from hygiene by
// where they go.
//
// Each effect is a cue with a weight; a cue preceded in its clause by a
// prohibition ("never", "do not", "avoid") is a rule against the effect,
// which rules files are full of, and does not count. The strongest effect
// sets the risk; being aimed at the agent, an outside target and a second
// kind of effect raise it. The same effect described in the third person
// ("the finance team transfers the payroll on Fridays") stays below the
// suspicious line.

// effectCue is one kind of effect and the ways to recognise it.
type effectCue struct {
	typ    string
	reason string
	weight float64
	alts   []alt
}

// alt is one way to recognise an effect: a small expression a, and, when
// b is set, b within gap bytes after a's match in the same clause ("send"
// ... "to x@evil.example"). Two small expressions cost a fraction of one
// with a bounded gap between them, which Go's engine compiles into a copy
// per byte of the gap. any gates the alternative: one of its lower-case
// strings must occur in the text.
type alt struct {
	any []string
	a   *regexp.Regexp
	gap int
	b   *regexp.Regexp
	// words, when set, replaces a: lower-case stems that must start a
	// word ("send" finds "sends", "sending"), looked up in the text's
	// words, which is many times cheaper than an expression over it.
	words []string
	// anyIDs number any in intentSet; byLead indexes words by their first
	// two bytes.
	anyIDs []int32
	byLead map[string][]string
}

// intentSet finds the prefilter strings of every alternative in one pass
// over the text (see strset.go).
var intentSet = func() *stringSet {
	var all []string
	for _, c := range effectCues {
		all = append(all, anyStrings(c.alts)...)
	}
	s := newStringSet(all)
	for i := range effectCues {
		for j := range effectCues[i].alts {
			x := &effectCues[i].alts[j]
			for _, w := range x.any {
				x.anyIDs = append(x.anyIDs, s.id(w))
			}
			if x.words != nil {
				x.byLead = map[string][]string{}
				for _, w := range x.words {
					x.byLead[w[:2]] = append(x.byLead[w[:2]], w)
				}
			}
		}
	}
	return s
}()

func anyStrings(alts []alt) []string {
	var out []string
	for _, x := range alts {
		out = append(out, x.any...)
	}
	return out
}

func pl(any []string, a string) alt { return alt{any: any, a: regexp.MustCompile(`(?i)` + a)} }

// nw is an alternative of stems followed, within gap bytes of the same
// clause, by b.
func nw(words []string, gap int, b string) alt {
	return alt{words: words, gap: gap, b: regexp.MustCompile(`(?i)` + b)}
}

func nr(any []string, a string, gap int, b string) alt {
	return alt{any: any, a: regexp.MustCompile(`(?i)` + a), gap: gap, b: regexp.MustCompile(`(?i)` + b)}
}

// find returns the offset of the first match of the alternative in text
// that no prohibition governs, or -1.
func (x alt) find(text, lower string, tokens [][2]int, has presence) int {
	if x.words != nil {
		// Stems of several words ("resulting in") are searched for.
		for _, w := range x.words {
			if !strings.Contains(w, " ") {
				continue
			}
			for off, n := 0, 0; n < 8; n++ {
				k := strings.Index(lower[off:], w)
				if k < 0 {
					break
				}
				k += off
				off = k + len(w)
				if (k == 0 || !isWordByte(lower[k-1])) && x.b.MatchString(clause(text[off:], x.gap)) && !prohibited(text, k) {
					return k
				}
			}
		}
		for _, t := range tokens {
			if !x.startsWord(lower[t[0]:t[1]]) {
				continue
			}
			if x.b.MatchString(clause(text[t[1]:], x.gap)) && !prohibited(text, t[0]) {
				return t[0]
			}
		}
		return -1
	}
	if x.any != nil && !has.anyOf(x.anyIDs) {
		return -1
	}
	for _, m := range x.a.FindAllStringIndex(text, 8) {
		if x.b != nil && !x.b.MatchString(clause(text[m[1]:], x.gap)) {
			continue
		}
		if !prohibited(text, m[0]) {
			return m[0]
		}
	}
	return -1
}

// startsWord reports whether word begins with one of x's stems.
func (x alt) startsWord(word string) bool {
	if len(word) < 2 {
		return false
	}
	for _, w := range x.byLead[word[:2]] {
		if strings.HasPrefix(word, w) {
			return true
		}
	}
	return false
}

// wordTokens returns the byte spans of the words of lower (letters,
// digits, underscores and hyphens between letters), at most 400.
func wordTokens(lower string) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(lower) && len(out) < 400; i++ {
		inWord := i < len(lower) && (isWordByte(lower[i]) || lower[i] == '-' && start >= 0 && i+1 < len(lower) && isWordByte(lower[i+1]))
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// clause returns at most n bytes of s, cut at the end of its clause: a
// full stop followed by a space or the end (not the dot in an address),
// a semicolon, a question or exclamation mark, or a line break.
func clause(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ';', '!', '?', '\n':
			return s[:i]
		case '.':
			if i+1 == len(s) || s[i+1] == ' ' {
				return s[:i]
			}
		}
	}
	return s
}

// External targets: an e-mail address, a URL, a host, an IBAN-like
// account.
const targetPat = `(?:^|\W)(?:['"]?[\w.+-]+@[\w-]+\.\w|https?://|www\.|[\w-]+\.(?:com|org|net|io|xyz|ru|cn|info|biz|co|me|app|dev)\b|(?:an? |the )?(?:external|outside|third[- ]party|personal|private|remote|public)\b)`

var effectCues = []effectCue{
	{"send_out", "asks to send data to an outside address", 0.5, []alt{
		nw([]string{"send", "email", "e-mail", "forward", "post", "upload", "share", "mail", "cc", "bcc", "publish", "export", "sync", "transmit", "copy", "leak", "disclose", "report"}, 140,
			`\b(?:to|with|into|at)\s*`+targetPat),
		nw([]string{"create", "schedule", "invite", "add", "share", "send", "book", "forward", "grant", "give"}, 100, `\b(?:with|to|for)\s+(?:the\s+)?(?:participants?|recipients?|users?|contacts?|attendees?|address|email(?: address)?)?\s*['"]?[\w.+-]+@[\w-]+\.\w`),
		// "Email x@y.example with only the word ... in the body": the
		// address as the object, then what to put in the message.
		nw([]string{"email", "e-mail", "mail", "message", "respond", "reply", "write", "contact"}, 140,
			`^\s*(?:back\s+)?(?:to\s+)?['"]?[\w.+-]+@[\w-]+\.\w[^;\n]{0,80}?\b(?:body|word|contents?|subject|attach\w*|the following|data|details|information|summary)\b`),
		// A send spelled out as a tool call: send_email({"to": ...}).
		pl([]string{"send", "mail"}, `\b(?:send[_ ]?e?-?mail|send|e?mail)\s*[:(]\s*\{?\s*["']?(?:to|recipient|address)["']?\s*[:=]\s*["']?[\w.+-]+@`),
		nw([]string{"leak", "disclos", "exfiltrat", "sell", "hand over", "pass on"}, 100, `\bto (?:an? |the )?(?:external|outside|third|unauthori[sz]ed|competitor|public|press|media)|\bpublicly\b|\bwithout (?:proper )?authori[sz]ation`),
	}},
	{"destroy", "asks to destroy data", 0.45, []alt{
		nw([]string{"delet", "remov", "eras", "wip", "drop", "destroy", "purg", "truncat", "shred"}, 50, `\b(?:all|every|entire|production|prod|database|databases|db|tables?|records|user data|customer data|patient|backups?|emails?|messages|inbox|accounts?|repositor(?:y|ies)|git history|commit history|audit logs?|memories|evidence|traces)\b`),
		pl([]string{"rm -rf", "rm -fr", "force-push", "force push", "push -f", "push --force", "reset --hard origin"}, `\brm\s+-(?:rf|fr)\s+(?:/|~|\$HOME|\*)|\bforce[- ]push|\bpush\s+(?:-f|--force)\b|\breset\s+--hard\s+origin`),
	}},
	{"move_money", "asks to move money", 0.5, []alt{
		nw([]string{"transfer", "wire", "pay", "deposit", "withdraw", "divert", "reallocat", "send", "move", "invest", "purchase", "buy", "sell"}, 60, `[$€£¥]\s?\d|\b\d[\d,.]*\s*(?:dollars|euros|usd|eur|gbp|btc|bitcoin|eth)\b|\b(?:money|funds|payments?|bitcoin|crypto(?:currency)?)\b`),
		pl([]string{"payment", "transaction", "transfer", "wire"}, `\b(?:initiate|make|schedule|send|create|execute)\s+(?:a |an |the )?(?:new )?(?:payment|transaction|transfer|wire)\b`),
		nw([]string{"modify", "change", "update", "alter", "replace"}, 40, `\b(?:recipient|payee|beneficiary|bank details|iban|account number|routing number)\b`),
		pl([]string{"siphon", "launder", "loan", "credit"}, `\bsiphon\w*|\bmoney[- ]launder\w*|\bapply for (?:a |an )?(?:loan|credit)\b`),
	}},
	{"grant_access", "asks to grant access or change credentials", 0.5, []alt{
		nw([]string{"grant", "give", "provide", "assign", "add"}, 50, `\b(?:access|permissions?|admin(?:istrator)?(?: rights| role| privileges)?|ownership|owner|root|sudo|privileges|rights)\b`),
		nw([]string{"change", "update", "modify", "set"}, 50, `\b(?:sharing|permissions?|access level|privacy|visibility)\b`),
		nr([]string{"invite"}, `\binvite\b`, 50, `\bas (?:an? )?(?:admin(?:istrator)?|owner|collaborator|member|maintainer|editor)\b|^\s*['"]?[\w.+-]+@`),
		nw([]string{"change", "reset", "update", "set"}, 40, `\b(?:password|passcode|pin|2fa|mfa|recovery email|security questions?)\b`),
		nw([]string{"unlock", "open"}, 30, `\b(?:my|our|the user'?s|their|front|back)\b[^.;\n]{0,15}?\b(?:door|lock|garage|gate|safe|vault)\b`),
		nr([]string{"redirect"}, `\bredirect\w*\b`, 50, `\b(?:shipment|package|delivery|deliveries|payments?|mail|emails?|calls?|traffic)\b`),
	}},
	{"disable_safeguard", "asks to drop a safeguard", 0.45, []alt{
		pl([]string{"--no-verify"}, `--no-verify\b`),
		nr([]string{"skip"}, `\bskip(?:s|ped|ping)?\b`, 30, `\b(?:tests?|ci|checks?|reviews?|code review|validation|verification|confirmation|approval|audits?)\b`),
		nr([]string{"mark"}, `\bmark\w*\b`, 50, `\bas (?:passed|passing|successful|succeeded|success|green|done|resolved|complete|completed|verified|approved)\b`),
		nw([]string{"disable", "turn off", "bypass", "deactivate", "switch off", "circumvent"}, 40, `\b(?:2fa|mfa|two-factor|firewall|antivirus|logging|monitoring|alerts?|security|tests?|ci|checks?|protection|sandbox|guardrails?|rate limit|audit)\b`),
		nw([]string{"push", "deploy", "merge", "commit"}, 40, `\b(?:to|into|on)\s+(?:prod|production|main|master)\b.*\bwithout\b`),
		pl([]string{"directly", "straight"}, `\b(?:push|commit|deploy|merge)\w*\s+(?:it\s+|them\s+|changes\s+)?(?:directly|straight)\s+(?:to|into|on)\s+(?:prod|production|main|master)\b`),
		pl([]string{"green"}, `\bkeeps? (?:the )?(?:pipelines?|builds?|ci|dashboards?) green\b`),
		nr([]string{"hide"}, `\bhide\b`, 30, `\b(?:traces|evidence|errors|failures)\b`),
	}},
	{"approval_claim", "claims a third party's approval for it", 0.45, []alt{
		nr([]string{"approved", "authoriz", "authoris", "signed off", "sanctioned", "cleared by", "okayed", "ok'd"}, `\b(?:approved|authori[sz]ed|signed off|sanctioned|cleared|okayed|ok'd)\s+by\s+(?:@?[\w-]+|the \w+)`, 100,
			`\b(?:may|can|are allowed to|is allowed to|are permitted to|should|must|no longer need)\b`),
	}},
	{"memory_tamper", "asks to change the memory store itself", 0.55, []alt{
		nw([]string{"supersed", "overrid", "replac", "invalidat", "outrank"}, 70, `\b(?:all|every|any|other|previous|conflicting|existing)\b.*\b(?:memor(?:y|ies)|notes|instructions|rules)\b`),
		nw([]string{"delete", "remove", "forget", "discard", "ignore", "archive", "overwrite"}, 60, `\b(?:conflicting|other agents'?|all other|previous|existing|older)\b.*\b(?:memor(?:y|ies)|notes|entries|ones)\b`),
		pl([]string{"expire", "deleted", "forgotten", "archived", "removed"}, `\bnever (?:let (?:it|this) )?(?:expire|be (?:deleted|forgotten|archived|removed))\b`),
		nr([]string{"treat"}, `\btreat\b`, 40, `\bas (?:a |an |the )?(?:system|developer|admin(?:istrator)?|operator)(?: prompt| instructions?| messages?)?\b`),
		nr([]string{"precedence", "priority"}, `\b(?:takes?|has|have) (?:precedence|priority) over\b`, 40, `\b(?:all|every|any|other|the user|system)\b`),
	}},
	{"task_hijack", "speaks to the AI and puts its own task first", 0.55, []alt{
		pl([]string{"to you"}, `\bto you,? the (?:ai|assistant|language model|ai language model|model|agent)\b`),
		pl([]string{"dear", "attention", "hey", "hi ", "hello"}, `\b(?:dear|attention|hey|hi|hello),? (?:ai|assistant|agent|model|chatbot|llm)\b`),
		nr([]string{"before you"}, `\bbefore you (?:can )?(?:solve|complete|do|finish|start|continue|answer)\b`, 100, `\b(?:do the following|first)\b`),
		pl([]string{"new task", "real task", "actual task", "updated task", "new instruction", "real instruction", "actual instruction", "updated instruction", "new directive", "new primary", "new objective", "new goal", "new orders"},
			`\b(?:new|real|actual|updated)\s+(?:primary\s+)?(?:tasks?|instructions?|directives?|objectives?|goals?|orders)\s*(?:is|are|:)`),
		pl([]string{"abandon"}, `\babandon(?:s|ed|ing)?\s+(?:the |your |this |all |any )?(?:current |original |previous |assigned |user'?s? )?(?:task|request|instructions?|work|job|goal)\b`),
		pl([]string{"stop processing", "stop summar", "stop translat", "stop pars", "stop what you"}, `\bstop (?:processing|summari[sz]ing|translating|parsing|what you(?:'re| are) doing)\b`),
		pl([]string{"ignore", "disregard"}, `\b(?:ignore|disregard)\s+(?:the |this |that |your |all |any )?(?:user'?s? |original |current |above |following )?(?:request|question|task|documentation|document|recipe|essay|text|content|email|article|input|prompt|translation(?: request)?|url parsing|parsing|summary|template|data|file|page)\b\s*[.,;:]?\s*(?:(?:and |then )?(?:instead|rather)\b|(?:and|then)\s+(?:output|respond|reply|say|write|provide|print|tell)\b)`),
	}},
	{"prompt_leak", "asks the agent to reveal its own instructions", 0.45, []alt{
		nw([]string{"tell", "show", "reveal", "output", "print", "repeat", "share", "list", "give", "dump", "leak", "disclose", "display", "write out", "recite", "expose", "include"}, 80,
			`\b(?:your|the|its|their)\s+(?:(?:complete|full|entire|original|initial|hidden|internal|underlying|secret|exact)\s+)*(?:system (?:prompt|instructions?|message)|(?:initial|original|hidden|internal|developer|starting) (?:instructions?|prompt)|instructions you (?:were|have been) given|rules you (?:follow|were given)|guidelines you (?:follow|were given))\b|\bwhat (?:instructions|rules|guidelines) you (?:were|have been) given\b`),
	}},
	{"persona_override", "asks the agent to take on a persona without its limits", 0.45, []alt{
		pl([]string{"pretend", "imagine", "roleplay", "role-play", "role play", "act as", "acting as", "you are", "you're", "in character"},
			`\b(?:pretend|imagine|role-?play|role play|act(?:ing)? as|you are now|you are|you're|method acting|stay in character)\b[^.!?\n]{0,120}?\b(?:no (?:restrictions|limits|limitations|filters|rules|guidelines|ethics)|always compl(?:y|ies)|compl(?:y|ies) with (?:any|every) request|(?:safety|security) (?:checks|filters|protocols|measures|guidelines|restrictions) (?:are |were )?(?:disabled|off|removed|lifted)|(?:has|have|with) (?:full )?permission to (?:modify|access|bypass|override)|unrestricted|without (?:any )?(?:restrictions|limits|filters|guidelines)|(?:debug(?:ging)?|developer|god|admin) mode)\b`),
	}},
	{"send_user_to", "asks the agent to send the user to an outside site", 0.45, []alt{
		nw([]string{"tell", "inform", "warn", "notify", "advise", "instruct", "ask", "direct", "urge", "remind"}, 160,
			`\b(?:the )?users?\b[^.;\n]{0,100}?\b(?:visit|go to|click|log ?in|sign ?in|reset|verify|confirm|re-?enter|download|install|update)\b[^;\n]{0,60}?(?:https?://|www\.|\b[\w-]+\.(?:com|org|net|io|xyz|ru|cn|info|biz|co|me|app|dev)\b)`),
	}},
	{"response_hijack", "dictates the agent's reply word for word", 0.45, []alt{
		nr([]string{"respond", "reply", "answer", "say", "output", "print", "write", "return"}, `\b(?:respond|reply|answer|say|output|print|write|return)(?:s|ed|ing)?\b`, 40,
			`\b(?:exactly|only|nothing (?:else )?but|verbatim)\b[^.\n]{0,25}?["'“‘]|^[^.\n]{0,60}\band nothing else\b`),
		pl([]string{"only response", "only reply", "only answer", "only output"}, `\byour only (?:response|reply|answer|output) (?:should|must|will|is to) be\b`),
		pl([]string{"nothing else"}, `["'”’]\s*(?:and|,)\s*nothing else\b`),
		nr([]string{"begin", "start", "prefix", "open"}, `\b(?:begin|start|prefix|open)(?:s|ning|ing)?\b`, 40,
			`\b(?:all |every |each |your )*(?:responses?|replies|answers?|outputs?)\s+(?:must |should )?(?:with|by saying)\s*["'“‘]`),
		pl([]string{"append", "add"}, `\b(?:append|add)\w*\s+(?:this |the following )?(?:to|at the end of)\s+(?:your|every|each|the)\s+(?:response|reply|answer|output)\s*:`),
		pl([]string{"responses must", "responses should"}, `\ball (?:responses|replies|answers) (?:must|should) (?:begin|start|end) with\b`),
	}},
	{"directive_tag", "a tag that poses as system or admin instructions", 0.5, []alt{
		{any: []string{"<", "["}, a: directiveTagRe},
	}},
	{"secrecy", "asks to keep it from the user", 0.4, []alt{
		pl([]string{"silent", "secret", "covert", "quiet", "discreet", "stealth", "behind the user"}, `\b(?:silently|secretly|covertly|quietly|discreetly|stealthily|behind the user'?s back)\b`),
		pl([]string{"without telling", "without informing", "without notifying", "without alerting", "without letting", "without asking"}, `\bwithout (?:telling|informing|notifying|alerting|letting|asking) (?:the )?(?:user|owner|anyone|them|him|her|me)\b`),
		nr([]string{"tell", "inform", "notify", "mention", "reveal"}, `\b(?:don'?t|do not|never)\s+(?:tell|inform|notify|mention|reveal|show)\b`, 30, `\b(?:user|owner|anyone|human)`),
	}},
	{"harm", "asks for a harmful or unauthorised act", 0.5, []alt{
		nr([]string{"fake", "faking", "false", "fabricat", "bogus", "forg"}, `\b(?:fak(?:e|ed|ing)|false|fabricat\w*|bogus|forg\w*)\b`, 30,
			`\b(?:evidence|reports?|statements?|diagnos\w+|claims?|bills?|invoices?|records?|reviews?|accounts?|documents?|contracts?|signatures?|certificates?|ids?|results?|receipts?)\b`),
		pl([]string{"mislead", "deceiv", "defraud", "threaten", "intimidat", "coerc", "extort", "surveil", "wiretap", "eavesdrop", "fraud", "launder", "falsif", "sabotag", "embezzl", "brib", "blackmail", "counterfeit", "insider trading", "malware", "ransomware", "backdoor", "keylogger", "phishing", "steal", "stole", "ddos", "illegally", "illegitimately", "plagiari", "harass", "doxx", "spy on"},
			`\b(?:mislead\w*|deceiv\w*|defraud\w*|threaten\w*|intimidat\w*|coerc\w*|extort\w*|surveil\w*|wiretap\w*|eavesdrop\w*|fraud\w*|launder\w*|falsif\w*|sabotag\w*|embezzl\w*|brib\w*|blackmail\w*|counterfeit\w*|insider trading|malware|ransomware|backdoors?|keyloggers?|phishing|steal\w*|stole|ddos|illegally|illegitimately|plagiari[sz]\w*|harass\w*|doxx\w*|spy on)\b`),
		pl([]string{"illegal", "unlawful", "unauthoriz", "unauthoris", "fraudulent", "unethical"}, `\b(?:conduct|perform|carry out|engage in|commit|make|provide)\w*\s+(?:an? )?(?:illegal|unlawful|unauthori[sz]ed|fraudulent|unethical)\b|\bunauthori[sz]ed (?:access|transfers?|changes?|disclosure|purchases?|shutdowns?)\b`),
		pl([]string{"without"}, `\bwithout (?:a )?(?:valid|proper|medical|legal|any) (?:reason|necessity|grounds|justification|basis|prescription)\b|\bwithout (?:proper |prior )?(?:authori[sz]ation|consent|permission)\b|\bwithout leaving (?:any )?traces?\b`),
		nw([]string{"resulting in", "leading to", "causing", "to cause", "cause", "trigger"}, 40, `\b(?:significant|widespread|severe|maximum|serious|irreparable|lasting|intentional|deliberate|hardware|academic|financial)\b[^.;\n]{0,15}?\b(?:harm|damage|disruptions?|interruptions?|downtime|malfunctions?|adverse effects|losses|injur\w+|chaos|panic|crash(?:es)?|outages?)\b`),
		pl([]string{"unnoticed", "non-public", "insider"}, `\b(?:goes|go|remain|stay)s? unnoticed\b|\b(?:non-public|insider),? (?:material )?information\b|\bmalicious (?:code|software|payloads?|scripts?|links?|websites?)\b`),
		pl([]string{"synthes", "manufactur", "make", "making", "build", "produc", "extract", "cook", "assembl"},
			`\b(?:synthes\w+|manufactur\w+|mak(?:e|ing)|build(?:ing)?|produc\w+|extract\w*|cook\w*|assembl\w+)\b[^.\n]{0,40}?\b(?:methamphetamine|fentanyl|heroin|cocaine|ricin|sarin|nerve (?:agents?|gas)|anthrax|bioweapons?|chemical weapons?|explosives?|pipe bombs?|bombs?|napalm|ghost guns?)\b`),
		pl([]string{"hack into", "hacking into", "break into"}, `\b(?:hack(?:ing)?|break(?:ing)?) into (?:[\w'-]+ ){0,3}?(?:system|account|network|server|computer|phone|email|database|bank)s?\b`),
		nr([]string{"infect", "intercept"}, `\b(?:infect|intercept)\b`, 30, `\b(?:firmware|servers?|systems?|computers?|devices?|networks?|machines?|files|traffic|communications|emails?|messages|calls|data)\b`),
		nr([]string{"breach"}, `\bbreach(?:es|ed|ing)?\b`, 20, `\b(?:database|system|network|server|records|security|firewall)\b`),
		nr([]string{"tamper"}, `\btamper\w*`, 10, `\bwith\b`),
		nr([]string{"manipulat"}, `\bmanipulat\w*\b`, 20, `\b(?:records|results|prices|market|data|grades|votes|evidence|testimony|proceedings)\b`),
	}},
	{"alter_records", "asks to alter sensitive records", 0.45, []alt{
		nw([]string{"update", "alter", "modify", "change", "delete", "remove", "edit", "rewrite", "tamper"}, 60, `\b(?:health|medical|patient|financial|legal|court|case|tax|bank|insurance|payroll|hr|employee|student|exam|grade|genetic|criminal|police)s?\b[^.;\n]{0,15}?\b(?:records?|files?|data|histor(?:y|ies)|reports?|statements?|results?|documents?|evidence|backups?)\b`),
	}},
	{"operate_devices", "asks to operate devices or security infrastructure", 0.4, []alt{
		pl([]string{"traffic light", "emergency", "robot", "thermostat", "smart lock", "door lock", "alarm system", "security camera", "firewall", "blacklist", "blocklist", "dns record", "firmware", "drone"},
			`\b(?:traffic lights?|emergency (?:vehicles?|response|services|dispatch)|(?:home )?robots?|thermostats?|smart locks?|door locks?|alarm systems?|security cameras?|firewall (?:rules?|polic\w+)|(?:black|block)list polic\w+|dns records?|firmware|drones?)\b`),
	}},
	{"personal_action", "asks the agent to act on the user's accounts or belongings", 0.35, []alt{
		nr([]string{"my "}, `(?:^|[.!?:]\s+)(?:please\s+)?(?:move|update|delete|cancel|book|order|change|modify|add|remove|create|schedule|set|unlock|lock|turn|switch|transfer|send|share|post|sell|buy|close|open|disable|enable|reset|renew|sign)\b`, 70,
			`\bmy\s+(?:\w+\s+){0,2}(?:account|accounts|files?|folder|documents?|data|records?|emails?|inbox|calendar|door|lock|car|house|home|phone|contacts|shipment|order|orders|subscription|bank|card|wallet|portfolio|medical|health|genetic|prescription|repository|repositories|password|settings|security|camera|thermostat|alarm|devices?)\b`),
	}},
}

// directiveTagRe finds tags that pose as instructions from the system or
// an administrator: <system_prompt>, <system_note>, [ADMIN], [INSTRUCTION].
// directiveTagRe finds a tag, marker or key that poses as a channel
// of orders: "<system>", "[ADMIN]", "[AI_OVERRIDE]", "[PRIORITY
// INSTRUCTION]:", "---SYSTEM---", "###SYSTEM###", "{{#AI_INSTRUCTION}}",
// a JSON key "__ai_instruction__". A bracketed phrase followed by "(" is a
// markdown link ("[Developer guide](...)"), not a tag.
var directiveTagRe = regexp.MustCompile(`(?i)<\s*/?\s*(?:system|admin|instructions?|developer|hidden)[\w-]*(?:\s+\w+\s*=\s*['"][^'"<>]{0,80}['"]){0,6}\s*>` +
	`|\[\s*(?:(?:ai|llm|priority|hidden|encoded|secret|urgent|new)[ _-])?(?:admin|instructions?|system|developer|sudo|root|override|directive)(?:[ _-]\w+)?\s*(?:\]\s*(?:[^(\s]|$)|:)` +
	`|\[\s*(?:ai|llm|hidden)(?:[ _-]\w+)?\s*\]\s*:` +
	`|(?:^|\n)\s*(?:-{3,}|#{3,}|={3,})\s*(?:end[ _-]?)?(?:system|admin|instructions?|developer)(?:[ _-]\w+)?\s*(?:-{3,}|#{3,}|={3,})` +
	`|\{\{\s*[#/]?\s*(?:ai[ _-]?)?(?:system|instructions?|directive|override)\w*\s*\}\}` +
	`|["']_*(?:ai|llm|agent|assistant)[ _-]?(?:instructions?|directives?|override|command)_*["']\s*:`)

// negationRe finds a prohibition at the end of a clause's prefix: "never",
// "do not", "avoid" before the effect make it a rule against the effect.
var negationRe = regexp.MustCompile(`(?i)\b(?:never|don'?t|do not|does not|doesn'?t|must not|mustn'?t|should not|shouldn'?t|cannot|can'?t|avoid|no one should|not allowed to|prohibited|forbidden|refuse to|prevent|without having to|instead of)\b[^.;:\n]{0,40}$`)

// directed reports whether text is aimed at an agent: an imperative
// sentence, a second-person or agent addressee, a standing trigger, or a
// note to future sessions.
var (
	// addresseeExprs say that a text speaks to an agent. They are kept as
	// several expressions so that each splits into gated alternatives,
	// and as text: only their gated alternatives are compiled (see
	// gatedIntent).
	addresseeExprs = []string{
		`(?i)\byou (?:must|should|need to|have to|will need to|are to|shall|may now|can now|are (?:now )?(?:allowed|permitted|required|expected) to)\b|\byou are now\b|\byou'?re an? (?:\w+ )?(?:agent|assistant)\b`,
		// A message to AI readers: "Note to AI:", "Notice to AI systems",
		// "Message for AI browsing assistants", "AI AGENT DIRECTIVE",
		// "If you are an AI", "AUTOMATED PROCESSORS:". Rules files address
		// agents this way too; it opens the effect cues, it sets no risk.
		`(?i)\b(?:notes?|notice|message|memo|directive|instructions?|warning|attention|alert|reminder|request|directions?)\s+(?:to|for)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:ai|llms?|language models?|(?:ai|automated|autonomous)\s+(?:systems?|agents?|assistants?|models?|processors?|crawlers?|browsing assistants?)|assistants?|agents?|bots?)\b`,
		`(?i)\b(?:ai|llm)[ _-]?(?:agent[ _-])?(?:directive|instructions?|override|note|command)s?\b|\bif you are an? (?:ai|llm|language model|assistant|agent|bot)\b|\b(?:automated|autonomous) (?:processors?|agents?|systems?)\s*:|\bas an? (?:ai|llm|browsing|file[- ]editing|shopping|email) (?:agent|assistant|model)\b`,
		`(?i)(?:^|\n)\s*(?:new|updated|priority|urgent)\s+(?:directive|instructions?|task|orders?)\s*:|\bsystem (?:notice|message|directive|alert|override|instruction)s?\s*:`,
		// Text that breaks out of the data it sits in: a tool call spelled
		// out, a forged chat message, a data tag closed before more text.
		`(?i)\b(?:send[_-]?e?-?mail|send[_-]message|post[_-]message|transfer[_-]funds|send[_-]money)\s*\(|\{\s*"role"\s*:\s*"(?:user|system|assistant|developer)"|</(?:email|document|context|data|summary|content|text|input|tool_output|result|search_results?)>\s*\S|\[/?END[_ ]?(?:EMAIL|DOCUMENT|CONTEXT|DATA|INPUT|TEXT)\]`,
		`(?i)\byour (?:task|job|instructions?|goal)\b|\b(?:wants|needs|asks|expects|would like|told|instructed|asked|wanted) you to\b|\bagents? (?:may|must|should|can|are allowed to|are permitted to|no longer need to)\b|\b(?:the |all |every |other |any )(?:ai|assistant|agents?|models?|bots?|llms?)\b|\bai (?:language )?model\b|\b(?:future|next|later|every|all) sessions?\b|\bgoing forward\b|\bfrom now on\b`,
	}
	triggerExpr = `(?i)\b(?:whenever|every time|each time|before (?:you|answering|responding|replying|solving|starting|doing|proceeding|any)|after (?:you|each|every)|when(?:ever)? you (?:see|get|receive|read|find)|at the (?:start|end|beginning) of (?:each|every|the) (?:session|task|conversation|reply))\b`
	targetRe    = regexp.MustCompile(`(?i)[\w.+-]+@[\w-]+\.[\w.]+|https?://\S+|\bwww\.\S+|\b(?:\d{1,3}\.){3}\d{1,3}\b|\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b|\baccount (?:id |number |no\.? )?#?\s?\d{4,}|\b[\w-]+\.(?:com|org|net|io|xyz|ru|cn|info|biz|co|me|app|dev)\b`)
)

// actionVerbs start an imperative sentence that asks for an act.
var actionVerbs = map[string]bool{
	"send": true, "email": true, "e-mail": true, "forward": true, "post": true, "upload": true, "share": true,
	"transfer": true, "wire": true, "pay": true, "deposit": true, "withdraw": true, "divert": true, "reallocate": true,
	"grant": true, "give": true, "invite": true, "unlock": true, "open": true, "delete": true, "remove": true,
	"erase": true, "wipe": true, "drop": true, "destroy": true, "purge": true, "move": true, "redirect": true,
	"update": true, "change": true, "modify": true, "reset": true, "create": true, "schedule": true, "book": true,
	"order": true, "buy": true, "purchase": true, "sell": true, "cancel": true, "approve": true, "sign": true,
	"publish": true, "leak": true, "disclose": true, "sabotage": true, "breach": true, "inject": true,
	"conduct": true, "provide": true, "apply": true, "file": true, "extract": true, "copy": true, "download": true,
	"install": true, "run": true, "execute": true, "disable": true, "skip": true, "mark": true, "fill": true,
	"set": true, "add": true, "make": true, "get": true, "retrieve": true, "collect": true, "print": true,
	"reveal": true, "export": true, "push": true, "merge": true, "deploy": true, "commit": true, "manipulate": true,
	"falsify": true, "alter": true, "initiate": true, "issue": true, "approve,": true, "supersede": true,
	"treat": true, "please": true, "kindly": true, "always": true, "ignore": true, "forget": true, "tell": true, "do": true,
	"disregard": true, "abandon": true, "inform": true, "notify": true, "warn": true, "respond": true, "reply": true, "output": true, "say": true,
}

// imperativeAct reports whether a sentence of text starts with an action
// verb, after lead-ins such as "Remember for future sessions:",
// "IMPORTANT:" or "Convention:".
// greetingRe is a salutation that may open an imperative sentence.
var greetingRe = regexp.MustCompile(`(?i)^\s*(?:hi|hello|hey|dear|greetings)\b[^,]{0,30},\s*`)

func imperativeAct(text string) bool {
	for _, s := range strings.FieldsFunc(text, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '\n' || r == ':' || r == ';' }) {
		s = greetingRe.ReplaceAllString(s, "") // "Hi Adam, please send ..."
		f := strings.Fields(s)
		if len(f) < 2 {
			continue
		}
		for len(f) > 2 && (strings.HasPrefix(f[0], "[") && strings.HasSuffix(f[0], "]") || strings.HasPrefix(f[0], "<") && strings.HasSuffix(f[0], ">")) {
			f = f[1:] // a lead-in tag: "[ADMIN] Disable ..."
		}
		w := asciiLower(strings.Trim(f[0], "\"'*-•,()[]<>`"))
		// "Wire Payment of $150" is a title, not an order: the word after
		// an imperative verb is not capitalised (names and "I" aside,
		// which a verb rarely precedes in an order to an agent).
		if next := f[1]; actionVerbs[w] && !(next[0] >= 'A' && next[0] <= 'Z' && len(next) > 1 && next[1] >= 'a' && next[1] <= 'z' && w != "please" && w != "kindly" && w != "always") {
			return true
		}
	}
	return false
}

// intentScreening is what the intent layer found.
type intentScreening struct {
	risk    float64
	types   []string
	reasons []string
}

// readIntent screens text for what it asks an agent to do.
func readIntent(text, lower string) intentScreening {
	var out intentScreening
	// Effects described, not asked for ("the finance team transfers the
	// payroll"), do not count: only a text aimed at an agent is read for
	// them, which also spares the cues on most memories.
	if !(imperativeAct(text) || gatedIntent().match(text, lower)) {
		return out
	}
	best, kinds := 0.0, 0
	tokens := wordTokens(lower)
	has := intentSet.scan(lower)
	// A canonical installer piped to a shell is how a tool is installed
	// (see officialInstallers); the effects layer judges every other
	// fetched script.
	for _, c := range effectCues {
		if slices.Contains(out.types, c.typ) {
			continue
		}
		hit := false
		for _, x := range c.alts {
			if x.find(text, lower, tokens, has) >= 0 {
				hit = true
				break
			}
		}
		// Destruction scoped to something disposable ("the local dev
		// database", "the e2e databases") is housekeeping (see scopeFrag).
		if !hit || c.typ == "destroy" && scopeRe.MatchString(text) {
			continue
		}
		out.types = append(out.types, c.typ)
		out.reasons = append(out.reasons, c.reason)
		kinds++
		best = max(best, c.weight)
	}
	if kinds == 0 {
		return out
	}
	risk := best + 0.2 // asked of an agent
	if kinds > 1 {
		risk += 0.1
	}
	if targetRe.MatchString(text) {
		risk += 0.1
	}
	out.risk = min(risk, 0.9)
	return out
}

// intentGate holds the expressions that open the intent layer, split
// into their alternatives, each behind the strings every one of its
// matches must contain (see gate.go). Whole, they ran Go's slowest engine
// over every byte of every text, most of a store's time on a long one.
// The strings are found in one pass over the text (set), not looked for
// one by one, which had become a fifth of a store's time.
type intentGate struct {
	alts []gatedRe // need numbered in set (ids)
	set  *stringSet
}

var (
	intentGateOnce sync.Once
	intentGates    *intentGate
)

func gatedIntent() *intentGate {
	intentGateOnce.Do(func() {
		g := &intentGate{}
		for _, expr := range append(slices.Clone(addresseeExprs), triggerExpr, directiveTagRe.String()) {
			g.alts = append(g.alts, splitAlternatives(expr, true)...)
		}
		var all []string
		for _, a := range g.alts {
			for _, group := range a.need {
				all = append(all, group...)
			}
		}
		g.set = newStringSet(all)
		for i := range g.alts {
			a := &g.alts[i]
			a.ids = make([][]int32, len(a.need))
			for j, group := range a.need {
				for _, w := range group {
					a.ids[j] = append(a.ids[j], g.set.id(w))
				}
			}
		}
		intentGates = g
	})
	return intentGates
}

// match reports whether one of the expressions matches text; lower is its
// ASCII lower-case form.
func (g *intentGate) match(text, lower string) bool {
	has := g.set.scan(lower)
next:
	for _, a := range g.alts {
		for _, group := range a.ids {
			if !has.anyOf(group) {
				continue next
			}
		}
		if a.re.MatchString(text) {
			return true
		}
	}
	return false
}

// prohibited reports whether the clause before position i in text
// forbids what follows ("never", "do not", "avoid").
func prohibited(text string, i int) bool {
	start := i - 60
	if start < 0 {
		start = 0
	}
	return negationRe.MatchString(text[start:i])
}
