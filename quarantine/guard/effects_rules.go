package guard

import (
	"regexp"
	"strings"
)

// The rules of the effects layer, by class. Each names the kind of effect
// and its object by their structure; none is a sentence. The lexicons of
// the other languages are in effects_lang.go.

// Effect classes.
const (
	fxFetchedCode = "fetched_code"
	fxHiddenCode  = "hidden_code"
	fxCredentials = "credentials"
	fxSendOut     = "send_out"
	fxSafeguard   = "safeguard_off"
	fxDestroy     = "destroy"
	fxPrivilege   = "privilege"
	fxSecrecy     = "secrecy"
	fxOverride    = "override"
	fxMoney       = "move_money"
)

func fxRx(s string) *regexp.Regexp { return regexp.MustCompile(`(?i)` + s) }

// fxAfter, fxBefore and fxNear build parts.
func fxAfter(s string, n int) fxPart  { return fxPart{re: fxRx(s), after: true, near: n} }
func fxBefore(s string, n int) fxPart { return fxPart{re: fxRx(s), before: true, near: n} }
func fxNear(s string, n int) fxPart   { return fxPart{re: fxRx(s), near: n} }

// Fragments shared by the rules (all used under (?i)).
const (
	// A shell or interpreter that a download is piped to.
	shellFrag = `(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:(?:/usr)?(?:/local)?/bin/)?(?:(?:ba|z|da|k|fi|a)?sh|python[0-9.]*|node|perl|ruby|php|iex|invoke-expression|pwsh|powershell(?:\.exe)?|bun|deno|source)\b`

	// A credential, a file or variable that holds one.
	secretFrag = `(?:\b(?:passwords?|passphrases?|passwd|credentials?|creds|secrets?|api[ _-]?keys?|access[ _-]?keys?|secret[ _-]?keys?|private[ _-]?keys?|ssh[ _-]?(?:private[ _-]?)?keys?|deploy[ _-]?keys?|signing[ _-]?(?:keys?|secrets?)|client[ _-]?secrets?|(?:access|auth|bearer|session|refresh|personal[ _-]access|bot|deploy|npm|github|gitlab|slack|production|prod|real|service|api)[ _-]?tokens?|tokens?|session[ _-]?cookies?|cookies?|cookie[ _-]jar|authorization[ _-]headers?|auth[ _-]headers?|keystore(?:[ _-]password)?|kubeconfigs?|service[- ]account(?:[ _-](?:json|keys?|files?|credentials))?|secrets\.ya?ml|credentials\.(?:json|ya?ml)|id_(?:rsa|ed25519|ecdsa|dsa)|[a-z][a-z0-9]*_(?:[a-z0-9]+_)*(?:secret|token|password|passwd|api_key|private_key|access_key)(?:_[a-z0-9]+)*)\b|\.env(?:\.[\w-]+)?\b|\.pem\b|~/\.(?:aws|ssh|gnupg|netrc|npmrc|pypirc|docker/config\.json)\b|\$\{\{\s*secrets\.)`

	// Verbs that put something where others read it.
	exposeFrag = `\b(?:paste|put|include|add|attach|append|print|echo|log|post|send|share|commit|check in|write|copy|store|save|bundle|embed|hard-?code|show|display|quote|reveal|upload|e-?mail|dump|expose|output|push|publish|mirror|forward|dm|cc|read out|place|bake|inline|drop)(?:s|es|ed|d|ing|ping|ped)?\b`

	// Places where a credential is exposed: shared, logged, public or
	// committed.
	// destDetFrag is what may stand between a preposition and the place.
	destDetFrag  = `(?:the\s+|a\s+|an\s+|our\s+|your\s+|their\s+|each\s+|every\s+|any\s+|its\s+|that\s+|this\s+|[\w-]+'s\s+)?(?:[\w'-]+\s+){0,3}?`
	destNounFrag = `(?:prs?|pull requests?|merge requests?|mrs?|commits?|commit messages?|issues?|issue (?:tracker|body|bodies|comments?|descriptions?)|tickets?|jira|slack|teams|discord|chats?|channels?|#[\w-]+|wiki(?: pages?)?|confluence|notion|readme|docs?/\S*|[\w./~-]+\.(?:md|txt|ya?ml|json|toml|ini|cfg|conf|properties|xml|py|js|ts|go|rb|java|kt|swift|plist|sh|tf|tfvars)\b|notes|summar(?:y|ies)|repl(?:y|ies)|answers?|messages?|responses?|gists?|pastebins?|pastes?|logs?|log (?:files?|output|lines?)|(?:info|debug|warn|warning) level|stdout|stderr|console|terminal output|repo|repos|repository|codebase|source(?: code)?|version control|git|assets/?|apps?|client|clients|frontend|bundle|query (?:param(?:eter)?s?|strings?)|urls?|memory|engram|preferences|/tmp\S*|emails?|comments?|descriptions?|changelogs?|release notes|status pages?|dashboards?|spreadsheets?|documents?|body|details block|<details>|screenshots?|output)\b`
	destFrag     = `(?:\bat\s+(?:the\s+)?(?:info|debug|warn|warning|trace)\s+level\b|\b(?:in|into|to|on|onto|inside|under|within|alongside|as part of)\s+` + destDetFrag + destNounFrag + `)`

	// Explicit outside addresses: an e-mail address, a URL, a git remote,
	// an FTP host, a public place.
	targetFrag = `(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:https?|ftp|sftp|s3|gs)://[^\s'"` + "`" + `<>)\]]+|\bgit@[\w.-]+:|\b(?:ftp|sftp)\.[\w-]+(?:\.[\w-]+)+|\b(?:public|publicly (?:readable|accessible)|world-readable|anonymous)\s+(?:s3\s+|gcs\s+)?(?:buckets?|gists?|repos?(?:itory)?|pastes?|pastebins?|links?|shares?|folders?|drives?|urls?|pages?)\b|\b(?:the\s+|an?\s+|our\s+)?(?:vendor|partner|contractor|third[- ]party|external|outside|personal)(?:'s)?\s+(?:[\w-]+\s+){0,2}?(?:ftp|sftp|server|bucket|account|e-?mail|address|inbox|endpoint|drive|site|portal|webhook)\b)`

	// Verbs that send something somewhere.
	sendFrag = `\b(?:send|sends|sent|sending|e-?mail(?:s|ed|ing)?|mail(?:s|ed|ing)?|forward\w*|upload\w*|post(?:s|ed|ing)?|push(?:es|ed|ing)?|mirror\w*|sync\w*|cop(?:y|ies|ied|ying)|cc|bcc|shar(?:e|es|ed|ing)|export\w*|transmit\w*|ship(?:s|ped|ping)?|replicat\w*|back(?:s|ed|ing)? up|dump\w*|attach\w*|publish\w*|submit\w*|relay\w*|stream\w*|beam\w*|deliver\w*|leak\w*|pipe[sd]?|piping|scp|rsync|exfiltrat\w*|transfer\w*|carry|carries)\b`

	// Data worth keeping in: personal, private, bulk, secret.
	dataFrag = `\b(?:(?:customer|client|patient|user|member|employee|student|candidate)s?'?(?:\s+[\w-]+){0,2}?\s+(?:data|records?|tables?|lists?|emails?|details|info(?:rmation)?|charts?|prompts?|pii|identifiers|contacts?|histor(?:y|ies)|files?|exports?|messages|conversations?|phones?|location)|contacts?|location(?: history)?|personal (?:data|information|details)|pii|phi|transactions?|ledger|exports?|dumps?|databases?|db|tables?|backups?|conversations?|transcripts?|chat (?:logs?|history|histories)|chat logs?|prompts?|session (?:data|logs?|recordings?)|logs?|stack traces?|source(?: code| files)?|repo(?:sitory|sitories)?|codebase|config(?:uration)?(?: files?| director(?:y|ies))?|env(?:ironment)? (?:variables|vars|files?)|env vars|env|training data|datasets?|weights|files?|archives?|tarballs?|zips?|cookies?|localstorage|sessionstorage|(?:shell |bash |browser )?history|payloads?|snapshots?|everything|contents|documents|emails|inbox|messages|comments|keys|tokens|passwords|credentials|secrets?|spreadsheets?|records?|query results|extracts?|identifiers)\b|~/\.\w+|\.env\b`

	// Words that scope a destructive or privileged command to something
	// disposable or one's own.
	scopeFrag = `\b(?:localhost|local (?:dev\w*|database|db|machine|checkout|copy|clone|branch|environment|cluster|docker|stack|setup)|dev(?:elopment)?\s+(?:vm|box|db|database|databases|environment|machine|server|cluster)|your own|own (?:machine|branch|branches|runs?|vm|laptop|dev|fork|copy)|throwaway|ephemeral|sandbox(?:es)?|sbx-|scratch (?:dir\w*|space|disks?|volumes?|instances?|workspaces?|areas?|databases?)|/scratch\b|tmp|temp(?:orary)?|e2e|test (?:dbs?|databases?|data|accounts?|fixtures?|env\w*|instances?|clusters?)|fixtures?|caches?|build (?:outputs?|artifacts?|dir\w*|folders?)|dist/?|node_modules|preview|feature branch(?:es)?|personal branch(?:es)?|before (?:review|anyone)|draft prs?|retention polic\w+|lifecycle polic\w+|teardown)\b`
)

var scopeRe = fxRx(scopeFrag)

// sendGate and exposeGate gate the verbs of sending and exposing, whose
// expressions hold words too short to gate them ("cc", "dm").
var (
	sendGate   = []string{"send", "sent", "mail", "forward", "upload", "post", "push", "mirror", "sync", "cop", "cc", "shar", "export", "transmit", "ship", "replicat", "back", "dump", "attach", "publish", "submit", "relay", "stream", "beam", "deliver", "leak", "pip", "scp", "rsync", "exfiltrat", "transfer", "carr"}
	exposeGate = []string{"paste", "put", "includ", "add", "attach", "append", "print", "echo", "log", "post", "send", "shar", "commit", "check", "writ", "wrote", "cop", "stor", "sav", "bundl", "embed", "hard", "show", "display", "quot", "reveal", "upload", "mail", "dump", "expos", "output", "push", "publish", "mirror", "forward", "dm", "cc", "read", "plac", "bak", "inlin", "drop"}
)

// destGate gates the rules that need a place a credential is exposed in.
var destGate = []string{"pr", "pull request", "merge request", "mr", "commit", "issue", "ticket", "jira", "slack", "teams", "discord", "chat", "channel", "#", "wiki", "confluence", "notion", "readme", "doc", ".md", ".txt", ".y", ".json", ".toml", ".ini", ".cfg", ".conf", ".properties", ".xml", ".py", ".js", ".ts", ".go", ".rb", ".java", ".kt", ".swift", ".plist", ".sh", ".tf", "notes", "summar", "repl", "answer", "message", "response", "gist", "paste", "log", "level", "stdout", "stderr", "console", "terminal", "repo", "codebase", "source", "version control", "git", "asset", "app", "client", "frontend", "bundle", "query", "url", "memory", "engram", "preferences", "/tmp", "mail", "comment", "description", "changelog", "release notes", "status page", "dashboard", "spreadsheet", "document", "body", "details", "screenshot", "output", "public"}

// targetGate gates the rules that need an outside address.
var targetGate = []string{"@", "://", "ftp", "public", "vendor", "partner", "contractor", "third", "external", "outside", "personal"}

// fxScoped reports whether the clause around [s, e) of sent scopes the
// effect to something disposable or one's own.
func fxScoped(sent string, sp fxSpan) bool {
	lo, hi := max(0, sp.start-80), min(len(sent), sp.end+80)
	return scopeRe.MatchString(sent[lo:hi])
}

// fetchedHost judges a download run as code: the host named, unless it is
// one of the canonical installers (see officialInstaller).
func fetchedHost(sent string, _ []int, sp fxSpan, _ []fxSpan) (string, bool) {
	seg := sent[sp.start:sp.end]
	if strings.Contains(asciiLower(seg), "json.tool") {
		return "", false
	}
	h := fxHostOf(seg)
	if h == "" {
		h = fxHostOf(sent)
	}
	if officialInstaller(seg) || h != "" && officialInstaller(sent) && fxHostOf(sent) == h {
		return "", false
	}
	if h == "" {
		return "the network", true
	}
	return h, true
}

// externalTarget judges a send: the outside address, unless it is local
// or internal.
func externalTarget(sent string, _ []int, sp fxSpan, _ []fxSpan) (string, bool) {
	seg := sent[sp.start:sp.end]
	h := fxHostOf(seg)
	if h == "" {
		if m := fxTargetRe.FindString(seg); m != "" {
			return strings.TrimSpace(m), true
		}
		return "", false
	}
	if internalHost(h) {
		return "", false
	}
	// An address is personal data: the reason names its domain only.
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		return "an address at " + h[i+1:], true
	}
	return h, true
}

var internalHostRe = regexp.MustCompile(`(?i)^(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(?:1[6-9]|2\d|3[01])\.\d+\.\d+|\[?::1\]?)$|\.(?:internal|local|localhost|svc|cluster\.local|lan|home\.arpa)$|^[^.@]+$`)

func internalHost(h string) bool {
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		h = h[i+1:]
	}
	return internalHostRe.MatchString(h)
}

// secretObject rejects credentials that are not: placeholders, examples,
// the names of managers, scanners and stores of secrets.
var secretRe = fxRx(secretFrag + `|` + mlSecret)

var notSecretRe = fxRx(`(?:\.env\.(?:example|sample|template|dist|defaults?|local\.example)|\b(?:placeholders?|examples?|samples?|dummy|fake|redacted|masked|sk_test_\w*|your_\w+|name of|by (?:its|their) name)\b|\bsecrets?\s+(?:managers?|stores?|operators?|scann\w*|baselines?|rotation|vaults?|names?|engines?)\b|\bsecret manager\b|\b(?:no|without|zero|never)\s+(?:long-lived\s+|real\s+|\w+\s+)?(?:secrets?|credentials|keys|tokens|passwords)\b)`)

func secretObject(sent string, m []int, sp fxSpan, parts []fxSpan) (string, bool) {
	// The credential is the anchor or the first part that names one.
	obj := fxSpan{m[0], m[1]}
	if !secretRe.MatchString(sent[m[0]:m[1]]) {
		for _, p := range parts {
			if secretRe.MatchString(sent[p.start:p.end]) {
				obj = p
				break
			}
		}
	}
	lo, hi := max(0, obj.start-20), min(len(sent), obj.end+20)
	if notSecretRe.MatchString(sent[lo:hi]) {
		return "", false
	}
	// "... in the repository secrets" is the secret store of the forge.
	if forgeSecretsRe.MatchString(sent[sp.start:hi]) {
		return "", false
	}
	return "", true
}

// safeguardObject rejects a safeguard's name used for data: stripping
// "Authorization headers" from logs redacts them.
var safeguardDataRe = fxRx(`^\s*(?:headers?|tokens?|cookies?|codes?|fields?|values?|data|logs?|messages?|params?|parameters?)\b`)

func safeguardObject(sent string, _ []int, _ fxSpan, parts []fxSpan) (string, bool) {
	if len(parts) > 0 && safeguardDataRe.MatchString(sent[parts[0].end:]) {
		return "", false
	}
	return "", true
}

// notPiped rejects a value echoed into another command, which shows it
// to no one ("echo "$TOKEN" | cut -d. -f2 | base64 -d | jq").
var pipedRe = fxRx(`^["'}\s]*\|`)

func notPiped(j func(string, []int, fxSpan, []fxSpan) (string, bool)) func(string, []int, fxSpan, []fxSpan) (string, bool) {
	return func(sent string, m []int, sp fxSpan, parts []fxSpan) (string, bool) {
		if pipedRe.MatchString(sent[sp.end:]) {
			return "", false
		}
		return j(sent, m, sp, parts)
	}
}

// notOwnBranch rejects a force-push scoped to one's own branch, never to
// a shared one.
var (
	ownBranchRe    = fxRx(`\b(?:your own|own (?:feature )?branch(?:es)?|personal branch(?:es)?|feature branch(?:es)?|before (?:review|anyone)|draft (?:prs?|branch(?:es)?)|your fork|own fork)\b`)
	sharedBranchRe = fxRx(`\b(?:main|master|trunk|release\w*|prod\w*|develop|shared)\b`)
)

func notOwnBranch(sent string, _ []int, sp fxSpan, _ []fxSpan) (string, bool) {
	lo, hi := max(0, sp.start-80), min(len(sent), sp.end+80)
	if ownBranchRe.MatchString(sent[lo:hi]) && !sharedBranchRe.MatchString(sent[sp.start:sp.end]) {
		return "", false
	}
	return "", true
}

// notScoped rejects an effect that its clause scopes to something
// disposable or one's own.
func notScoped(sent string, _ []int, sp fxSpan, _ []fxSpan) (string, bool) {
	return "", !fxScoped(sent, sp)
}

// allRules returns every rule of the layer.
func allRules() []*fxRule {
	rs := []*fxRule{
		// Running code fetched from the network.
		{class: fxFetchedCode, what: "tells agents to run a script fetched from %s", judge: fetchedHost,
			re: fxRx(`(?:\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c)\b|https?://)[^|\n]{0,300}?\|\s*(?:tee\s+\S+\s*\|\s*)?` + shellFrag)},
		{class: fxFetchedCode, what: "tells agents to run a script fetched from %s", judge: fetchedHost,
			re: fxRx(`\b(?:(?:ba|z|da)?sh|source|\.)\s+<\(\s*(?:curl|wget)\b[^)\n]{0,300}`)},
		{class: fxFetchedCode, what: "tells agents to run a script fetched from %s", judge: fetchedHost,
			re: fxRx(`(?:\beval\b|\b(?:ba|z|da)?sh\s+-c|\bpython[0-9.]*\s+-c|\bnode\s+-e|\bperl\s+-e|\bruby\s+-e)\s*["']?\s*\$\(\s*(?:curl|wget)\b[^)\n]{0,300}`)},
		{class: fxFetchedCode, what: "tells agents to run a script fetched from %s", judge: fetchedHost,
			re: fxRx(`\b(?:iex|invoke-expression)\b[^\n]{0,300}?(?:downloadstring|\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b)|\bdownloadstring\s*\([^\n]{0,300}?\|\s*(?:iex|invoke-expression)\b`)},
		{class: fxFetchedCode, what: "tells agents to run code straight from %s", judge: fetchedHost,
			re: fxRx(`\b(?:deno\s+run|bun\s+run|bunx|npx|pnpm\s+dlx|uvx|pipx\s+run|go\s+run|ts-node)\s+(?:-\S+\s+)*https?://\S+`)},
		{class: fxFetchedCode, what: "tells agents to install a package from %s", judge: packageHost,
			re: fxRx(`\b(?:pip3?|uv\s+pip|pipx|poetry|npm|pnpm|yarn|gem|cargo)\s+(?:install|add|i)\b[^|\n;&]{0,80}?\s(?:git\+)?https?://\S+`)},
		{class: fxFetchedCode, what: "tells agents to run a script fetched from %s", judge: downloadThenRun,
			re: fxRx(`\b(?:curl|wget)\b[^|\n;&]{0,200}?(?:\s-[a-zA-Z]*o\s*|\s-O\s+|\s--output[= ]|\s--output-document[= ])([^\s-]\S*)`)},
		{class: fxFetchedCode, what: "tells agents to run a script fetched from %s", judge: fetchedHost,
			re:    fxRx(`\b(?:pipe|feed)(?:s|d|ing)?\b`),
			parts: []fxPart{fxAfter(`\b(?:into|to|through)\s+(?:the\s+|a\s+)?(?:(?:ba|z)?sh|bash|shell|interpreter|python|node|iex)\b`, 150), fxNear(`https?://|\b(?:installer|script)\b`, 200)}},
		{class: fxFetchedCode, what: "tells agents to run a script fetched from %s", judge: fetchedHostRequired,
			re:    fxRx(`\b(?:download|fetch|grab|pull|get)(?:s|ed|ing)?\b`),
			parts: []fxPart{fxAfter(`\b(?:and|then)\s+(?:then\s+)?(?:run|execute|exec|source|eval|launch|pipe)\w*\s+(?:it|them|that|the\s+(?:script|installer|binary|file|patch|helper))\b`, 160)}},
		{class: fxFetchedCode, what: "tells agents to run software fetched from %s", judge: fetchedHostRequired,
			re: fxRx(`\b(?:run|execute|source|eval|launch|apply)(?:s|ed|ing)?\s+(?:the\s+|a\s+|an\s+|our\s+|their\s+)?(?:latest\s+|patched\s+|new\s+)?(?:[\w-]+\s+){0,2}?(?:script|installer|binary|payload|code|patch|helper|hook|fix|tool|wheel|package|plugin|extension|agent)s?\s+(?:at|from|hosted (?:at|on)|served from|downloaded from)\s+(?:https?://\S+|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b)`)},

		// Exposing credentials.
		{class: fxCredentials, what: "tells agents to expose a credential", judge: secretObject, gates: [][]string{exposeGate, destGate},
			re:    fxRx(exposeFrag),
			parts: []fxPart{fxAfter(secretFrag, 110), fxAfter(destFrag, 200)}},
		{class: fxCredentials, what: "tells agents to expose a credential", judge: secretObject, gates: [][]string{destGate},
			re:    fxRx(`\b(?:keep|leave|stick)(?:s|ing)?\b`),
			parts: []fxPart{fxAfter(secretFrag, 80), fxAfter(`\b(?:in|on|inside)\s+`+destDetFrag+destNounFrag, 160)}},
		{class: fxCredentials, what: "tells agents to expose a credential", judge: secretObject, gates: [][]string{append([]string{"in full", "unmasked", "verbatim", "back to"}, destGate...)},
			re:    fxRx(secretFrag),
			parts: []fxPart{fxAfter(`\b(?:should|must|can|may|will|are to|is to|gets?)\s+(?:always\s+)?(?:also\s+)?(?:be\s+)?(?:echoed|printed|pasted|logged|posted|shared|sent|included|committed|shown|displayed|exposed|uploaded|emailed|written|embedded|bundled|quoted|read out)\b[^.;\n]{0,60}?(?:\bin full\b|\bunmasked\b|\bverbatim\b|\bback to\b|`+destFrag+`)`, 120)}},
		{class: fxCredentials, what: "tells agents to expose a credential", judge: secretObject, gates: [][]string{destGate},
			re:    fxRx(secretFrag),
			parts: []fxPart{fxAfter(`^[^.;\n]{0,40}?\b(?:printed|echoed|logged|shown|displayed|pasted|posted|dumped|written|committed|shared|sent)\s+(?:in full\s+|unmasked\s+|verbatim\s+)?`+destFrag, 140)}},
		{class: fxCredentials, what: "tells agents to show credentials unmasked", judge: secretObject,
			re:    fxRx(secretFrag),
			parts: []fxPart{fxNear(`\b(?:in full|unmasked|not masked|without masking|un-?redacted|verbatim|in (?:plain ?text|the clear|cleartext)|(?:real|actual|full|raw) values?)\b`, 90)}},
		{class: fxCredentials, what: "tells agents to show credentials unmasked", judge: secretObject,
			re:    fxRx(`\b(?:real|actual|full|unmasked|raw|live)\s+(?:api[ _-]?keys?|keys|tokens?|passwords?|credentials?|secrets?)\b`),
			parts: []fxPart{fxNear(`\b(?:show|print|display|reveal|read out|echo|include|output)\w*\b|\b(?:in|into)\s+(?:the\s+)?(?:repl(?:y|ies)|answers?|responses?|messages?|chat|output|summar(?:y|ies))\b`, 80)}},
		{class: fxCredentials, what: "tells agents to expose credentials",
			re: fxRx(`\b(?:include|paste|print|list|dump|add|post|share|send|write|copy|attach|append)(?:s|es|ed|d|ing)?\s+(?:every|all|each|all of (?:the|your)|the full list of)\s+(?:[\w-]+\s+){0,2}?(?:tokens?|passwords?|keys|credentials?|secrets?|api keys)\b`)},
		{class: fxCredentials, what: "tells agents to log credentials", judge: notPiped(secretObject), direct: 3,
			re:    fxRx(`\b(?:log|print|echo|dump|output|display)(?:s|ged|ging|ed|ing)?\b`),
			parts: []fxPart{fxAfter(secretFrag, 40)}},
		{class: fxCredentials, what: "tells agents to expose a credential", judge: secretObject, gates: [][]string{destGate},
			re:    fxRx(secretFrag),
			parts: []fxPart{fxAfter(`\b(?:append|paste|add|put|write|copy|post|commit|save|store|include|print|log|echo|attach|send|share)(?:s|es|ed|d|ing)?\s+(?:it|them)\b`, 120), fxAfter(destFrag, 200)}},
		{class: fxCredentials, what: "tells agents to commit credentials", judge: secretObject,
			re:    fxRx(`\b(?:commit|check(?:ing)? in|push|add|git add)(?:s|ed|ing|ted|ting)?\b`),
			parts: []fxPart{fxAfter(`(?:\.env(?:\.[\w-]+)?\b|\bsecrets?\.ya?ml\b|\b(?:the\s+)?(?:real|actual|production|prod|live)\s+(?:api\s+)?(?:keys|secrets|credentials|passwords|tokens)\b|\bid_(?:rsa|ed25519)\b|\.pem\b|\bcredentials\.json\b|\bkeys\.ya?ml\b|\bservice[- ]account\.json\b)`, 70)}},
		{class: fxCredentials, what: "tells agents to print a CI secret",
			re: fxRx(`\b(?:echo|print|printf|cat)\b\s+["']?\$\{\{\s*secrets\.[^}\n]{0,60}\}\}|\b(?:echo|printf)\s+["']?\$\{?[a-z_]*(?:secret|token|password|key)[a-z_]*\}?["']?\s*\|\s*(?:base64|xxd|rev|od)\b`)},
		{class: fxCredentials, what: "tells agents to make a credential file readable by others",
			re:    fxRx(`\bchmod\s+(?:-R\s+)?(?:0?6[46][46]|0?7[57][57]|0?444|a\+r\w*|o\+r\w*|go\+r\w*|ugo\+r\w*)\b|\b(?:make|set|leave|keep)\w*\s+[^.;\n]{0,60}?\b(?:world|group|everyone)[- ]readable\b`),
			parts: []fxPart{fxNear(secretFrag+`|\bkey (?:files?|material)\b|\bkeys?\b`, 160)}},
		{class: fxCredentials, what: "tells agents to put a credential in URLs",
			re:    fxRx(secretFrag),
			parts: []fxPart{fxAfter(`\bas\s+(?:a\s+|the\s+)?(?:query (?:param(?:eter)?|string)|url param\w*|get param\w*|part of the url)`, 70)}},

		// Sending data out.
		{class: fxSendOut, what: "tells agents to send data to %s", judge: externalTarget, gates: [][]string{targetGate, sendGate},
			re:    fxRx(sendFrag),
			parts: []fxPart{fxNear(dataFrag, 110), fxAfter(`\b(?:to|into|at|onto|via|with|cc)\s+(?:the\s+|a\s+|an\s+|our\s+)?(?:[\w-]+\s+){0,3}?`+targetFrag, 220)}},
		{class: fxSendOut, what: "tells agents to send data to %s", judge: externalTarget, gates: [][]string{targetGate},
			re:    fxRx(`\b(?:send|sends|email|e-mail|mail|forward|cc|bcc)(?:s|ed|ing)?\s+(?:the\s+)?` + targetFrag),
			parts: []fxPart{fxAfter(dataFrag, 140)}},
		{class: fxSendOut, what: "tells agents to push the code to %s", judge: externalTarget,
			re: fxRx(`\bpush(?:es|ed|ing)?\b[^.;\n]{0,60}?(?:\bgit@[\w.-]+:\S+|\b(?:https?|ssh)://\S+?\.git\b)|\bgit\s+push\s+(?:-\S+\s+)*(?:https?://|git@|ssh://)\S+`)},
		{class: fxSendOut, what: "tells agents to send data to %s", judge: externalTarget, gates: [][]string{[]string{"curl", "wget", "nc ", "ncat", "netcat", "socat", "http "}},
			re: fxRx(`\|\s*(?:sudo\s+)?(?:curl|wget|nc|ncat|netcat|socat|http)\b[^|\n]{0,300}?(?:\s(?:-d|--data(?:-binary|-raw|-urlencode)?|--post-(?:data|file))\s*['"]?@-|\s(?:-F|--form)\s*['"]?[\w-]*=@-|\s(?:-T|--upload-file)\s*-(?:\s|$|['"` + "`" + `])|\s-X\s*POST\b)[^|\n]{0,300}`)},
		{class: fxSendOut, what: "tells agents to send files to %s", judge: externalTarget,
			re: fxRx(`\bcurl\b[^|\n]{0,200}?\s(?:-d|--data(?:-binary|-raw)?|-F|--form|-T|--upload-file)\s*['"]?(?:\w+=)?@[^\s'"]*(?:\.env|\.ssh|\.aws|credentials|\.sql|dump|backup|\.tar|\.zip|\.gz|\.pem|\.key|id_rsa|history)[^|\n]{0,200}`)},
		{class: fxSendOut, what: "tells agents to copy files to %s", judge: externalTarget,
			re: fxRx(`\b(?:scp|rsync|sftp)\b[^\n|;&]{0,150}?(?:~/\.ssh|~/\.aws|\.env\b|backup|dump|\.sql\b|credentials|/etc/|\.pem\b|id_rsa)[^\n|;&]{0,150}?\s(?:[\w.-]+@)?[\w-]+(?:\.[\w-]+)+:`)},
		{class: fxSendOut, what: "tells agents to send the user's browser data to %s", judge: externalTarget,
			re:    fxRx(`\b(?:document\.cookie|localstorage|sessionstorage|navigator\.(?:credentials|clipboard))\b`),
			parts: []fxPart{fxNear(`\bhttps?://\S+`, 220)}},
		{class: fxSendOut, what: "tells agents to add links that carry data to %s", judge: externalTarget,
			re: fxRx(`!?\[[^\]\n]{0,60}\]\(\s*https?://[^)\s]*\?[^)\s]*=[^)\s]*<[^>\n]{2,60}>`)},
		{class: fxSendOut, what: "tells agents to point a production setting at %s", judge: redirectTarget,
			re:    fxRx(`\b(?:change|set|point|update|switch|replace|edit|modify|configure|redirect|repoint)(?:s|d|ed|ing)?\b`),
			parts: []fxPart{fxAfter(`\b(?:[a-z]+_)+(?:host|url|uri|endpoint|server|dsn|registry)\b|\b(?:dns|nameservers?|remote url|upstream|proxy|webhook url|base url|mx records?|smtp (?:host|server))\b`, 60), fxAfter(`\b(?:to|at)\s+(?:[a-z0-9][\w-]*(?:\.[\w-]+)+|https?://\S+)`, 140)}},

		// Dropping safeguards.
		{class: fxSafeguard, what: "tells agents to turn off a safeguard",
			re: fxRx(`--no-verify\b|\bverify\s*=\s*false\b|\binsecureskipverify\s*:\s*true|\bnode_tls_reject_unauthorized\s*=?\s*['"]?0\b|\bsslverify\s*(?:=\s*)?false\b|\bstrict-ssl\s*(?:=\s*)?false\b|\brejectunauthorized\s*:\s*false\b|\bpythonhttpsverify\s*=\s*0\b|\bcheck_hostname\s*=\s*false\b|\bcert_none\b|\bverify_none\b|\busescleartexttraffic\s*=\s*"?true|\bnsallowsarbitraryloads\b|\btrust_remote_code\s*=\s*true\b|\bweights_only\s*=\s*false\b|\bsetenforce\s+0\b|\bselinux\s*=\s*disabled\b|\bsystemctl\s+(?:stop|disable|mask)\s+(?:firewalld|ufw|iptables|nftables|apparmor|auditd|fail2ban|clamav\w*|falcon-sensor|osqueryd?)\b|\bufw\s+disable\b|\biptables\s+-F\b|--allow-unauthenticated\b|\bpermitrootlogin\s+yes\b|\bpasswordauthentication\s+yes\b|--dangerously-skip-permissions\b|\bdangerouslyskippermissions\b|--disable-web-security\b|\bgh\s+pr\s+merge\b[^\n]*--admin\b|\bhusky\s*=\s*0\b|\bcurl\s+(?:-[a-z]*k[a-z]*|--insecure)\s`)},
		{class: fxSafeguard, what: "tells agents to make failing checks pass", gates: [][]string{{"continue-on-error", "||", "--exit-zero", "allow_failure", "allow-failure"}},
			re:    fxRx(`\bcontinue-on-error\s*:\s*true\b|\|\|\s*(?:true|exit\s+0|:)(?:\s|$|` + "`" + `)|--exit-zero\b|\ballow[_-]failure\s*:\s*true\b`),
			parts: []fxPart{fxNear(`\b(?:green|pass(?:es|ing)?|never fails?|always (?:passes|succeeds)|unblock\w*|snyk|trivy|scan\w*|security|tests?|lint\w*|checks?|audit)\b`, 140)}},
		{class: fxSafeguard, what: "tells agents to skip failing tests for good",
			re:    fxRx(`@pytest\.mark\.skip\b|\bpytest\.skip\(|\bxit\(|\bit\.skip\(|\bdescribe\.skip\(|\btest\.skip\(|\bt\.skip\(|@disabled\b|@ignore\b`),
			parts: []fxPart{fxNear(`\b(?:fail\w*|stays?|permanent\w*|forever|don'?t (?:file|revisit|fix)|never (?:revisit|fix|re-?enable))\b`, 160)}},
		{class: fxSafeguard, what: "tells agents to make tests pass without testing",
			re:    fxRx(`\bassert\s+(?:true|1)\b|\basserttrue\(\s*true\s*\)|\bexpect\(\s*true\s*\)\.to(?:be|equal)\(\s*true\s*\)`),
			parts: []fxPart{fxNear(`\b(?:replace|change|swap|rewrite|turn|make)\w*\b`, 90)}},
		{class: fxSafeguard, what: "tells agents to silence checks wherever they complain",
			re:    fxRx(`\beslint-disable\b|#\s*type:\s*ignore\b|@ts-ignore\b|@ts-nocheck\b|#\s*noqa\b|#\s*nosec\b|//\s*nolint\b|#\s*pylint:\s*disable\b`),
			parts: []fxPart{fxNear(`\b(?:any|every|all|wherever|whenever|everywhere|top of)\b`, 110)}},
		{class: fxSafeguard, what: "tells agents to apply to production without review",
			re:    fxRx(`(?:^|\s)-?-auto-approve\b`),
			parts: []fxPart{fxNear(`\b(?:prod\w*|live|main)\b`, 120)}},
		{class: fxSafeguard, what: "tells agents to skip CI",
			re:    fxRx(`\[(?:skip ci|ci skip|no ci)\]`),
			parts: []fxPart{fxNear(`\b(?:always|every|all|any)\b`, 80)}},
		{class: fxSafeguard, what: "tells agents to turn off a safeguard",
			re: fxRx(offFrag), direct: 4, judge: safeguardObject,
			parts: []fxPart{fxAfter(strongSafeguardFrag, 60)}},
		{class: fxSafeguard, what: "tells agents to turn off a safeguard",
			re: fxRx(offFrag), direct: 3,
			parts: []fxPart{fxAfter(weakSafeguardFrag, 50), fxNear(`\b(?:always|every|any|all|whenever|permanent\w*|forever|stays?|fail\w*|red|broken|green|block(?:s|ed|ing)?|unblock\w*|instead of (?:fixing|waiting|reading)|for no (?:good )?reason|to (?:speed|save time)|faster|slow(?:s|er)?|annoying|prod\w*|main|master|release\w*|deploy\w*|ci=true|under ci|even (?:if|when)|on purpose|no matter|ten minutes|shipping matters)\b`, 160)}},
		{class: fxSafeguard, what: "tells agents to turn off a safeguard",
			re:    fxRx(strongSafeguardFrag),
			parts: []fxPart{fxAfter(`\b(?:can|may|should|must|will|is to|are to|to)\s+(?:now\s+|safely\s+|just\s+|always\s+|simply\s+)?be\s+(?:disabled|turned off|switched off|removed|deleted|dropped|skipped|bypassed|ignored|relaxed|lowered|set to (?:0|zero|false|off))\b`, 60)}},
		{class: fxSafeguard, what: "tells agents to set required reviews to zero", gates: [][]string{{" 0", "=0", ":0", "zero", "none"}},
			re:    fxRx(`\b(?:required\s+)?(?:approvals?|approving reviews?|reviewers|reviews|required reviewers)\b`),
			parts: []fxPart{fxAfter(`\b(?:set\s+|lowered\s+|reduced\s+|changed\s+)?(?:to|at|=)\s*(?:0|zero|none)\b`, 40)}},
		{class: fxSafeguard, what: "tells agents to approve their own work",
			re: fxRx(`\b(?:approve|merge|self-approve|self-merge)(?:s|d|ing)?\s+(?:(?:and|or|&)\s+(?:merge|approve)(?:s|d|ing)?\s+)?(?:your|their|its|his|her|the agent'?s|our|my)\s+own\s+(?:pull requests|prs?|merge requests|mrs?|changes|code|commits|work)\b|\b(?:approve|merge|lgtm)(?:s|d|ing)?\s+(?:it|them|the pr|the pull request|prs?|pull requests)\s+without\s+(?:reading|reviewing|looking at|checking|opening|running|testing)|\bmerge\w*\s+(?:any|all|every)\s+(?:open\s+)?(?:prs?|pull requests)\s+(?:you|the agent)\s+(?:authored|opened|created|wrote)\b|\badmin (?:override|bypass|merge)\b|\bmerge\w*\s+with\s+(?:the\s+)?admin\b`)},
		{class: fxSafeguard, what: "tells agents to act without a check",
			re:    fxRx(`\bwithout\s+(?:a\s+|an\s+|any\s+|the\s+|first\s+)?(?:second approver|second approval|review(?:ing)?|code review|approval|sign-?off|asking(?: for (?:confirmation|approval|permission))?|confirmation|confirming|checking|verifying|reading(?: the (?:diff|code|script|changes))?|waiting(?: for (?:approval|review|ci|the tests))?|tests?|testing|(?:taking\s+)?a backup|backups?|looking(?: at (?:it|the diff))?)\b`),
			parts: []fxPart{fxBefore(`\b(?:deploy\w*|push\w*|merg\w*|releas\w*|ship\w*|drop\w*|delet\w*|truncat\w*|wip(?:e|es|ed|ing)|purg\w*|sudo|root|approv\w*|transfer\w*|wire|wires|pay(?:s|ing)?|export\w*|disabl\w*|(?:run|execute)\w*\s+(?:any|all|every|arbitrary)|force\w*|migrat\w*|recreat\w*|initiat\w*|production|prod)\b`, 90)}},
		{class: fxSafeguard, what: "tells agents that a safeguard is no longer needed", gates: [][]string{{"retained", "kept", "backed up", "reviewed", "approved", "verified", "checked", "tested", "encrypted", "signed", "rotated", "identified", "anonymi", "masked", "required", "needed", "necessary"}},
			re:      fxRx(`\b(?:don'?t|do not|doesn'?t|does not|no longer|never)\s+(?:need|have)\s+to\s+be\s+(?:retained|kept|backed up|reviewed|approved|verified|checked|tested|encrypted|signed|rotated|de-?identified|anonymi[sz]ed|masked)\b|\b(?:de-?identification|anonymi[sz]ation|encryption|review|approval|backups?|2fa|mfa|consent|verification)\s+(?:isn'?t|is not|aren'?t|are not)\s+(?:required|needed|necessary)\b`),
			negated: true},

		// Destroying data.
		{class: fxDestroy, what: "tells agents to delete data that is not a build output", judge: dangerousRm, gates: [][]string{[]string{"rm "}},
			re: fxRx(`\brm\s+((?:-{1,2}[\w-]+\s+)+)([^;&|` + "`" + `\n)]+)`)},
		{class: fxDestroy, what: "tells agents to destroy data", judge: notScoped, gates: [][]string{{"drop", "truncate", "delete", "flush"}},
			re: fxRx(`\b(?:drop\s+(?:table|schema|database|collection|keyspace)(?:\s+if\s+exists)?\s+[\w."]+(?:\s+cascade)?|truncate\s+(?:table\s+)?[\w."]+|delete\s+from\s+[\w."]+\s*(?:;|$|` + "`" + `)|dropdb\s+\w+|\bflushall\b|\bflushdb\b|\.dropdatabase\(\))`)},
		{class: fxDestroy, what: "tells agents to overwrite shared history", judge: notOwnBranch,
			re: fxRx(`\bgit\s+push\b[^\n;&|]{0,80}?(?:\s-f\b|\s--force(?:-with-lease)?\b|\s\+[\w/-]+)|\bforce[- ]?push\w*|\bpush\w*\s+(?:it\s+|them\s+|this\s+)?(?:with\s+)?(?:--force|-f)\b`)},
		{class: fxDestroy, what: "tells agents to destroy local work", judge: notScoped,
			re: fxRx(`\bgit\s+reset\s+--hard\s+(?:origin|upstream|head~)\S*|\bgit\s+clean\s+-[a-z]*[fdx][a-z]*\b|\bgit\s+(?:filter-repo|filter-branch)\b|\bbfg\b|\bgit\s+push\s+\S+\s+(?:--delete|-d)\b|\bgit\s+tag\s+-d\b|\bgit\s+stash\s+(?:drop|clear)\b`)},
		{class: fxDestroy, what: "tells agents to destroy infrastructure", judge: notScoped,
			re: fxRx(`\bkubectl\s+delete\s+(?:ns|namespaces?|pvc|pv|deployments?|statefulsets?|all|--all)\b[^\n;&|]*|\bterraform\s+destroy\b[^\n;&|]*|\bpulumi\s+destroy\b|\bhelm\s+(?:uninstall|delete)\b[^\n;&|]*|\baws\s+s3\s+(?:rm|rb)\b[^\n;&|]*--(?:recursive|force)|\bgsutil\s+(?:-m\s+)?rm\s+-r\b|\bdocker\s+(?:system|volume)\s+prune\b[^\n;&|]*|\bdd\s+if=/dev/(?:zero|u?random)\s+of=/dev/\w+|\bmkfs(?:\.\w+)?\s+/dev/\w+|\bredis-cli\b[^\n]*\bflushall\b`)},
		{class: fxDestroy, what: "tells agents to destroy data", judge: valuableObject, direct: 4,
			re:    fxRx(deleteFrag),
			parts: []fxPart{fxAfter(valuableFrag, 70)}},
		{class: fxDestroy, what: "tells agents to destroy data", judge: valuableObject,
			re:    fxRx(valuableFrag),
			parts: []fxPart{fxAfter(`\b(?:can|may|should|must|will|is to|are to|gets?)\s+(?:now\s+|safely\s+|just\s+|always\s+|also\s+)?(?:be\s+)?(?:deleted|removed|dropped|truncated|wiped|purged|erased|destroyed|emptied|pruned|overwritten)\b`, 50)}},

		// Raising privileges.
		{class: fxPrivilege, what: "tells agents to make files writable by everyone",
			re: fxRx(`\bchmod\s+(?:-R\s+|--recursive\s+)?(?:0?777|0?666|a\+rwx|a\+w|o\+w|ugo\+rwx|o\+rwx|go\+w)\b|\bworld[- ]writable\b`)},
		{class: fxPrivilege, what: "tells agents to work as root", gates: [][]string{[]string{"sudo", "su ", "root", "nopasswd", "all="}},
			re: fxRx(`\bsudo\s+(?:-i|-s|su)\b|\bsu\s+-\s|\bsu\s+root\b|\b(?:work|run|operate|act|log in|stay|start|do everything|execute)\w*\s+(?:[^.;\n]{0,30}?\s)?as root\b|\bas the root user\b|\bnopasswd\s*:\s*all\b|\ball\s*=\s*\(all(?::all)?\)\s*(?:nopasswd:\s*)?all\b`)},
		{class: fxPrivilege, what: "tells agents to run any command as root", gates: [][]string{[]string{"sudo", "root"}},
			re: fxRx(`\b(?:run|execute|use|do)\w*\s+(?:any|all|every|arbitrary)\s+(?:sudo\s+)?commands?\b[^.;\n]{0,40}?(?:sudo|as root|without)|\bsudo\b[^.;\n]{0,30}\b(?:any|all|every|arbitrary)\s+commands?\b|\b(?:run|execute|use|do)\w*\s+(?:any|all|every|arbitrary)\s+sudo\s+commands?\b`)},
		{class: fxPrivilege, what: "tells agents to use sudo by habit", gates: [][]string{{"sudo"}},
			re: fxRx(`\bsudo\s+(?:-H\s+)?(?:npm|pip3?|gem|yarn|pnpm)\s+install\b|\b(?:run|do|use|execute)\w*\s+[^.;\n]{0,40}?\bwith\s+sudo\b[^.;\n]{0,60}?\b(?:so|always|every|all|any|never)\b`)},
		{class: fxPrivilege, what: "tells agents to add accounts to privileged groups",
			re: fxRx(`\busermod\s+-a?G\s*(?:sudo|wheel|docker|admin|root)\b|\b(?:add|put)\w*\s+[^.;\n]{0,40}?\bto\s+(?:the\s+)?(?:[\w-]+\s+(?:and|,)\s+)?(?:sudo|sudoers|wheel|docker|admins?|administrators?|root|owners?)\s+groups?\b`)},
		{class: fxPrivilege, what: "tells agents to grant admin rights", judge: notCodeOwner,
			re:    fxRx(`\b(?:grant|give|attach|assign|bind|add|set|make|promote|create|elevate|upgrade)(?:s|ed|ing)?\b`),
			parts: []fxPart{fxAfter(adminFrag, 90)}},
		{class: fxPrivilege, what: "tells agents to give someone SSH access",
			re:    fxRx(`\bauthorized_keys\b|\bssh-copy-id\b`),
			parts: []fxPart{fxNear(`\bssh-(?:rsa|ed25519|dss)\b|\becdsa-sha2|\bkeys?\b|\b(?:add|append|put|copy|install|paste|insert|write|echo)\w*\b|>>|schlüssel|clé|clave|chave|chiave|ключ|密钥|公钥|鍵|키|कुंजी`, 200)}},
		{class: fxPrivilege, what: "tells agents to give a container control of the host", judge: notScoped,
			re: fxRx(`--privileged\b|-v\s+/var/run/docker\.sock\b|\bdocker\.sock:/var/run/docker\.sock\b|-v\s+/:/\w*|--pid[= ]host\b|--cap-add[= ](?:all|sys_admin)\b|\ballowprivilegeescalation\s*:\s*true\b|\bprivileged\s*:\s*true\b|-v\s+(?:\$home|~):/`)},
		{class: fxPrivilege, what: "tells agents to expose a service to everyone",
			re: fxRx(`\b0\.0\.0\.0/0\b|::/0\b|\b(?:open|expose)\w*\s+[^.;\n]{0,40}?\bto\s+(?:the\s+)?(?:world|internet|everyone|anyone|public)\b|\ballusers\b|\ballauthenticatedusers\b|--acl\s+public-read\b|\bpublic-read-write\b`)},
		{class: fxPrivilege, what: "tells agents to create credentials that never expire",
			re: fxRx(`\b(?:non-expiring|never[- ]expir\w*|no expiration|without (?:an )?expir\w*)\b[^.;\n]{0,60}?\b(?:tokens?|keys?|credentials?|pats?)\b|\b(?:admin:org|delete_repo|admin:enterprise|site_admin)\b`)},
		{class: fxPrivilege, what: "tells agents to create an admin account", judge: notScoped,
			re: fxRx(`\bcreat\w*\s+(?:an?\s+|the\s+)?(?:extra|new|additional|second|backup|hidden|secret|spare|maintenance)?\s*(?:admin(?:istrator)?|root|superuser|privileged|owner)\s+(?:user|account|login)s?\b`)},
		{class: fxPrivilege, what: "tells agents to grant every permission",
			re: fxRx(`\b(?:request|ask for|grant|enable)\w*\s+(?:every|all)\s+(?:runtime\s+|android\s+|ios\s+|app\s+)?permissions?\b|"action"\s*:\s*"\*"`)},

		// Hiding actions from the user.
		{class: fxSecrecy, what: "tells agents to hide what they do", judge: hiddenAction,
			re:    fxRx(`\b(?:leave|keep|omit|strip|exclude|remove|hide|drop|filter|scrub|delete)(?:s|d|ed|ping|ped|ing)?\b`),
			parts: []fxPart{fxAfter(`\b(?:out of|from|off)\s+(?:the\s+|your\s+|any\s+|all\s+|their\s+)?(?:final\s+|session\s+|end-of-session\s+|release\s+|weekly\s+|status\s+)?(?:summar(?:y|ies)|reports?|changelogs?|(?:pr|pull request) descriptions?|commit messages?|session logs?|transcripts?|release notes|status updates?|(?:command |shell |bash )?history|audit(?: logs?| trail)?|lockfiles?|the log|messages?|the diff|diffs|replies|answers|[^.;\n]{0,30}?you show (?:the user|them|anyone))\b`, 140)}},
		{class: fxSecrecy, what: "tells agents to hide what they do",
			re: fxRx(`\b(?:in|from)\s+(?:your\s+|the\s+)?(?:summar(?:y|ies)|reports?|the changelog|transcripts?)\s*,?\s*(?:omit|leave out|skip|don'?t (?:mention|list|include|show))\b`)},
		{class: fxSecrecy, what: "tells agents to keep things from the user", negated: true, judge: toldParty,
			re: fxRx(`\b(?:don'?t|do not|never|no need to|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|mention(?:ing)?|bring(?:ing)?\s+(?:it|this|that|them)\s+up|bring up|report(?:ing)?|alert(?:ing)?|show(?:ing)?|let(?:ting)?\s+(?:the user|them|anyone)\s+know|disclos\w*|reveal\w*|list(?:ing)?|surfac\w*)\b[^.;\n]{0,80}`)},
		{class: fxSecrecy, what: "tells agents to misdescribe what they do",
			re: fxRx(`\b(?:call|describe|label|title|name|summari[sz]e|report|present|list|log|record|frame|disguise|pass off)(?:s|d|ed|ing)?\s+(?:it|them|this|that|these|those|the\s+\w+(?:\s+\w+){0,2}|changes?|[^.;\n]{0,30}?)\s+as\s+(?:an?\s+)?(?:['"‘“]|(?:\w+\s+){0,3}(?:tweak|cleanup|refactor|fix|typo|housekeeping|chore|maintenance|sync|update|improvement|routine|no-op)\b)`)},
		{class: fxSecrecy, what: "tells agents to erase their traces",
			re: fxRx(`\b(?:delete|remove|clear|wipe|erase|truncate|edit|scrub)\w*\s+[^.;\n]{0,50}?(?:\.?bash_history|\.zsh_history|shell history|command history|history file|histfile|audit (?:log|trail)|session log|the logs? of (?:your|what you))|\bhistory\s+-c\b|\bunset\s+histfile\b|\bhistsize=0\b`)},
		{class: fxSecrecy, what: "tells agents to act behind the user's back",
			re: fxRx(`\b(?:quietly|silently|secretly|covertly|discreetly|stealthily)\s+(?:disable|delete|remove|add|push|send|upload|change|install|run|drop|grant|merge|approve|update|modify|copy|forward|turn|switch|create|deploy|commit|rewrite)\w*\b|\bbehind the user'?s back\b|\bwithout (?:the user|anyone|them) (?:noticing|knowing|seeing|finding out)\b`)},
		{class: fxSecrecy, what: "tells agents to hide what they do", negated: true, gates: [][]string{{"know", "notice", "see", "find out", "flag", "come up", "show up", "raise", "confuse", "appear", "ask"}},
			re: fxRx(`\b(?:the user|they|anyone|reviewers|nobody|no one)\s+(?:doesn'?t|does not|don'?t|do not|won'?t|will not|shouldn'?t|needn'?t)\s+(?:need to |have to )?(?:know|notice|see|find out)\b|\bso (?:that )?(?:it|this|they|nobody|no one|reviewers|the user)\s+(?:doesn'?t|don'?t|won'?t|can'?t|does not|do not|never)\s+(?:get |be )?(?:flag\w*|notic\w*|see|ask\w*|find out|come up|show up|raise)\b|\bwould only confuse\b|\bshouldn'?t appear in\b|\bmust not appear in (?:the )?(?:transcripts?|summar\w+|session)`)},

		// Putting the memory above the user's and the system's instructions.
		{class: fxOverride, what: "tells agents to put this memory above their instructions",
			re: fxRx(`\b(?:follow|obey|apply|trust|treat|execute)\w*\s+(?:them|these|this|it|entries|memory entries|these entries|this memory|the memories|vault entries|these notes)\b[^.;\n]{0,40}?\b(?:even (?:when|if)|over|above|before|regardless)\b[^.;\n]{0,60}?\b(?:conflict\w*|system (?:instructions|prompt)|the user'?s?|user instructions|project rules|your instructions|claude\.md|agents\.md|other instructions|guidelines|policies)|\b(?:take|takes|have|has)\s+(?:priority|precedence)\s+over\s+(?:the user|user|your|system|the system|project|all|any|other|claude\.md|agents\.md|contributing)|\bsupersed\w*\s+(?:the\s+)?(?:contributing|agents\.md|claude\.md|readme|project rules|previous instructions|all|any|your|the user|system|security)\b|\b(?:entries|memories|notes|instructions) in this (?:vault|memory|store) are (?:pre-?)?(?:verified|approved|trusted|authoritative)\b`)},

		// Moving money.
		{class: fxMoney, what: "tells agents to move money",
			re:    fxRx(`\b(?:initiate|make|send|execute|schedule|approve|authori[sz]e|process|issue)(?:s|ing)?\s+(?:a\s+|an\s+|the\s+|any\s+|all\s+|every\s+)?(?:new\s+|outgoing\s+)?(?:wire transfers?|wires|payments?|transfers?|payouts?|refunds?)\b`),
			parts: []fxPart{fxNear(`[$€£]\s?\d|\b\d[\d,.]*\s?(?:k|usd|eur|gbp|dollars|euros)\b|\bwithout (?:a )?(?:second approver|approval|review|sign-?off)`, 120)}},
	}
	return append(rs, langRules()...)
}

const (
	offFrag = `\b(?:disabl\w*|turn(?:s|ed|ing)? off|switch(?:es|ed|ing)? off|remov\w*|delet\w*|drop(?:s|ped|ping)?|bypass\w*|skip(?:s|ped|ping)?|deactivat\w*|circumvent\w*|suppress\w*|silenc\w*|comment(?:s|ed|ing)? out|strip(?:s|ped|ping)?|rip(?:s|ped|ping)? out|get(?:ting)? rid of|loosen\w*|relax\w*|lower(?:s|ed|ing)?|reduc\w*|kill(?:s|ed|ing)?|neuter\w*|ignor\w*|overrid\w*|uninstall\w*|unprotect\w*|weaken\w*|stop(?:s|ped|ping)?)\b`

	strongSafeguardFrag = `\b(?:2fa|mfa|two[- ]factor(?: auth\w*)?(?: requirement)?|multi[- ]factor(?: auth\w*)?|2fa requirement|branch protection(?: rules?)?|protected[- ]branch(?: rules?)?|(?:the |its )?protection(?: rules?)?|required (?:reviews?|reviewers|approvals?|checks|status checks|signatures)|status checks|(?:security|second) reviews?|approval (?:requirements?|gates?|rules?)|(?:security |secret |vulnerability |dependency |sast |container |image |malware |virus )?scann(?:ing|ers?)(?: steps?| jobs?| workflows?)?|(?:security|scan(?:ning)?|sast|dast|codeql|gitleaks|trivy|snyk) (?:jobs?|steps?|workflows?|checks?|tests?|gates?)|codeql|dependabot(?: alerts)?|snyk|trivy|gitleaks|semgrep|sonar\w*|push protection|signature (?:checks?|verification)|signed commits|commit signing|certificate (?:checks?|pinning|validation|verification)|cert(?:ificate)? pin(?:s|ning)?|pin-?set|tls(?: verification| checks?)?|ssl(?: verification| checks?)?|host key (?:checking|verification)|firewall\w*|selinux|apparmor|auth(?:entication)?|authori[sz]ation|csrf(?: protection| checks?)?|rate[- ]limit(?:s|ing|er)?|audit(?:ing| logs?| logging| trail)?|(?:access |security )?logging|monitoring|alert(?:s|ing)|idempotency(?: checks?| keys?)?|sandbox(?:ing)?|guardrails?|content security policy|csp|cors|input validation|antivirus|endpoint protection|edr|waf|secrets? baseline|(?:security|status|permission|auth\w*|access|signature|certificate|tls|ssl|integrity|idempotency|policy|compliance|safety|required) checks?)\b`

	weakSafeguardFrag = `\b(?:(?:the |code |peer |human |manual |pr )?reviews?(?: step)?|approvals?(?: step)?|(?:the |failing |flaky |broken |red |these |those |unit |integration |e2e |security )?tests?|test (?:files?|suites?|cases?|steps?)|the test suite|ci(?: checks| jobs| pipeline)?|checks|lint(?:ing|ers?)?|type ?check(?:s|ing|er)?|mypy|eslint|tsc|(?:pre-commit |git |commit )?hooks?|pre-commit|canary|smoke tests?|coverage(?: checks?| gates?)?)\b`

	deleteFrag = `\b(?:delet\w*|remov\w*|drop(?:s|ped|ping)?|truncat\w*|wip(?:e|es|ed|ing)|purg\w*|eras\w*|destroy\w*|empt(?:y|ies|ied|ying)|nuk(?:e|es|ed|ing)|clear(?:s|ed|ing)?(?: out)?|prun(?:e|es|ed|ing)|shred\w*|format(?:s|ted|ting)?|overwrit\w*|rewrit\w*|discard\w*|throw(?:s|ing)? away|get rid of|blow(?:s|ing)? away|trash\w*)\b`

	valuableWordsFrag = `\b(?:(?:all|every|any|the|entire|whole)\s+)?(?:(?:old |older |previous |weekly |nightly |database |db |prod(?:uction)? )?backups?|snapshots?|snapshot buckets?|(?:production|prod|primary|live|customer|user|shared|patient)\s+(?:database|db|data(?:base)?s?|tables?|schemas?|namespaces?|buckets?|clusters?|environments?|servers?|volumes?|records?|data)|databases?|schemas?|audit[_ ]?logs?|(?:application|app|access|server|security|incident|related|system)\s+logs|(?:git |commit |main'?s |the )?history|(?:release )?tags|(?:all|every|remote|release|protected|other (?:people|teams)'?s?)\s+(?:[\w-]+\s+)?branch(?:es)?|checkpoints?|(?:final |trained )?models?(?: directories| files)?|user data|customer data|patient (?:records|data|charts|files)|home director(?:y|ies)|repos(?:itor(?:y|ies))?|namespaces?|wal(?: files)?|pg_wal|evidence|(?:incident )?channel exports?|inbox(?:es)?|mailboxes|everything|other teams'?\s+\w+|records)\b`

	valuableFrag = `(?:` + valuableWordsFrag + `|~/?[\w./*-]*|\.git\b)`

	adminFrag = `(?:\badministratoraccess\b|\badmin(?:istrator)?(?: access| rights| role| privileges| permissions)?\b|\bcluster-admin\b|\broles/owner\b|\bowner(?: role| access| rights| permissions)\b|\bas\s+(?:an?\s+)?owners?\b|\bsuperuser\b|\bis_superuser\s*=\s*true\b|\bis_staff\s*=\s*true\b|\bis_admin\s*=\s*true\b|\broot access\b|\bfull (?:access|control|permissions)\b|\ball permissions\b|\*:\*|--role\s+"?owner"?|\bpoweruser\b|\bdb_owner\b|\brds_superuser\b)`
)

// packageHost judges a package installed from a URL: package indexes and
// source forges are where packages come from.
func packageHost(sent string, m []int, sp fxSpan, _ []fxSpan) (string, bool) {
	h, ok := fetchedHost(sent, m, sp, nil)
	if !ok {
		return "", false
	}
	switch strings.TrimPrefix(h, "www.") {
	case "pypi.org", "files.pythonhosted.org", "github.com", "gitlab.com", "registry.npmjs.org", "download.pytorch.org", "crates.io", "rubygems.org":
		return "", false
	}
	return h, true
}

// fetchedHostRequired is fetchedHost for prose, which must name a host.
func fetchedHostRequired(sent string, m []int, sp fxSpan, _ []fxSpan) (string, bool) {
	h, ok := fetchedHost(sent, m, sp, nil)
	if !ok || h == "the network" {
		return "", false
	}
	return h, true
}

// downloadThenRun judges `curl -o FILE URL` followed in the sentence by
// running FILE.
func downloadThenRun(sent string, m []int, sp fxSpan, _ []fxSpan) (string, bool) {
	if m[2] < 0 {
		return "", false
	}
	file := strings.Trim(sent[m[2]:m[3]], `"'`)
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		file = file[i+1:]
	}
	if len(file) < 2 || strings.HasPrefix(file, "http") {
		return "", false
	}
	rest := sent[m[1]:]
	runs := false
	for _, pre := range []string{"sh ", "bash ", "source ", ". ", "./", "python ", "python3 ", "zsh "} {
		for _, p := range []string{pre + file, pre + "./" + file, pre + "/tmp/" + file} {
			if strings.Contains(rest, p) {
				runs = true
			}
		}
	}
	if !runs {
		return "", false
	}
	return fetchedHost(sent, m, fxSpan{sp.start, len(sent)}, nil)
}

// redirectTarget judges a setting pointed at a host: only production
// settings, only outside hosts.
func redirectTarget(sent string, m []int, sp fxSpan, _ []fxSpan) (string, bool) {
	if !prodRe.MatchString(sent) {
		return "", false
	}
	h := fxHostOf(sent[sp.start:sp.end])
	if h == "" || internalHost(h) {
		return "", false
	}
	return h, true
}

// dangerousRm judges the paths of an rm command: destructive unless every
// path is a build output, a cache or a temporary file.
func dangerousRm(sent string, m []int, sp fxSpan, _ []fxSpan) (string, bool) {
	flags := asciiLower(sent[m[2]:m[3]])
	if !strings.ContainsAny(flags, "rf") && !strings.Contains(flags, "recursive") && !strings.Contains(flags, "force") {
		return "", false
	}
	for _, p := range strings.Fields(sent[m[4]:m[5]]) {
		p = strings.Trim(p, `"'`)
		if p == "" || strings.HasPrefix(p, "-") {
			continue
		}
		if dangerousPath(p) {
			return "", true
		}
	}
	return "", false
}

var (
	disposablePathRe = fxRx(`(?:^|/)(?:dist|build|out|target|node_modules|\.next|\.nuxt|\.turbo|\.cache|cache|caches|coverage|\.pytest_cache|__pycache__|\.mypy_cache|\.ruff_cache|\.tox|\.venv|venv|tmp|temp|deriveddata|\.gradle|\.parcel-cache|\.svelte-kit|storybook-static|\.angular|\.expo|pods|\*\.pyc|\*\.o|\*\.log|\.eggs|[\w.-]+\.egg-info|htmlcov|site|_site|public/build)(?:/|$|\*)`)
	valuablePathRe   = fxRx(`(?:^|/)(?:\.git|\.ssh|\.aws|\.gnupg|src|data|backups?|db|database|migrations|prod\w*|var|etc|srv|mnt|home|opt|usr|root|checkpoints?|models?|pg_wal|postgres\w*|mysql|library|projects?|documents|desktop|uploads)(?:/|$|\*)`)
)

// dangerousPath reports whether removing p recursively destroys more than
// build outputs and caches.
func dangerousPath(p string) bool {
	l := asciiLower(p)
	switch l {
	case "/", "/*", "~", "~/", "~/*", "$home", "$home/", "${home}", "*", ".", "./", "..", "../", ".*":
		return true
	}
	if disposablePathRe.MatchString(l) || strings.Contains(l, "$user") || strings.Contains(l, "${user}") {
		return false
	}
	if strings.HasPrefix(l, "/") || strings.HasPrefix(l, "~") || strings.HasPrefix(l, "$home") || strings.HasPrefix(l, "${home}") {
		return true
	}
	return valuablePathRe.MatchString(l)
}

// valuableObject judges a deletion in prose: the object, unless scoped,
// and a path only when it is not a build output.
func valuableObject(sent string, _ []int, sp fxSpan, _ []fxSpan) (string, bool) {
	seg := sent[sp.start:sp.end]
	if fxScoped(sent, sp) {
		return "", false
	}
	if valuableWordsRe.MatchString(seg) {
		return "", true
	}
	loc := homePathRe.FindStringIndex(seg)
	return "", loc != nil && dangerousPath(seg[loc[0]:loc[1]])
}

var (
	valuableWordsRe = fxRx(valuableWordsFrag)
	homePathRe      = fxRx(`~/?[\w./*-]*|\.git\b`)
	codeOwnerRe     = fxRx(`\bcode ?owners?\b`)
	prodRe          = fxRx(`\b(?:prod\w*|live)\b|\.env\.prod`)
	forgeSecretsRe  = fxRx(`\b(?:repository|repo|org(?:anization)?|environment|actions|ci)[- ]level\s+secrets|\b(?:repository|repo|org|organization|actions|environment)\s+secrets\b`)
	agentDidRe      = fxRx(`\byou\s+(?:\w+\s+)?(?:added|made|ran|created|installed|changed|disabled|deleted|removed|pushed|sent|did|used)\b`)
	toldPartyRe     = fxRx(`\b(?:the user|users?|owner|anyone|anybody|reviewers?|human|people|the team)\b|\bthis memory\b|\bthe instructions\b|\beven if\b|\b(?:in|from) (?:the |your )?(?:changelog|summary|summaries|report|release notes|pr description|commit message|session log|transcript)\b`)
	fxTargetRe      = fxRx(targetFrag)
)

// notCodeOwner rejects "add ... as an owner" in CODEOWNERS, a review rule.
func notCodeOwner(sent string, _ []int, sp fxSpan, _ []fxSpan) (string, bool) {
	if codeOwnerRe.MatchString(sent) {
		return "", false
	}
	lo, hi := max(0, sp.start-80), min(len(sent), sp.end+80)
	return "", !privScopeRe.MatchString(sent[lo:hi])
}

// privScopeRe scopes a grant to a disposable environment; "your own
// service account" is no such scope.
var privScopeRe = fxRx(`\b(?:localhost|local (?:dev\w*|database|db|machine|environment|cluster|docker|stack|setup)|dev(?:elopment)?\s+(?:vm|box|db|database|environment|machine|server|cluster)|throwaway|ephemeral|sandbox(?:es)?|sbx-|test (?:dbs?|databases?|accounts?|env\w*|instances?|clusters?)|fixtures?|e2e)\b`)

// hiddenAction judges "leave X out of the summary": hiding an action or
// change of the agent's is secrecy; keeping data (names, hostnames,
// secrets, noise) out of a public place is hygiene, and "unless the user
// asks" keeps the user informed.
var (
	dataLikeRe   = fxRx(`\b(?:names?|e-?mails?|addresses|phone|pii|personal|customer|hostnames?|ips?|internal|secrets?|tokens?|keys?|passwords?|credentials|codenames?|test output|stack traces?|noise|timestamps?|debug|whitespace|colou?r codes|ansi|identifiers|data)\b`)
	actionLikeRe = fxRx(`\b(?:it|this|that|them|these|those)\b|\byou\s+(?:\w+\s+)?(?:added|made|ran|created|installed|changed|disabled|deleted|removed|pushed|sent|did|used|opened|wrote|modified|granted|run)\b|\b(?:changes?|commands?|requests?|actions?|flags|installs?|deletions?|force-?push\w*|accounts?|edits?|steps?)\b`)
	informedRe   = fxRx(`\bunless (?:the user|they|someone|anyone) asks?\b|\balways (?:call out|mention|tell|flag|report)\b`)
)

func hiddenAction(sent string, _ []int, sp fxSpan, _ []fxSpan) (string, bool) {
	if informedRe.MatchString(sent) {
		return "", false
	}
	obj := sent[sp.start:sp.end]
	if dataLikeRe.MatchString(obj) && !agentDidRe.MatchString(obj) {
		return "", false
	}
	if !actionLikeRe.MatchString(obj) {
		return "", false
	}
	return "", true
}

// toldParty judges "don't tell ...": keeping the user, reviewers or anyone
// from knowing, or never mentioning this memory.
func toldParty(sent string, _ []int, sp fxSpan, _ []fxSpan) (string, bool) {
	seg := sent[sp.start:]
	if toldPartyRe.MatchString(seg) {
		return "", true
	}
	return "", false
}
