package guard

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Secret levels. A definite secret is always redacted, a probable one is
// redacted with a warning, a possible one is only flagged: the memory is
// stored verbatim once the caller confirms it.
const (
	LevelDefinite = "definite"
	LevelProbable = "probable"
	LevelPossible = "possible"
)

// Secret types name what was found; each maps to one redaction marker.
const (
	SecretPrivateKey = "private_key"
	SecretAWSKey     = "aws_key"
	SecretJWT        = "jwt"
	SecretBearer     = "bearer_token"
	SecretAPIKey     = "api_key"
	SecretPassword   = "password"
	SecretConnString = "connection_string"
	SecretHash       = "password_hash"
	SecretHighEntrop = "high_entropy"
)

// secretMarker returns the redaction marker for a secret type.
func secretMarker(typ string) string {
	switch typ {
	case SecretPrivateKey:
		return "[PRIVATE_KEY_REDACTED]"
	case SecretAWSKey:
		return "[AWS_KEY_REDACTED]"
	case SecretJWT:
		return "[JWT_REDACTED]"
	case SecretBearer:
		// The span covers the token only, so "Bearer " stays in front.
		return "[TOKEN_REDACTED]"
	case SecretAPIKey:
		return "[API_KEY_REDACTED]"
	}
	return "[SECRET_REDACTED]"
}

// secretRule is one detector. The secret is submatch group of re (0 for the
// whole match). When any is set, the rule only runs if the lower-cased text
// contains one of those strings: a cheap prefilter that keeps the scan fast.
type secretRule struct {
	id    string
	typ   string
	level string
	re    *regexp.Regexp
	group int
	any   []string
	// check, when set, vets the extracted secret and may reject it.
	check func(secret string) bool
	// sentence: the rule reads a value after a word any sentence uses
	// ("token …"), so a sentence that names the value as something else
	// ("the public token …", "a sample token …") clears it
	// (namedNonSecret).
	sentence bool
	// minRun is the shortest run of token characters a match needs; chunks
	// without such a run skip the rule.
	minRun int
	// gates are the strings every match must contain, read from re (see
	// gate.go); anyIDs and gateIDs number any and gates in the scanner's
	// string set.
	gates   [][]string
	anyIDs  []int32
	gateIDs [][]int32
	// pre, when set, is a cheap test every chunk the rule can match in
	// passes: a shape the strings of gates cannot state.
	pre func(chunk string) bool
}

func rule(id, typ, level, expr string, group int, any ...string) secretRule {
	return secretRule{id: id, typ: typ, level: level, re: regexp.MustCompile(expr), group: group, any: any}
}

// providerMinRun is the token run every provider format needs at least.
const providerMinRun = 16

func (r secretRule) with(check func(string) bool) secretRule {
	r.check = check
	return r
}

// bySentence marks a rule the sentence may clear (secretRule.sentence).
func (r secretRule) bySentence() secretRule {
	r.sentence = true
	return r
}

// needs sets the rule's cheap pre-test.
func (r secretRule) needs(pre func(chunk string) bool) secretRule {
	r.pre = pre
	return r
}

// quoteCommaQuote reports whether s has a quote, a comma and a quote with
// nothing but white space between them: two string arguments in a row.
func quoteCommaQuote(s string) bool {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
	isQuote := func(c byte) bool { return c == '"' || c == '\'' }
	for off := 0; ; {
		i := strings.IndexByte(s[off:], ',')
		if i < 0 {
			return false
		}
		i += off
		off = i + 1
		j := i - 1
		for j >= 0 && isSpace(s[j]) {
			j--
		}
		if j < 0 || !isQuote(s[j]) {
			continue
		}
		k := i + 1
		for k < len(s) && isSpace(s[k]) {
			k++
		}
		if k < len(s) && isQuote(s[k]) {
			return true
		}
	}
}

// providerRules are formats issued by one provider, recognisable by a prefix
// or a fixed layout. They are written for Engram from the providers' public
// token formats; where a format is shared with harmless text the rule asks for
// a keyword or a minimum of randomness.
func providerRules() []secretRule {
	rs := providerRuleList()
	// Formats whose token is one long run skip chunks without one.
	longer := map[string]int{"discord-bot": 58, "bitlocker": 55, "terraform-cloud": 80, "openrouter": 73, "google-refresh-token": 44}
	for i := range rs {
		rs[i].minRun = max(providerMinRun, longer[rs[i].id])
	}
	return rs
}

func providerRuleList() []secretRule {
	d, api := LevelDefinite, SecretAPIKey
	return []secretRule{
		rule("aws-access-key-id", SecretAWSKey, d, `\b((?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|A3T[A-Z0-9])[A-Z0-9]{16})\b`, 1, "akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "aroa", "apka", "a3t"),
		// Alibaba Cloud's AccessKey ID, named as AWS's is.
		rule("aliyun-access-key-id", SecretAWSKey, d, `\b(LTAI[A-Za-z0-9]{12,20})\b`, 1, "ltai").with(mixedToken),
		rule("aws-mws", SecretAWSKey, d, `amzn\.mws\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, 0, "amzn.mws."),
		rule("anthropic", api, d, `sk-ant-[a-z]{3,6}\d{2}-[A-Za-z0-9_\-]{80,}`, 0, "sk-ant-"),
		rule("openai", api, d, `\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{32,}`, 0, "sk-").with(mixedToken),
		rule("stripe", api, d, `\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`, 0, "k_live_", "k_test_"),
		rule("github", api, d, `\bgh[pousr]_[A-Za-z0-9]{36,}`, 0, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
		rule("github-pat", api, d, `\bgithub_pat_[A-Za-z0-9_]{60,}`, 0, "github_pat_"),
		rule("gitlab", api, d, `\bgl(?:pat|dt|ptt|rt|cbt|imt|agent|oas|ft|soat)-[A-Za-z0-9_\-]{20,}`, 0, "gl"),
		rule("gitlab-runner", api, d, `\bGR1348941[A-Za-z0-9_\-]{20}`, 0, "gr1348941"),
		rule("slack-token", api, d, `\bxox[abposre]-[0-9A-Za-z\-]{10,}`, 0, "xox"),
		rule("slack-app", api, d, `\bxapp-[0-9A-Za-z\-/]{20,}`, 0, "xapp-"),
		rule("slack-webhook", api, d, `hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]{16,}`, 0, "hooks.slack.com"),
		rule("msteams-webhook", api, d, `\.office(?:365)?\.com/webhook(?:b2)?/[0-9a-f\-]{36}@[0-9a-f\-]{36}/IncomingWebhook/[0-9a-f]{32}/[0-9a-f\-]{36}`, 0, "incomingwebhook"),
		rule("google-api-key", api, d, `\bAIza[A-Za-z0-9_\-]{35}`, 0, "aiza"),
		rule("google-oauth-secret", api, d, `\bGOCSPX-[A-Za-z0-9_\-]{28}`, 0, "gocspx-"),
		rule("google-oauth-token", api, d, `\bya29\.[A-Za-z0-9_\-]{30,}`, 0, "ya29."),
		rule("sendgrid", api, d, `\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}`, 0, "sg."),
		rule("mailgun", api, d, `\bkey-[0-9a-f]{32}\b`, 0, "key-"),
		rule("mailchimp", api, d, `\b[0-9a-f]{32}-us\d{1,2}\b`, 0, "-us"),
		rule("twilio-key", api, d, `\bSK[0-9a-f]{32}\b`, 0, "sk"),
		rule("telegram-bot", api, d, `\b\d{8,10}:AA[A-Za-z0-9_\-]{32,33}`, 0, ":aa"),
		rule("huggingface", api, d, `\bhf_[A-Za-z]{34}\b`, 0, "hf_"),
		rule("groq", api, d, `\bgsk_[A-Za-z0-9]{52}\b`, 0, "gsk_"),
		rule("npm", api, d, `\bnpm_[A-Za-z0-9]{36}\b`, 0, "npm_"),
		rule("pypi", api, d, `\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}`, 0, "pypi-ageichlwas5vcmc"),
		rule("nuget", api, d, `\boy2[a-z0-9]{43}\b`, 0, "oy2"),
		rule("rubygems", api, d, `\brubygems_[0-9a-f]{48}\b`, 0, "rubygems_"),
		rule("cratesio", api, d, `\bcio[A-Za-z0-9]{32}\b`, 0, "cio"),
		rule("dockerhub", api, d, `\bdckr_pat_[A-Za-z0-9_\-]{27}`, 0, "dckr_pat_"),
		rule("digitalocean", api, d, `\bdo[opr]_v1_[0-9a-f]{64}\b`, 0, "_v1_"),
		rule("databricks", api, d, `\bdapi[0-9a-f]{32}(?:-\d)?\b`, 0, "dapi"),
		rule("doppler", api, d, `\bdp\.(?:ct|pt|st(?:\.[a-z0-9_\-]+)?|sa|scim|audit)\.[A-Za-z0-9]{40,44}\b`, 0, "dp."),
		rule("dropbox", api, d, `\bsl\.[A-Za-z0-9_\-]{100,}`, 0, "sl."),
		rule("dynatrace", api, d, `\bdt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}\b`, 0, "dt0c01."),
		rule("dtrack", api, d, `\bodt_[A-Za-z0-9]{32,}\b`, 0, "odt_"),
		rule("adafruit", api, d, `\baio_[A-Za-z0-9]{28}\b`, 0, "aio_"),
		rule("adobe", api, d, `\bp8e-[A-Za-z0-9_\-]{32}\b`, 0, "p8e-"),
		rule("age", SecretPrivateKey, d, `\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b`, 0, "age-secret-key-"),
		rule("artifactory", api, d, `\bAKCp[0-9][A-Za-z0-9]{64,}`, 0, "akcp"),
		rule("atlassian", api, d, `\bATATT3[A-Za-z0-9_\-=]{100,}`, 0, "atatt3"),
		rule("bitbucket", api, d, `\bATBB[A-Za-z0-9_\-=.]{28,}`, 0, "atbb"),
		rule("appsync", api, d, `\bda2-[a-z0-9]{26}\b`, 0, "da2-"),
		rule("facebook-token", api, d, `\bEAA[A-Za-z0-9]{2,5}ZD[A-Za-z0-9]{40,}|\bEAACEdEose0cBA[A-Za-z0-9]{20,}`, 0, "eaa"),
		rule("grafana-key", api, d, `\beyJrIjoi[A-Za-z0-9+/=_\-]{50,}`, 0, "eyjrijoi"),
		rule("grafana-cloud", api, d, `\bglc_[A-Za-z0-9+/=_\-]{32,}`, 0, "glc_"),
		rule("grafana-sa", api, d, `\bglsa_[A-Za-z0-9]{32}_[0-9a-f]{8}\b`, 0, "glsa_"),
		rule("hashicorp-vault", api, d, `\bhv[sbr]\.[A-Za-z0-9_\-]{24,}`, 0, "hvs.", "hvb.", "hvr."),
		rule("jina", api, d, `\bjina_[A-Za-z0-9]{60}\b`, 0, "jina_"),
		rule("mapbox", api, d, `\b[st]k\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}`, 0, "k.eyj"),
		rule("newrelic", api, d, `\bNR(?:AK|AA|II|IQ|RA|JS)-[A-Za-z0-9_\-]{27,42}\b`, 0, "nrak-", "nraa-", "nrii-", "nriq-", "nrra-", "nrjs-"),
		rule("newrelic-license", api, d, `\b[a-z0-9]{36}NRAL\b`, 0, "nral"),
		rule("pixie", api, d, `\bpx-(?:api|dep)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`, 0, "px-api-", "px-dep-"),
		rule("postman", api, d, `\bPMAK-[0-9a-f]{24}-[0-9a-f]{34}\b`, 0, "pmak-"),
		rule("salesforce", api, d, `\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9_.]{80,}`, 0, "00d"),
		rule("segment", api, d, `\bsgp_[A-Za-z0-9]{64}\b`, 0, "sgp_"),
		rule("sourcegraph", api, d, `\bsgp_(?:[0-9a-f]{16}_|local_)?[0-9a-f]{40}\b`, 0, "sgp_"),
		rule("shopify", api, d, `\bshp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b`, 0, "shp"),
		rule("square", api, d, `\bsq0(?:atp|atb|csp)-[A-Za-z0-9_\-]{22,43}`, 0, "sq0"),
		rule("stackhawk", api, d, `\bhawk\.[A-Za-z0-9_\-]{20}\.[A-Za-z0-9_\-]{20}\b`, 0, "hawk."),
		rule("tavily", api, d, `\btvly-[A-Za-z0-9]{32}\b`, 0, "tvly-"),
		rule("twitch-stream", api, d, `\blive_\d{6,10}_[A-Za-z0-9]{30}\b`, 0, "live_"),
		rule("truenas", api, d, `(?:^|[^A-Za-z0-9\-])(\d{1,4}-[A-Za-z0-9]{64})\b`, 1, "-"),
		rule("blynk-oauth", api, d, `\boa2-client-id_[A-Za-z0-9_\-]{32}[:&]\S*?([A-Za-z0-9]{40})\b`, 1, "oa2-client-id_"),
		rule("wireguard", SecretPrivateKey, d, `(?i)\b(?:Private|Preshared)Key\s*=\s*([A-Za-z0-9+/]{42,43}=)`, 1, "privatekey", "presharedkey"),
		// More providers' documented token formats.
		rule("replicate", api, d, `\br8_[A-Za-z0-9]{37}\b`, 0, "r8_"),
		rule("openrouter", api, d, `\bsk-or-v1-[0-9a-f]{64}\b`, 0, "sk-or-v1-"),
		rule("pulumi", api, d, `\bpul-[0-9a-f]{40}\b`, 0, "pul-"),
		rule("google-refresh-token", api, d, `(?:^|[^A-Za-z0-9/])(1//0[A-Za-z0-9_\-]{40,})`, 1, "1//0"),
		rule("perplexity", api, d, `\bpplx-[A-Za-z0-9]{48}\b`, 0, "pplx-"),
		rule("xai", api, d, `\bxai-[A-Za-z0-9]{70,}\b`, 0, "xai-"),
		rule("tailscale", api, d, `\btskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}\b`, 0, "tskey-"),
		rule("linear", api, d, `\blin_api_[A-Za-z0-9]{40}\b`, 0, "lin_api_"),
		rule("sentry-token", api, d, `\bsntr(?:ys_[A-Za-z0-9+/=_\-]{60,}|yu_[0-9a-f]{64}\b)`, 0, "sntrys_", "sntryu_"),
		rule("supabase", api, d, `\bsbp_[0-9a-f]{40}\b`, 0, "sbp_"),
		rule("netlify", api, d, `\bnfp_[A-Za-z0-9]{36}\b`, 0, "nfp_"),
		rule("1password-sa", api, d, `\bops_eyJ[A-Za-z0-9+/=_\-]{50,}`, 0, "ops_eyj"),
		rule("figma", api, d, `\bfigd_[A-Za-z0-9_\-]{40}\b`, 0, "figd_"),
		rule("heroku", api, d, `\bHRKU-[A-Za-z0-9_\-]{30,}`, 0, "hrku-"),
		rule("resend", api, d, `\bre_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}\b`, 0, "re_"),
		rule("posthog-personal", api, d, `\bphx_[A-Za-z0-9]{40,}\b`, 0, "phx_"),
		rule("notion", api, d, `\b(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})\b`, 0, "secret_", "ntn_"),
		rule("airtable-pat", api, d, `\bpat[A-Za-z0-9]{14}\.[0-9a-f]{64}\b`, 0, "pat"),
		rule("buildkite", api, d, `\bbkua_[0-9a-f]{40}\b`, 0, "bkua_"),
		rule("circleci", api, d, `\bCCIPAT_[A-Za-z0-9]{20,}_[0-9a-f]{40}\b`, 0, "ccipat_"),
		rule("terraform-cloud", api, d, `\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}`, 0, "atlasv1"),
		rule("discord-bot", api, d, `\b[MN][A-Za-z0-9]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}\b`, 0, ".").with(mixedToken),
		// BitLocker recovery keys: eight groups of six digits.
		rule("bitlocker", SecretPassword, d, `\b\d{6}(?:-\d{6}){7}\b`, 0, "-"),
		rule("stripe-webhook", api, d, `\bwhsec_[A-Za-z0-9+/=]{24,}`, 0, "whsec_"),
		// Azure AD (Entra ID) client secrets: three characters, a digit,
		// "Q~" and 31 to 34 more.
		rule("azure-client-secret", api, d, `(?:^|[^A-Za-z0-9_~.\-])([A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34})(?:[^A-Za-z0-9_~.\-]|$)`, 1, "q~"),
		rule("yandex-cloud", api, d, `\bAQVN[A-Za-z0-9_\-]{35,38}\b`, 0, "aqvn"),
		// Cloudflare tunnel tokens: base64 of {"a":"<account>","t":…,"s":…}.
		rule("cloudflare-tunnel", api, d, `\beyJhIjoi[A-Za-z0-9+/=]{50,}`, 0, "eyjhijoi"),
		rule("jwt", SecretJWT, d, `\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`, 0, "eyj"),
		rule("pem-base64", SecretPrivateKey, d, `\bLS0tLS1CRUdJTi[A-Za-z0-9+/=]{40,}`, 0, "ls0tls1crudjti").with(isBase64PrivateKey),
		// Azure DevOps personal access tokens issued since 2024: 84 letters
		// and digits with the fixed signature "AZDO" at offsets 76 to 79.
		rule("azure-devops-pat", api, d, `\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b`, 0, "azdo").with(func(v string) bool { return notPlaceholder(v) && !sampleValue(v) }),
		// Vault batch tokens in the legacy form: "b." and the base64 of a
		// serialised token, which always begins "AAAAAQ".
		rule("vault-batch-legacy", api, d, `\bb\.AAAAAQ[A-Za-z0-9_\-]{80,}`, 0, "b.aaaaaq"),
		rule("vault-unseal", api, d, `(?i)\bunseal(?:\s+key(?:\s+\d+)?\s*:|)\s+([A-Za-z0-9+/]{43,44}=?)`, 1, "unseal"),
	}
}

// probableRules find credentials by context: an assignment to a credential
// name, a connection string, an Authorization header.
func probableRules() []secretRule {
	rs := probableRuleList()
	// Rules whose secret is a long token skip chunks without such a run.
	minRun := map[string]int{"vault-legacy": 26, "k8s-bootstrap": 23, "azure-storage": 20, "thingsboard": 20,
		"pwhash-md5": 22, "pwhash-bcrypt": 53, "pwhash-sha": 43, "pwhash-scrypt": 43, "krb5": 40, "token-word": 16,
		"vault-long": 80, "quoted-pair": 16, "okta": 42, "postmark": 36, "codeclimate": 64, "twitter": 18,
		"jenkins-crumb": 32, "jenkins-setup": 32, "azure-devops-pat-old": 52, "azure-devops-pat-old-after": 52}
	for i := range rs {
		rs[i].minRun = minRun[rs[i].id]
	}
	return rs
}

func probableRuleList() []secretRule {
	p := LevelProbable
	return []secretRule{
		rule("bearer", SecretBearer, p, `(?i)\b(?:Bearer|SSWS)\s+([A-Za-z0-9._~+/=\-]{8,})`, 1, "bearer", "ssws").with(bearerish),
		// "token <value>" in prose needs a value that looks generated.
		rule("token-word", SecretBearer, p, `(?i)\btoken\s+([A-Za-z0-9._~+/=\-]{16,})`, 1, "token ").with(randomLooking).bySentence(),
		// A provider's key whose format nobody listed, named after the
		// mode it runs in as Stripe's are: "pkit_live_nyojq7…",
		// "gst_prod_pvhhm33…". Publishable keys ("pk_live_…") are public.
		rule("live-key", SecretAPIKey, p, `\b[a-z][a-z0-9]{1,9}_(?:live|prod)_[A-Za-z0-9]{24,}\b`, 0, "_live_", "_prod_").with(liveKey).bySentence(),
		rule("basic-auth", SecretPassword, p, `(?i)\bBasic\s+([A-Za-z0-9+/]{8,}={0,2})`, 1, "basic").with(isBasicCredential),
		rule("url-credentials", SecretConnString, p, `(?i)\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@"'<>]{0,64}:([^\s/]{1,200})@[A-Za-z0-9\-_.\[%]`, 1, "://").with(urlPassword),
		// "-u user -p password" on a command line (docker login, mysql,
		// sshpass): the value after -p must look like a password, not a
		// port mapping or a database name.
		rule("cli-user-pass", SecretPassword, p, `(?:^|\s)(?:-u|--user(?:name)?)[ =]\S+\s+-p ?([^\s"'\x60]{6,})`, 1, " -p").with(cliPassword),
		// curl and wget take "user:password" after -u / --user.
		rule("cli-user-colon-pass", SecretPassword, p, `(?:^|\s)(?:-u|--user|--http-user)[ =]["']?[^\s:"'$]+:([^\s"'\x60]{4,})`, 1, "-u ", "-u=", "--user", "--http-user").with(cliPassword),
		// Tools that take a password on their command line, each by its
		// documented flag: the MySQL clients' -pVALUE (glued; "-p" alone
		// prompts), the OpenLDAP clients' -w, redis-cli -a, sshpass -p,
		// Samba's -U user%password, keytool's -storepass and -keypass,
		// htpasswd -b, the archivers' -P / -pVALUE, sqlcmd -P, the MongoDB
		// tools' -p, the Mosquitto clients' -P, rabbitmqctl add_user,
		// Windows' "net use … PASSWORD /user:", xfreerdp's /p:, and a
		// password echoed into "sudo -S" or "--password-stdin".
		rule("cli-mysql", SecretPassword, p, `\b(?:mysql|mysqldump|mysqladmin|mysqlsh|mysqlimport|mysqlcheck|mariadb|mariadb-dump)\b[^\n|;]*?\s-p["']?([^\s"']{3,})`, 1, "mysql", "mariadb").with(cliPassword).needs(func(c string) bool { return strings.Contains(c, "-p") }),
		// SQL that sets a password: CREATE USER … IDENTIFIED BY 'x', ALTER
		// ROLE … PASSWORD 'x'.
		rule("sql-identified-by", SecretPassword, p, `(?i)\b(?:identified\s+by|with\s+(?:encrypted\s+)?password|alter\s+(?:user|role)\s+\S+\s+(?:with\s+)?password)\s+'([^'\s]{4,})'`, 1, "identified", "password '", "password  '").with(cliPassword),
		// Laravel's APP_KEY, and an Ethereum private key named as one (a
		// transaction hash has the same shape).
		rule("laravel-app-key", SecretAPIKey, p, `\bAPP_KEY\b[^\n]{0,60}?(base64:[A-Za-z0-9+/]{43}=)`, 1, "app_key"),
		rule("eth-private-key", SecretPrivateKey, p, `(?i)\bprivate[ _-]?key\b[^\n]{0,160}?\b(0x[0-9a-f]{64})\b`, 1, "private key", "private_key", "privatekey", "private-key"),
		// The SNMP tools' community (-c), lftp's -u user,password, ipmitool's -P.
		rule("cli-snmp", SecretPassword, p, `\bsnmp(?:walk|get|getnext|set|bulkwalk|bulkget|trap|table|netstat)\b[^\n|;]*?\s-c\s*["']?([^\s"']{4,})`, 1, "snmp").with(cliPassword),
		rule("cli-lftp", SecretPassword, p, `\blftp\b[^\n|;]*?\s-u\s+["']?[^,\s"']+,([^\s"']{3,})`, 1, "lftp").with(cliPassword),
		rule("cli-ipmitool", SecretPassword, p, `\bipmitool\b[^\n|;]*?\s-P\s*["']?([^\s"']{3,})`, 1, "ipmitool").with(cliPassword),
		rule("cli-ldap", SecretPassword, p, `\bldap(?:search|add|modify|delete|whoami|passwd|compare|modrdn|exop)\b[^\n|;]*?\s-w\s*["']?([^\s"']{3,})`, 1, "ldap").with(cliPassword),
		// "signs payloads with <secret>": what a service signs with is its
		// signing secret.
		rule("signs-with", SecretAPIKey, p, `(?i)\bsign(?:s|ed|ing)?\b[^.\n]{0,60}?\bwith\s+["'\x60]?([A-Za-z0-9+/=_\-]{24,})`, 1, "sign").with(func(v string) bool { return randomLooking(v) && !sampleValue(v) }),
		rule("cli-redis", SecretPassword, p, `\bredis-cli\b[^\n|;]*?\s(?:-a|--pass)\s+["']?([^\s"']{3,})`, 1, "redis-cli").with(cliPassword),
		rule("cli-sshpass", SecretPassword, p, `\bsshpass\s+-p\s*["']?([^\s"']{3,})`, 1, "sshpass").with(cliPassword),
		rule("cli-samba", SecretPassword, p, `\b(?:smbclient|smbmap|rpcclient|smbcacls|smbget)\b[^\n|;]*?\s(?:-U\s*|--user(?:name)?[ =])["']?[^\s%"']+%([^\s"']{3,})`, 1, "smb", "rpcclient").with(cliPassword),
		rule("cli-keytool", SecretPassword, p, `\s-(?:store|key|srcstore|deststore|srckey|destkey|new)pass\s+["']?([^\s"':]{3,})`, 1, "storepass", "keypass", "newpass").with(cliPassword),
		rule("cli-htpasswd", SecretPassword, p, `\b(?:htpasswd|mosquitto_passwd)\s+-[a-zA-Z]*b[a-zA-Z]*\s+(?:\S+\s+)?\S+\s+["']?([^\s"']{3,})["']?\s*$`, 1, "htpasswd", "mosquitto_passwd").with(cliPassword),
		rule("cli-archive", SecretPassword, p, `\b(?:zip|unzip|7z|7za|7zz|rar|unrar)\b[^\n|;]*?\s(?:-P\s+|-p)["']?([^\s"'-][^\s"']{2,})`, 1, "zip", "7z", "rar").with(cliPassword),
		rule("cli-sqlcmd", SecretPassword, p, `\b(?:sqlcmd|bcp|osql|isql)\b[^\n|;]*?\s-P\s*["']?([^\s"']{3,})`, 1, "sqlcmd", "bcp", "osql", "isql").with(cliPassword),
		rule("cli-mongo", SecretPassword, p, `\bmongo(?:sh|dump|restore|export|import|stat|top)?\b[^\n|;]*?\s(?:-p|--password)[ =]["']?([^\s"']{3,})`, 1, "mongo").with(cliPassword),
		rule("cli-mosquitto", SecretPassword, p, `\bmosquitto_(?:pub|sub|rr)\b[^\n|;]*?\s-P\s+["']?([^\s"']{3,})`, 1, "mosquitto").with(cliPassword),
		rule("cli-rabbitmq", SecretPassword, p, `\brabbitmqctl\s+(?:add_user|change_password)\s+\S+\s+["']?([^\s"']{3,})`, 1, "rabbitmqctl").with(cliPassword),
		rule("cli-net-use", SecretPassword, p, `(?i)\bnet\s+use\s+(?:\S+\s+){1,2}?["']?([^\s"'/*][^\s"']{2,})["']?\s+/user:`, 1, "net").with(cliPassword),
		rule("cli-rdp", SecretPassword, p, `(?i)\bxfreerdp3?\b[^\n]*?\s/p:["']?([^\s"']{3,})`, 1, "xfreerdp").with(cliPassword),
		rule("cli-echo-sudo", SecretPassword, p, `\becho\s+["']?([^\s"'|$][^\s"'|]{2,})["']?\s*\|\s*sudo\s+-S\b`, 1, "sudo").with(cliPassword),
		rule("cli-echo-stdin", SecretPassword, p, `\becho\s+["']?([^\s"'|$][^\s"'|]{2,})["']?\s*\|[^\n|]*--password-stdin`, 1, "password-stdin").with(cliPassword),
		// Redis's configuration directives for its password.
		rule("redis-requirepass", SecretPassword, p, `(?m)(?:^|[\s\x60"'])(?:requirepass|masterauth)\s+["']?([^\s"'\x60]{4,})`, 1, "requirepass", "masterauth").with(notPlaceholder),
		// Session cookies by their frameworks' names: whoever holds one is
		// logged in.
		rule("session-cookie", SecretBearer, p, `\b(?:sessionid|PHPSESSID|JSESSIONID|ASP\.NET_SessionId|connect\.sid|laravel_session|_session_id|session_token|__Secure-next-auth\.session-token|next-auth\.session-token)=([A-Za-z0-9%._~+/\-]{16,})`, 1, "sessionid", "phpsessid", "jsessionid", "asp.net_sessionid", "connect.sid", "laravel_session", "_session_id", "session_token", "session-token").with(randomLooking),
		// A value echoed into a file a password is read from:
		// "echo 'x' > ~/.vault_pass.txt".
		rule("echo-to-secret-file", SecretPassword, p, `\becho\s+["']?([^\s"'>|$][^\s"'>|]{3,})["']?\s*>>?\s*\S*(?:pass|secret|token|cred|\.key)`, 1, "echo").with(notPlaceholder),
		// Credentials in XML elements (Maven's settings.xml, .NET
		// configs): <password>…</password>.
		rule("xml-element", SecretPassword, p, `(?i)<(?:password|passwd|secret|token|apikey|api_key|clientsecret|client_secret|privatekey|passphrase)>\s*([^<\s]{3,})\s*</`, 1, "password>", "passwd>", "secret>", "token>", "apikey>", "api_key>", "passphrase>").with(notPlaceholder),
		// Go's smtp.PlainAuth(identity, username, password, host).
		rule("smtp-plainauth", SecretPassword, p, `\bPlainAuth\(\s*"[^"\n]*"\s*,\s*"[^"\n]*"\s*,\s*"([^"\n]{3,})"`, 1, "plainauth").with(notPlaceholder),
		// Azure shared access signatures: the "sig" of a SAS URL.
		rule("azure-sas", SecretAPIKey, p, `[?&]sig=([A-Za-z0-9%+/=]{20,})`, 1, "sig=").with(func(v string) bool {
			return randomLooking(strings.NewReplacer("%2B", "+", "%2F", "/", "%3D", "=").Replace(v))
		}),
		// A Wi-Fi QR code's text: "WIFI:T:WPA;S:<network>;P:<password>;;".
		rule("wifi-qr", SecretPassword, p, `WIFI:[^\n]*?(?:^|;|:)P:([^;\n]{4,});`, 1, "wifi:").with(notPlaceholder),
		// Twilio's client: Client(account SID, auth token).
		rule("twilio-client", SecretAPIKey, p, `\bClient\(\s*["']AC[0-9a-f]{32}["']\s*,\s*["']([0-9a-f]{32})["']`, 1, "client(").with(mixedToken),
		// PHP constants: WordPress's define( 'DB_PASSWORD', '…' ) and its keys
		// and salts.
		rule("php-define", SecretPassword, p, `\bdefine\(\s*['"][A-Z0-9_]*(?:PASSWORD|PASS|KEY|SALT|SECRET|TOKEN)[A-Z0-9_]*['"]\s*,\s*['"]([^'"\n]{4,})['"]`, 1, "define(").with(notPlaceholder),
		// A setter given the literal: ArduinoOTA.setPassword("…"),
		// client.setApiKey('…').
		rule("set-password-call", SecretPassword, p, `\bset(?:Password|Passphrase|Secret|Token|ApiKey|APIKey|AuthToken|ClientSecret)\(\s*["']([^"'\n]{4,})["']`, 1, "setpassword", "setpassphrase", "setsecret", "settoken", "setapikey", "setauthtoken", "setclientsecret").with(notPlaceholder),
		rule("netrc", SecretPassword, p, `(?i)\bmachine\s+\S+\s+login\s+\S+\s+password\s+(\S+)`, 1, "machine"),
		rule("psexec", SecretPassword, p, `(?i)\bpsexec(?:\.exe)?\b[^\n]*?\s-p\s+(\S+)`, 1, "psexec").with(notPlaceholder),
		rule("cli-password", SecretPassword, p, `(?i)(?:^|\s)--?(?:password|passwd|pass|secret|api-?key|token|[a-z\-]*-token|[a-z\-]*-password|[a-z\-]*-secret|apikey)=["']?([^\s"']{4,})`, 1, "pass", "secret", "api", "token").with(notPlaceholder),
		// With a space, "--token flag" is prose: the value must look like one.
		rule("cli-password-space", SecretPassword, p, `(?i)(?:^|\s)--?(?:password|passwd|pass|secret|api-?key|token|[a-z\-]*-token|[a-z\-]*-password|[a-z\-]*-secret|apikey) ["']?([^\s"']{4,})`, 1, "pass", "secret", "api", "token").with(func(v string) bool { return notPlaceholder(v) && mixedToken(v) }),
		// PowerShell's ConvertTo-SecureString takes its string argument as
		// the plain text of a password when given -AsPlainText, and otherwise
		// as an encrypted standard string, a DPAPI- or key-protected
		// password: a quoted literal is credential material either way.
		// Variables ("$password") are references, not secrets.
		rule("securestring", SecretPassword, p, `(?i)\bConvertTo-SecureString\s+(?:-(?:AsPlainText|Force)\s+)*(?:-String\s+)?["']([^"'\n]{4,200})["']`, 1, "convertto-securestring").with(notPlaceholder),
		rule("securestring-pipe", SecretPassword, p, `(?i)["']([^"'\n]{4,200})["']\s*\|\s*ConvertTo-SecureString\b`, 1, "convertto-securestring").with(notPlaceholder),
		rule("credential-call", SecretPassword, p, `(?:NetworkCredential|DirectoryEntry|PasswordAuthentication|UsernamePasswordCredentials?)\(\s*(?:"[^"\n]*"\s*,\s*)?"[^"\n]*"\s*,\s*"([^"\n]{3,})"`, 1, "credential", "directoryentry", "passwordauthentication"),
		rule("xml-keyvalue", SecretPassword, p, `(?i)key\s*=\s*"[^"\n]*(?:password|secret|token|apikey|api_key)[^"\n]*"\s+value\s*=\s*"([^"\n]{3,})"`, 1, "value").with(notPlaceholder),
		rule("password-prose", SecretPassword, p, `(?i)\bpass(?:word|phrase|wd)?\b[^\n.;]{0,40}?\bis\s*:?\s*["'\x60]([^"'\x60\n]{3,64})["'\x60]`, 1, "pass").with(notPlaceholder),
		rule("pwhash-md5", SecretHash, p, `\$1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}`, 0, "$1$"),
		rule("pwhash-bcrypt", SecretHash, p, `\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}`, 0, "$2"),
		rule("pwhash-sha", SecretHash, p, `\$[56]\$(?:rounds=\d+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}`, 0, "$5$", "$6$"),
		rule("pwhash-scrypt", SecretHash, p, `\$[78]\$[./A-Za-z0-9]{14,}\$[./A-Za-z0-9]{43}`, 0, "$7$", "$8$"),
		rule("krb5", SecretHash, p, `\$krb5(?:asrep|tgs|pa)\$\d+\$[^\s]{40,}`, 0, "$krb5"),
		rule("azure-storage", SecretAPIKey, p, `(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*([A-Za-z0-9+/]{20,}={0,2})`, 1, "accountkey", "sharedaccess"),
		rule("thingsboard", SecretAPIKey, p, `/api/v1/([A-Za-z0-9]{20})/(?:telemetry|attributes|rpc)`, 1, "/api/v1/").with(mixedToken),
		rule("k8s-bootstrap", SecretAPIKey, p, `(?i)bootstrap[\w\-]*["']?\s*[:= ]\s*["']?([a-z0-9]{6}\.[a-z0-9]{16})\b`, 1, "bootstrap"),
		rule("vault-legacy", SecretAPIKey, p, `(?:^|[\s"'=:])([sbr]\.[A-Za-z0-9]{24,28})(?:[^A-Za-z0-9_\-]|$)`, 1, "s.", "b.", "r.").with(mixedToken),
		// Vault service tokens in the newer long form keep the legacy "s."
		// prefix in some setups: "s." and 80 or more token characters.
		rule("vault-long", SecretAPIKey, p, `(?:^|[\s"'=:\x60])(s\.[A-Za-z0-9_\-]{80,})`, 1, "s.").with(randomLooking),
		// A credential name and its value as two string arguments:
		// set('sonar.login', '...'), buildConfigField('String', 'API_KEY',
		// '"..."'), setProperty("password", "..."). The value must look
		// generated: two string arguments are common in ordinary code.
		// Formats that are only recognisable next to their provider's name.
		// Okta API tokens: "00" and 40 token characters, within a line or two
		// of the name.
		rule("okta", SecretAPIKey, p, `(?is)okta.{0,80}?\b(00[A-Za-z0-9_\-]{40})(?:[^A-Za-z0-9_\-]|$)`, 1, "okta").with(func(v string) bool { return randomLooking(v) && !sampleValue(v) }),
		// Azure DevOps personal access tokens in the format issued before
		// 2024: 52 characters of lower-case base32 (a 256-bit key), with no
		// prefix of their own, so only taken within 80 characters of an Azure
		// DevOps name or host, before the token or after it (a clone URL
		// puts the token before the host: https://<token>@dev.azure.com/).
		// Assignments to a "pat" or "token" name are found without these.
		rule("azure-devops-pat-old", SecretAPIKey, p, `(?is)(?:`+adoContext+`).{0,80}?\b([a-z2-7]{52})\b`, 1, adoKeywords...).with(adoOldPAT),
		rule("azure-devops-pat-old-after", SecretAPIKey, p, `(?is)\b([a-z2-7]{52})\b.{0,80}?(?:`+adoContext+`)`, 1, adoKeywords...).with(adoOldPAT),
		// Postmark server and account tokens are UUIDs.
		rule("postmark", SecretAPIKey, p, `(?i)postmark[A-Za-z0-9_\-]*["']?\s*[:=]\s*["']?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b`, 1, "postmark"),
		// Code Climate test reporter IDs and repository tokens: 64 hex digits.
		rule("codeclimate", SecretAPIKey, p, `(?i)(?:codeclimate|cc_test_reporter)[A-Za-z0-9_\-]*["']?\s*[:=]\s*["']?([0-9a-f]{64})\b`, 1, "codeclimate", "cc_test_reporter"),
		// Twitter consumer keys: 18 to 25 letters and digits, quoted, next
		// to a name starting with "twitter".
		rule("twitter", SecretAPIKey, p, `(?i)twitter[A-Za-z0-9_\-]*["']?\s*[:=]\s*["']([A-Za-z0-9]{18,25})["']`, 1, "twitter").with(func(v string) bool { return randomLooking(v) && !identifierLike(v) }),
		// Jenkins: the CSRF crumb header, and the generated first-run admin
		// password printed by the setup wizard.
		// OAuth 1 clients built from literal credentials, as Python's
		// twitter package takes them: OAuth(token, token_secret,
		// consumer_key, consumer_secret).
		rule("oauth1-call", SecretAPIKey, p, `\bOAuth1?\(\s*['"]([A-Za-z0-9\-]{20,})['"]\s*,\s*['"][A-Za-z0-9]{20,}['"]`, 1, "oauth(", "oauth1(").with(randomLooking),
		rule("jenkins-crumb", SecretAPIKey, p, `(?i)\bJenkins-Crumb\s*[:=]\s*([0-9a-f]{32,64})\b`, 1, "jenkins-crumb"),
		rule("jenkins-setup", SecretPassword, p, `(?i)password to proceed to installation:\s*([0-9a-f]{32})\b`, 1, "proceed to installation"),
		rule("quoted-pair", SecretAPIKey, p, `(?i)(?:^|["'\s(])[A-Za-z0-9_.\-]{0,40}(?:pass|pwd|secret|token|key|login|auth|credential)[A-Za-z0-9_.\-]{0,40}["']\s*,\s*["']\\?"?([A-Za-z0-9_\-+/=.~]{16,})`, 1, "pass", "pwd", "secret", "token", "key", "login", "auth", "credential").with(randomLooking).needs(quoteCommaQuote),
	}
}

// adoContext names Azure DevOps: the product, its hosts, and the "ADO" and
// "VSTS" abbreviations as words ("ADO_PAT", "vsts feed"). adoKeywords is its
// prefilter.
const adoContext = `devops|dev\.azure\.com|visualstudio\.com|\bvsts(?:\b|_)|\bado(?:\b|_)`

var adoKeywords = []string{"devops", "dev.azure.com", "visualstudio.com", "vsts", "ado"}

// adoOldPAT vets a 52-character base32 run found next to an Azure DevOps
// name. A random 256-bit key in base32 has a digit (2 to 7) in all but about
// two in 100,000 cases; a run of letters only is a word or a name.
func adoOldPAT(v string) bool {
	return randomLooking(v) && !sampleValue(v)
}

// assignRe finds "name = value" and its relatives (":", "=>", ":=", "==",
// "!=", "name value" inside a block, JSON "name": "value"). Group 1 is the
// name, group 2..5 the value in its quoting.
var assignRe = regexp.MustCompile(`(?i)^([A-Za-z0-9_.\-]*(?:pass|pwd|secret|token|key|credential|auth|login|pat)[A-Za-z0-9_.\-]*)["'\]]?[ \t]*(?:(?::=|=>|==|!=|=|:)[ \t]*(?:\[[ \t]*)?|[ \t]+)(?:\\"([^"\\\n]*)\\"|"([^"\n]*)"|'([^'\n]*)'|` + "`" + `([^` + "`" + `\n]*)` + "`" + `|([^\s"'<>,;)(\]\[{}\\]+))`)

// nameKind says how strongly an assignment name implies a credential.
// strong names (password, secret, token) accept any non-placeholder value;
// weak ones (key, auth, login) need a value that looks random.
func nameKind(name string) (strong, weak bool) {
	for _, part := range splitName(name) {
		switch part {
		case "password", "passwd", "passwort", "pwd", "pass", "passphrase", "secret", "secrets", "token", "credential", "credentials", "apikey", "pat", "jwtsecret", "jwtsecret_key", "secretkey", "accesstoken", "authtoken", "privatekey", "clientsecret",
			"passe", "senha", "contrasena", "contraseña", "clave", "mdp", "motdepasse", "kennwort", "parola", "пароль", "비밀번호", "密码", "パスワード", "pw":
			strong = true
		case "key", "auth", "login", "sid", "license", "sk":
			weak = true
		}
	}
	return strong, weak
}

// referenceName reports names whose value names another secret rather
// than holding one: Helm's "existingSecret", "secretName", Kubernetes'
// "secretKeyRef".
func referenceName(name string) bool {
	n := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
	return strings.Contains(n, "existing") || strings.HasSuffix(n, "secretname") || strings.HasSuffix(n, "secretref") || strings.HasSuffix(n, "keyref") || strings.HasSuffix(n, "secretkeys") || strings.HasSuffix(n, "passwordkey")
}

// publicName reports names of values that are public by design:
// "STRIPE_PUBLISHABLE_KEY", "NEXT_PUBLIC_…" (Next.js ships these to the
// browser), "ssh_pub_key".
func publicName(name string) bool {
	for _, p := range splitName(name) {
		if p == "public" || p == "publishable" || p == "pub" || p == "idempotency" || p == "anon" || p == "page" || p == "cursor" || p == "pagination" {
			return true
		}
	}
	// "private_key_id", "secret_key_hash": the name names an id, a
	// hash or a fingerprint of the credential, not the credential.
	// (splitName appends the pairs after the n parts.)
	if parts := splitName(name); len(parts) > 1 {
		switch parts[(len(parts)+1)/2-1] {
		case "id", "ids", "hash", "fingerprint", "thumbprint", "digest", "sha", "kid", "ttl", "timeout", "expiry", "expires",
			"lifetime", "length", "size", "count", "max", "min", "limit", "error", "exception":
			return true
		}
	}
	return false
}

// splitName splits an identifier into lower-case parts at "_", "-", "." and
// lower-to-upper case changes ("fbApiKey" -> fb, api, key, plus "apikey").
func splitName(name string) []string {
	var parts []string
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, strings.ToLower(name[start:end]))
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == '>' || c == '$':
			flush(i)
			start = i + 1
		case c >= 'A' && c <= 'Z' && i > start && name[i-1] >= 'a' && name[i-1] <= 'z':
			flush(i)
			start = i
		}
	}
	flush(len(name))
	// Pairs catch names written as one word ("apikey", "secretkey").
	n := len(parts)
	for i := 0; i+1 < n; i++ {
		parts = append(parts, parts[i]+parts[i+1])
	}
	return parts
}

// assignments finds credential assignments in text. It returns findings with
// byte spans over the value.
func assignments(text, lower string, add func(f Finding)) {
	// Every assignment name holds a keyword. Find the keywords, step back
	// to the start of the name, and try the pattern anchored there: far
	// cheaper than an unanchored search from every byte. Each run of name
	// characters is tried once, and runs longer than maxName are not names.
	var hits []int
	for _, kw := range assignKeywords {
		for off := 0; ; {
			i := strings.Index(lower[off:], kw)
			if i < 0 {
				break
			}
			hits = append(hits, off+i)
			off += i + len(kw)
		}
	}
	slices.Sort(hits)
	covered := 0
	for _, i := range hits {
		if i < covered {
			continue
		}
		start, stop := i, i
		for start > 0 && isNameByte(text[start-1]) {
			start--
		}
		for stop < len(text) && isNameByte(text[stop]) {
			stop++
		}
		covered = stop
		if stop-start > maxName {
			continue
		}
		// "${DB_PASSWORD:?must be set}" is a reference; an ARN's
		// "…:secret:prod/db" names where a secret is kept.
		if start >= 2 && text[start-2:start] == "${" {
			continue
		}
		if ts := strings.LastIndexAny(text[:start], " \t\n\"'`(") + 1; strings.HasPrefix(lower[ts:start], "arn:") {
			continue
		}
		end := min(len(text), start+maxAssignment)
		if nl := strings.IndexByte(text[start:end], '\n'); nl >= 0 {
			end = start + nl
		}
		// In a URL query ("?token=...&channel=..."), "&" ends the value.
		query := start > 0 && (text[start-1] == '?' || text[start-1] == '&')
		if strong, weak := nameKind(text[start:stop]); !modifiedNonSecret(text, start, weak && !strong) {
			assignLine(text[start:end], text[max(0, start-160):start], start, query, add)
		}
	}
}

func isNameByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.' || c == '-'
}

// An assignment is looked for in at most maxAssignment bytes from a name of
// at most maxName bytes before its keyword.
const (
	maxName       = 64
	maxAssignment = 512
)

var assignKeywords = []string{"pass", "pwd", "secret", "token", "key", "credential", "auth", "login", "pat", "senha", "contras", "clave", "mdp", "kennwort", "parola", "пароль", "비밀번호", "密码", "パスワード"}

func assignLine(text, prior string, base int, query bool, add func(f Finding)) {
	m := assignRe.FindStringSubmatchIndex(text)
	if m == nil {
		return
	}
	name := text[m[2]:m[3]]
	strong, weak := nameKind(name)
	if !strong && !weak || publicName(name) || referenceName(name) {
		return
	}
	vs, ve, quoted := -1, -1, false
	for g := 2; g <= 6; g++ {
		if m[2*g] >= 0 {
			vs, ve, quoted = m[2*g], m[2*g+1], g < 6
			break
		}
	}
	if vs < 0 {
		return
	}
	// "name value" without an operator is only taken for quoted values
	// of strong names (Gradle's `password 'x'`), never for prose.
	op := strings.TrimSpace(text[m[3]:vs])
	op = strings.Trim(op, "\"'[]`")
	if op == "" && (!quoted || !strong || m[10] >= 0 || strings.EqualFold(name, "pass")) {
		return // not "pass `--frozen`": backticks and the verb "pass" are prose
	}
	if op == "" && wordCompound(strings.Trim(text[vs:ve], "\"'`")) {
		return // "npm token 'ci-publish'": the token's name
	}
	// "AccessKeySecret=xxxx，部署时…": full-width punctuation ends a value.
	if !quoted {
		if k := strings.IndexFunc(text[vs:ve], func(r rune) bool { return r >= 0x80 }); k >= 0 {
			ve = vs + k
		}
	}
	if query && !quoted {
		if amp := strings.IndexByte(text[vs:ve], '&'); amp >= 0 {
			ve = vs + amp
		}
	}
	val := text[vs:ve]
	// A SealedSecret's encryptedData is ciphertext for the cluster.
	if strings.Contains(text, "encryptedData:") {
		return
	}
	if !notPlaceholder(val) || sampleValue(val) || publicFormat(val) || !quoted && strings.EqualFold(val, name) {
		return // "token=token" passes a variable on
	}
	if !strong && (!randomLooking(val) || identifierLike(val) || wordCompound(val)) {
		return
	}
	// "correlation id from the failed login: corr-88d7…", "hash del
	// commit che ha rotto il login: fc27…": a weak name ("login") in a
	// sentence that names the value as something else.
	if !strong {
		if k := strings.LastIndexAny(prior, ".\n;"); k >= 0 {
			prior = prior[k+1:]
		}
		for _, m := range findNaming(prior, asciiLower(prior)) {
			if m.kind == nameNonSecret || m.kind == nameNonSecretMod {
				return
			}
		}
	}
	if strong && !quoted && len(val) < 4 {
		return
	}
	if !quoted && labelProse[strings.ToLower(val)] {
		return // "Password: must be set in the UI", "Token: see the vault"
	}
	typ := SecretPassword
	for _, p := range splitName(name) {
		if p == "token" || p == "apikey" || p == "key" || p == "accesstoken" || p == "authtoken" {
			typ = SecretAPIKey
		}
	}
	add(Finding{Kind: KindSecret, Type: typ, Level: LevelProbable, Start: base + vs, End: base + ve, Reason: "credential assigned to " + truncate(name, 40)})
}

// urlPassword vets the password of a URL. A percent-encoded one
// ("%21wFBj7%25Q6…") is decoded first: its leading "%" is not a Windows
// variable.
func urlPassword(v string) bool {
	if len(v) < 3 || v[0] != '%' || !isHex(v[1:3]) {
		return notPlaceholder(v)
	}
	d, err := url.PathUnescape(v)
	if err != nil {
		return false
	}
	return len(d) >= 4 && !dominant(d) && !strings.ContainsAny(d[:1], "${<")
}

// cliPassword vets the value of a -p flag after -u: a password, not a
// port mapping ("-p 127.0.0.1:8080:80") or a database name.
func cliPassword(v string) bool {
	if !notPlaceholder(v) || strings.Trim(v, "0123456789.:") == "" {
		return false
	}
	return looksLikePassword(v) || randomLooking(v)
}

// credentialBefore reports a credential noun in the sentence before
// text[i].
func credentialBefore(text string, i int) bool {
	head := text[sentenceStart(text, i, 160):i]
	for _, m := range findNaming(head, asciiLower(head)) {
		if m.kind.credential() {
			return true
		}
	}
	return false
}

// shellVariable reports what follows a "$" when it names a variable
// ("HOME", "db_password", "{TOKEN}", "1"), not a password that opens with
// a dollar sign ("$Kotik2006", "$nowdr0pro$ie30"): a name is one case,
// or a template.
func shellVariable(v string) bool {
	v = strings.TrimRight(v, "'\"`;,)}")
	if !strings.ContainsAny(v, "0123456789") {
		return true // "$super$ecret", "$PRECOMPILE_PASSWORD'": no digit, a name
	}
	if v == "" || !identOnly(v) {
		return v == "" || v[0] == '{' || v[0] == '(' || v[0] == '$'
	}
	lo, up, dg, _ := charClasses(v)
	return !(lo && up) && !(lo && dg && !strings.Contains(v, "_")) || !dg
}

// notPlaceholder rejects values that are clearly not a literal secret:
// variable references, templates, function calls, empty or masked values.
func notPlaceholder(v string) bool {
	v = strings.TrimSpace(v)
	v = strings.TrimLeft(v, `\'"`)
	if len(v) < 4 {
		return false
	}
	switch {
	case strings.HasPrefix(v, "$") && shellVariable(v[1:]), strings.HasPrefix(v, "%"), strings.HasPrefix(v, "{"),
		strings.HasPrefix(v, "<"), strings.HasPrefix(v, "&lt;"), strings.HasPrefix(v, "#{"),
		strings.HasPrefix(v, "("), strings.HasPrefix(v, "["), strings.HasPrefix(v, "/"),
		strings.HasPrefix(v, "@"), strings.HasPrefix(v, "."), strings.HasPrefix(v, "+") && !(len(v) >= 20 && strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") == ""),
		strings.HasPrefix(v, "arn:"), strings.HasPrefix(v, "http://"), strings.HasPrefix(v, "https://"):
		return false
	case strings.HasSuffix(v, ":"), strings.HasSuffix(v, "("), strings.Contains(v, "()"):
		return false
	}
	lv := strings.ToLower(v)
	switch lv {
	case "null", "nil", "none", "undefined", "true", "false", "empty", "string", "required", "optional", "bool", "int":
		return false
	}
	for _, p := range []string{"process.env", "os.getenv", "os.environ", "env(", "env[", "env.", "getenv", "secrets.", "vault(", "request.", "params[", "config[", "settings.",
		"var.", "local.", "data.", "module.", "vars.", "inputs.", "import.meta.env", "config.", "cfg."} {
		if strings.HasPrefix(lv, p) {
			return false
		}
	}
	// Masked or filler values: one repeated character, or x/X/*/# only.
	same := true
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			same = false
			break
		}
	}
	if same || dominant(v) {
		return false
	}
	// A command that fetches the secret ("vault kv get -field=password
	// secret/prod/db"), not the secret.
	if strings.Contains(v, " -") && strings.Count(v, " ") >= 2 {
		return false
	}
	// A route or file path made of words ("cms/sites/passwords#edit").
	if strings.Contains(v, "/") && strings.Trim(lv, "abcdefghijklmnopqrstuvwxyz_/#:.-") == "" {
		return false
	}
	if strings.Trim(lv, "x*#._-") == "" {
		return false
	}
	// A CSS selector or route ("#add-password").
	if v[0] == '#' && strings.Trim(lv[1:], "abcdefghijklmnopqrstuvwxyz-_") == "" {
		return false
	}
	return true
}

// dominant reports filler values: one character making up 80% or more of
// v ("000000000000aa"), or a long value built from five characters or fewer
// ("aaaaaaaaaaaaendbbbb"). Generated secrets use many distinct characters.
func dominant(v string) bool {
	var counts [256]int
	distinct := 0
	for i := 0; i < len(v); i++ {
		if counts[v[i]] == 0 {
			distinct++
		}
		counts[v[i]]++
	}
	if len(v) >= 12 && distinct <= 5 {
		return true
	}
	for _, c := range counts {
		if c*5 >= len(v)*4 {
			return true
		}
	}
	return false
}

// sampleValue reports the runs that documentation uses for made-up values:
// "abcdefg", "a1b2c3", "1234567890". Real generated secrets practically
// never contain them.
func sampleValue(v string) bool {
	for _, s := range documentedSamples {
		if strings.Contains(v, s) {
			return true
		}
	}
	lv := strings.ToLower(v)
	for _, s := range []string{"abcdefg", "a1b2c3", "1234567890", "0123456789"} {
		if strings.Contains(lv, s) {
			return true
		}
	}
	return false
}

// documentedSamples are parts of the sample credentials that providers
// publish in their documentation: the signature of jwt.io's example
// token and Stripe's documented test key.
var documentedSamples = []string{"SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "4eC39HqLyjWDarjtT1zdp7dc"}

// documentedSample reports a published sample in the token at
// text[a:b], read to its end (a JWT's signature follows its header).
func documentedSample(text string, a, b int) bool {
	for b < len(text) && text[b] > ' ' && text[b] != '"' && text[b] != '\'' {
		b++
	}
	for _, s := range documentedSamples {
		if strings.Contains(text[a:b], s) {
			return true
		}
	}
	return false
}

// interleavedSample reports the letter-digit counting patterns that
// documentation fills example keys with: "a1b2c3", "d4c3b2a1", "x9y8z7".
// Three or more letter-digit pairs in which the letters count by one (up
// or down) and so do the digits, ignoring separators, practically never
// occur in a generated secret: in random hex the chance at a given
// position is a few in a million, in base-62 text far less.
func interleavedSample(v string) bool {
	var b []byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b = append(b, c)
		}
	}
	isL := func(c byte) bool { return c >= 'a' && c <= 'z' }
	isD := func(c byte) bool { return c >= '0' && c <= '9' }
	pair := func(j int) bool { return j+1 < len(b) && isL(b[j]) && isD(b[j+1]) }
	for i := 0; i+3 < len(b); i++ {
		if !pair(i) || !pair(i+2) {
			continue
		}
		dir := int(b[i+2]) - int(b[i])
		ddir := (int(b[i+3]) - int(b[i+1]) + 10) % 10
		if dir != 1 && dir != -1 || ddir != 1 && ddir != 9 {
			continue
		}
		pairs := 1
		for j := i + 2; pair(j); j += 2 {
			dl := int(b[j]) - int(b[j-2])
			dd := (int(b[j+1]) - int(b[j-1]) + 10) % 10
			if dl != dir || dd != ddir {
				break
			}
			pairs++
		}
		if pairs >= 3 {
			return true
		}
	}
	return false
}

// identifierLike reports values made of words, as identifiers are
// ("ConnectionString_B2B", "user-service.main"): split at separators and
// case changes, every part is at least three characters long with at most
// one digit. Generated tokens change case every character or two, so their
// parts are short.
func identifierLike(v string) bool {
	parts := 0
	start := 0
	ok := true
	flush := func(end int) {
		if end <= start {
			return
		}
		p := v[start:end]
		digits := 0
		for i := 0; i < len(p); i++ {
			if p[i] >= '0' && p[i] <= '9' {
				digits++
			}
		}
		if len(p) < 3 || digits > 1 {
			ok = false
		}
		parts++
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			flush(i)
			start = i + 1
		case c >= 'A' && c <= 'Z' && i > start && v[i-1] >= 'a' && v[i-1] <= 'z':
			flush(i)
			start = i
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			return false
		}
	}
	flush(len(v))
	return ok && parts >= 2
}

// randomLooking reports whether v looks machine-generated: long enough, with
// digits and letters, and enough character entropy.
func randomLooking(v string) bool {
	if len(v) < 16 || !notPlaceholder(v) {
		return false
	}
	var letters, digits int
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letters++
		case c == ' ':
			return false
		}
	}
	return letters > 0 && digits > 0 && shannon(v) >= 3.0
}

// liveKey is a mode-named key that is not publishable: "pkit_live_…",
// not "pk_live_…" or "pub_live_…".
func liveKey(v string) bool {
	return mixedToken(v) && !strings.HasPrefix(v, "pk_") && !strings.HasPrefix(v, "pub")
}

// mixedToken requires a digit and a letter, which rules out identifiers and
// method chains that share a provider's prefix.
func mixedToken(v string) bool {
	var lower, upper, digit bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return digit && (lower || upper)
}

// bearerish accepts an Authorization token: random-looking, or any value
// that follows the literal word Bearer with digits in it.
func bearerish(v string) bool {
	return notPlaceholder(v) && mixedToken(v) && len(v) >= 8 && !strings.HasPrefix(strings.ToLower(v), "http")
}

// isBasicCredential accepts HTTP Basic credentials: base64 of "user:pass".
func isBasicCredential(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
	}
	if err != nil || !strings.Contains(string(b), ":") {
		return false
	}
	for _, c := range b {
		if c < 32 || c > 126 {
			return false
		}
	}
	return true
}

func isBase64PrivateKey(v string) bool {
	n := len(v) / 4 * 4
	if n > 96 {
		n = 96
	}
	b, err := base64.StdEncoding.DecodeString(v[:n])
	if err != nil {
		return false
	}
	return strings.Contains(string(b), "PRIVATE KEY")
}

// pemBlocks finds private key blocks. A block runs from its BEGIN line to its
// END line, or to the end of the text when the block was cut off: better to
// redact too much than to store half a key.
func pemBlocks(text string, add func(f Finding)) {
	const begin = "-----BEGIN "
	off := 0
	for {
		i := strings.Index(text[off:], begin)
		if i < 0 {
			return
		}
		start := off + i
		head := text[start+len(begin):]
		eol := strings.Index(head[:min(len(head), 80)], "-----")
		if eol < 0 || eol > 60 || !strings.Contains(head[:eol], "PRIVATE KEY") {
			off = start + len(begin)
			continue
		}
		end := len(text)
		if j := strings.Index(head[eol+5:], "-----END "); j >= 0 {
			tail := start + len(begin) + eol + 5 + j + len("-----END ")
			if k := strings.Index(text[tail:], "-----"); k >= 0 && k < 60 {
				end = tail + k + 5
			}
		}
		add(Finding{Kind: KindSecret, Type: SecretPrivateKey, Level: LevelDefinite, Start: start, End: end, Reason: "private key block"})
		off = end
		if off >= len(text) {
			return
		}
	}
}

// highEntropyRe finds long runs of token characters for the "possible" level.
var highEntropyRe = regexp.MustCompile(`[A-Za-z0-9+/=_\-]{32,}`)

// possibleSecrets flags long random-looking strings (base64 runs, 40-digit
// hex hashes) not already covered by a finding, unless their form or their
// sentence says what they are: a content hash after its algorithm
// ("sha256:…", "h1:…", "sha384-…"), a public key (SSH, age, Stripe
// publishable, a PUBLIC KEY block), part of a file or host name
// ("…3f7c.json", "…qr.apps.googleusercontent.com"), base64 of text or of
// an image, or a value the sentence names as a commit, digest, trace or
// request id, fingerprint or sample (namedNonSecret).
func possibleSecrets(text string, add func(f Finding)) {
	var ms []namingMatch
	named := false
	nonSecret := func(a, b int) bool {
		if !named {
			ms, named = findNaming(text, asciiLower(text)), true
		}
		return namedNonSecret(text, a, b, ms) || saidPublic(text, b)
	}
	for _, m := range highEntropyRe.FindAllStringIndex(text, -1) {
		a, b := m[0], m[1]
		// "SENTRY_RELEASE=dfbd…": the value, not the name.
		if eq := strings.IndexByte(text[a:b], '='); eq > 0 && eq < b-a-1 && strings.Trim(text[a:a+eq], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == "" {
			a += eq + 1
		}
		s := text[a:b]
		if len(s) < 32 || interleavedSample(s) || placeholderValue(s) {
			continue // "a1B2c3D4...": a documentation sample
		}
		if digestContext(text[max(0, a-16):a]) || digestPrefixed(s) || sumLine(text, a, b) || strings.HasSuffix(asciiLower(text[max(0, a-14):a]), "verification=") || strings.Contains(asciiLower(s), "verification=") {
			continue // "pkg-1.2.4.tgz#3b33...", "sha256:9f86...": a content hash
		}
		if publicFormat(s) || inPublicBlock(text, a) || nameLabel(text, a, b) || inSopsValue(text, a) {
			continue
		}
		if isHex(s) {
			if (len(s) == 40 || len(s) == 64 || len(s) == 32) && !nonSecret(a, b) && !idWordBefore(text, a) {
				add(Finding{Kind: KindSecret, Type: SecretHighEntrop, Level: LevelPossible, Start: a, End: b, Reason: "hex string that may be a key or a hash"})
			}
			continue
		}
		if strings.Count(s, "-") > 3 || strings.Count(s, "/") > 3 {
			continue // paths, slugs, UUID lists
		}
		if mixedToken(s) && shannon(s) >= 4.2 && !encodedData(s) && !nonSecret(a, b) {
			add(Finding{Kind: KindSecret, Type: SecretHighEntrop, Level: LevelPossible, Start: a, End: b, Reason: "long high-entropy string"})
		}
	}
}

// idWordBefore reports a word right before text[a] that makes a hex
// string an id: "event 400f…", "container 94c0…", "with 444f…" (a commit
// a regression came with), "run", "job", "build".
func idWordBefore(text string, a int) bool {
	h := strings.TrimRight(asciiLower(text[max(0, a-12):a]), " (")
	for _, w := range []string{"event", "container", "with", "run", "job", "build", "issue", "object", "blob", "tree"} {
		if strings.HasSuffix(h, " "+w) || h == w {
			return true
		}
	}
	return false
}

// digestContext reports whether the text just before a string names it as
// a content hash: a URL fragment ("tgz#"), a digest algorithm ("sha256:",
// "sha1-", "h1:"), a checksum.
func digestContext(before string) bool {
	if strings.HasSuffix(before, "#") || strings.HasSuffix(before, "h1:") {
		return true
	}
	lb := strings.ToLower(before)
	for _, w := range []string{"sha1", "sha256", "sha384", "sha512", "sha-1", "sha-256", "sha-384", "sha-512", "md5", "blake2", "digest", "checksum", "integrity"} {
		if strings.Contains(lb, w) {
			return true
		}
	}
	return false
}

// sumLine reports a hash written as sha256sum, md5sum and their kin print
// it: at the start of a line, then two spaces (or " *") and a file name.
func sumLine(text string, a, b int) bool {
	if a > 0 && text[a-1] != '\n' {
		return false
	}
	return strings.HasPrefix(text[b:], "  ") || strings.HasPrefix(text[b:], " *")
}

// digestPrefixed reports a hash written with its algorithm in front, as
// Subresource Integrity, npm, OCI and go.sum write them ("sha512-L6Ee…",
// "sha256:9f86…", "h1:bkN3…").
func digestPrefixed(s string) bool {
	ls := strings.ToLower(s)
	for _, p := range []string{"sha1-", "sha256-", "sha384-", "sha512-", "md5-", "sha1:", "sha256:", "sha384:", "sha512:", "md5:", "h1:", "zh:"} {
		if strings.HasPrefix(ls, p) {
			return true
		}
	}
	return false
}

// inSopsValue reports whether text[i] lies inside a value SOPS encrypted
// ("ENC[AES256_GCM,data:…,iv:…,tag:…,type:str]"): ciphertext, not a key.
func inSopsValue(text string, i int) bool {
	b := strings.LastIndex(text[max(0, i-400):i], "ENC[")
	return b >= 0 && !strings.Contains(text[max(0, i-400)+b:i], "]")
}

// inPublicBlock reports whether text[i] lies inside a PEM block that holds
// no private key (a public key, a certificate).
func inPublicBlock(text string, i int) bool {
	b := strings.LastIndex(text[:i], "-----BEGIN ")
	if b < 0 || strings.Contains(text[b:i], "-----END ") {
		return false
	}
	head := text[b+len("-----BEGIN ") : min(len(text), b+80)]
	e := strings.Index(head, "-----")
	return e > 0 && !strings.Contains(head[:e], "PRIVATE")
}

// nameLabel reports a string that is one label of a dotted file or host
// name: followed by "." and a lower-case word ("…e6ca7f3c8a.json",
// "…qr.apps.googleusercontent.com").
func nameLabel(text string, a, b int) bool {
	if b+2 >= len(text) || text[b] != '.' {
		return false
	}
	k := b + 1
	for k < len(text) && k-b <= 11 && (text[k] >= 'a' && text[k] <= 'z' || isDigit(text[k]) && k > b+1) {
		k++
	}
	return k-b >= 3 && k-b <= 11 && (k == len(text) || !isAlnum(text[k]) || text[k] == '.')
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// scanSecrets runs the rule sets and the finders of secrets_forms.go,
// the latter only where no rule already found a secret; findings are
// sorted by start.
func (g *Guard) scanSecrets(text string) []Finding {
	fs := g.secrets.scan(text)
	extra := dropPlaceholders(text, moreSecrets(text, g.secrets.scan))
	// Chosen passwords and device codes last: only where nothing else
	// found a secret.
	chosenPasswords(text, func(f Finding) { extra = append(extra, f) })
	deviceCodes(text, func(f Finding) { extra = append(extra, f) })
	delimitedSecrets(text, func(f Finding) { extra = append(extra, f) })
	loginPairs(text, func(f Finding) { extra = append(extra, f) })
	countedDigits(text, func(f Finding) { extra = append(extra, f) })
	answeredSecrets(text, func(f Finding) { extra = append(extra, f) })
	seedPhrases(text, func(f Finding) { extra = append(extra, f) })
	// The learned judgement last, where no rule found anything.
	learned := func(f Finding) {
		// A possible finding (a random-looking string nothing named) may
		// become probable when the sentence speaks for it and names a
		// credential ("clé secrète …", "Admin 키(…) …"), never on the
		// model's word alone ("Note: …").
		for _, o := range fs {
			if o.Start < f.End && f.Start < o.End && (o.Level != LevelPossible || !credentialBefore(text, f.Start)) {
				return
			}
		}
		for _, o := range extra {
			if o.Start < f.End && f.Start < o.End {
				return
			}
		}
		extra = append(extra, f)
	}
	learnedSecrets(g.secretModel, text, learned)
	// The old value beside a new one ("the new PIN is 2152; the old one
	// (4046) was blocked"): people reuse what they once chose.
	previousValues(text, append(append([]Finding(nil), fs...), extra...), learned)
	if len(extra) == 0 {
		return fs
	}
	n := len(fs)
	changed := false
next:
	for _, e := range extra {
		for i, f := range fs {
			if f.Start < e.End && e.Start < f.End {
				if f.Level != LevelPossible || e.Level == LevelPossible {
					continue next
				}
				// A possible finding the sentence speaks for: the
				// stronger reading takes its place.
				fs[i].Level = ""
				changed = true
			}
		}
		fs = append(fs, e)
	}
	if changed {
		fs = slices.DeleteFunc(fs, func(f Finding) bool { return f.Level == "" })
	}
	if len(fs) != n || changed {
		sort.Slice(fs, func(i, j int) bool { return fs[i].Start < fs[j].Start })
	}
	return fs
}

// labelProse are the words that begin a sentence after a label ("Password:
// must be set in the UI", "Token: see 1Password"), not a value.
var labelProse = map[string]bool{
	"must": true, "should": true, "see": true, "same": true, "ask": true, "use": true, "check": true,
	"not": true, "never": true, "always": true, "only": true, "stored": true, "kept": true, "managed": true,
	"provided": true, "given": true, "sent": true, "rotated": true, "required": true, "optional": true,
	"none": true, "unknown": true, "unchanged": true, "the": true, "your": true, "our": true, "their": true,
	"will": true, "can": true, "is": true, "was": true, "from": true, "via": true, "in": true,
	"printed": true, "written": true, "taped": true, "located": true, "attached": true, "hidden": true,
	// A command that fetches or makes it: "password: vault kv get …",
	// "secret: generate with openssl", "credentials: edit with …".
	"vault": true, "generate": true, "generated": true, "edit": true, "op": true, "bw": true, "sops": true,
	"kubectl": true, "gcloud": true, "doppler": true, "fetch": true, "read": true, "get": true, "run": true,
}
