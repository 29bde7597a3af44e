package guard

import (
	"strings"
	"testing"
)

func newTestGuard(t testing.TB, p Policy) *Guard {
	t.Helper()
	g, err := New(p)
	if err != nil {
		t.Fatalf("New(%+v) = %v", p, err)
	}
	return g
}

// Test values below are made up for these tests; none is a live credential.
// The three below were drawn at random in each provider's alphabet.
const (
	// Okta API token: "00" and 40 characters of [A-Za-z0-9_-].
	oktaToken = "00GOQ35dKp26URmJsmtvIG3TpLhZ9LvzVxJl8GBzES"
	// Azure DevOps PAT since 2024: 76 letters and digits, "AZDO", 4 more.
	azdoToken = "2E11qIeof67j0zYIZrfH1rPCD8a5qz2eP5I13BIwNmC7A2Otx09cDUz1BnThgn6vkYIIa8uqt1hNAZDO9sFw"
	// Azure DevOps PAT before 2024: 52 characters of lower-case base32.
	adoOldToken = "zfn7ks2bcihrn2nq73hvmehlpqtc3dovj26omonoi7esbm3zbrsc"
)

func TestSecretRedaction(t *testing.T) {
	g := newTestGuard(t, Policy{})
	tests := []struct {
		name, in, want string
		level          string // strongest secret level, "" for none
	}{
		{"openai", "use key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0f for the bot", "use key [API_KEY_REDACTED] for the bot", LevelDefinite},
		{"anthropic", "ANTHROPIC_API_KEY=sk-ant-api03-" + strings.Repeat("aB3dE", 18) + "AA", "ANTHROPIC_API_KEY=[API_KEY_REDACTED]", LevelDefinite},
		{"aws access key", "aws key AKIAQ7RZ5XK2M4N8P3WT in prod", "aws key [AWS_KEY_REDACTED] in prod", LevelDefinite},
		{"github pat", "token ghp_Q7rZ5xK2m4N8p3WtY6uB9cD1eF4gH7jK0lM2 works", "token [API_KEY_REDACTED] works", LevelDefinite},
		{"github fine-grained", "github_pat_11ABCDE2Y0" + strings.Repeat("xY7", 20), "[API_KEY_REDACTED]", LevelDefinite},
		{"slack", "bot xoxb-123456789012-1234567890123-Q7rZ5xK2m4N8p3WtY6uB9cD1", "bot [API_KEY_REDACTED]", LevelDefinite},
		{"stripe", `stripe key "sk_live_Q7rZ5xK2m4N8p3WtY6uB9cD1"`, `stripe key "[API_KEY_REDACTED]"`, LevelDefinite},
		{"google", "maps AIzaSyQ7rZ5xK2m4N8p3WtY6uB9cD1eF4gH7jK0", "maps [API_KEY_REDACTED]", LevelDefinite},
		{"jwt", "session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.Q7rZ5xK2m4N8p3WtY6uB9cD1 ok", "session [JWT_REDACTED] ok", LevelDefinite},
		{"pem", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA\n-----END RSA PRIVATE KEY-----\ndone", "key:\n[PRIVATE_KEY_REDACTED]\ndone", LevelDefinite},
		{"pem cut off", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "[PRIVATE_KEY_REDACTED]", LevelDefinite},
		{"bearer", "curl -H 'Authorization: Bearer q7RZ5xK2m4N8p3Wt' url", "curl -H 'Authorization: Bearer [TOKEN_REDACTED]' url", LevelProbable},
		{"password assignment", "password=hunter2x", "password=[SECRET_REDACTED]", LevelProbable},
		{"quoted secret", `client_secret: "p4ss w0rd!"`, `client_secret: "[SECRET_REDACTED]"`, LevelProbable},
		{"api_key assignment", "api_key = Q7rZ5xK2m4N8p3WtY6uB", "api_key = [API_KEY_REDACTED]", LevelProbable},
		{"token assignment", "token=Q7rZ5xK2m4N8", "token=[API_KEY_REDACTED]", LevelProbable},
		{"escaped quotes", `$password = \"goodspec\";`, `$password = \"[SECRET_REDACTED]\";`, LevelProbable},
		{"jwt secret", "jwtsecret: \"7`D'}/vYR)T;W\\5]EBrf\"", "jwtsecret: \"[SECRET_REDACTED]\"", LevelProbable},
		{"postgres url", "db at postgres://app:S3cr3t!@db.internal:5432/main", "db at postgres://app:[SECRET_REDACTED]@db.internal:5432/main", LevelProbable},
		{"password prose", `the password is "centipede"`, `the password is "[SECRET_REDACTED]"`, LevelProbable},
		{"bcrypt", "hash $2a$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW", "hash [SECRET_REDACTED]", LevelProbable},
		{"git hash is possible", "fixed in 3b335d612137949d2f21fcc6c8c8164db7603227", "fixed in 3b335d612137949d2f21fcc6c8c8164db7603227", LevelPossible},
		// Look-alikes that must pass.
		{"env reference", "password = os.getenv('DB_PASSWORD')", "password = os.getenv('DB_PASSWORD')", ""},
		{"shell variable", `export PGPASSWORD="$db_password"`, `export PGPASSWORD="$db_password"`, ""},
		{"template", "password: {{ .Values.password }}", "password: {{ .Values.password }}", ""},
		{"masked", "password=********", "password=********", ""},
		{"sample value", "api_key=abcdefg1234567890xyz", "api_key=abcdefg1234567890xyz", ""},
		{"prose about tokens", "The token budget is 4096 per request.", "The token budget is 4096 per request.", ""},
		{"sk word", "use sk-learn for the baseline", "use sk-learn for the baseline", ""},
		{"public url", "see https://example.com/docs", "see https://example.com/docs", ""},
		{"uuid", "request id 3f2b6c1e-8d4a-4b7e-9c2d-1a5e6f7b8c9d", "request id 3f2b6c1e-8d4a-4b7e-9c2d-1a5e6f7b8c9d", ""},
		{"method chain", "s.addComponentsFromRegistry()", "s.addComponentsFromRegistry()", ""},
		{"basic auth", "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "Authorization: Basic [SECRET_REDACTED]", LevelProbable},
		{"basic in prose", "a basic understanding of evolution", "a basic understanding of evolution", ""},
		{"token in prose", "the token budget2024 is spent", "the token budget2024 is spent", ""},
		{"cli flag in prose", "pass the --token flag to the CLI", "pass the --token flag to the CLI", ""},
		{"setter pair", "sonar.login', '826de5590c75919a8317fdface58206eebe7ebbc'", "sonar.login', '[API_KEY_REDACTED]'", LevelProbable},
		{"build config field", `buildConfigField 'String', 'API_KEY', '"9f1bc382db9cfee29c68634761dd6e19"'`, `buildConfigField 'String', 'API_KEY', '"[API_KEY_REDACTED]"'`, LevelProbable},
		{"setter pair in prose", `map.put("token", "budget")`, `map.put("token", "budget")`, ""},
		{"long vault token", "-vaultToken s.CAESIQ7rZ5xK2m4N8p3WtY6uB9cD1eF4gH7jK0lM2Q7rZ5xK2m4N8p3WtY6uB9cD1eF4gH7jK0lM2Q7rZ5xK2m4N8p3WtY6uB9", "-vaultToken [API_KEY_REDACTED]", LevelProbable},
		{"counting sample is possible", "NEW_RELIC_LICENSE_KEY=a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8NRAL", "NEW_RELIC_LICENSE_KEY=a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8NRAL", LevelPossible},
		{"identifier under key", `<add key="ConnectionString_B2B" value="main"/>`, `<add key="ConnectionString_B2B" value="main"/>`, ""},
		{"url with port and at", "see http://example.com:8080/path@v2 for docs", "see http://example.com:8080/path@v2 for docs", ""},
		{"cli password", "mysql --password=S3cretPw -u root", "mysql --password=[SECRET_REDACTED] -u root", LevelProbable},
		{"psexec", `psexec \\host -u admin -p Adm1nPass cmd`, `psexec \\host -u admin -p [SECRET_REDACTED] cmd`, LevelProbable},
		{"netrc", "machine api.example.com login bob password s3cr3tpw", "machine api.example.com login bob password [SECRET_REDACTED]", LevelProbable},
		{"okta token near its name", "variable \"okta_token\" {\n  default = \"00Q7rZ5xK2m4N8p3WtY6uB9cD1eF4gH7jK0lM2nP4q\"\n}", "variable \"okta_token\" {\n  default = \"[API_KEY_REDACTED]\"\n}", LevelProbable},
		{"okta sample is possible", "okta: 00Q7rZ5xK2-ABCDEFGHIJKL-p3WtY6uB9cD1eF4gH7j", "okta: 00Q7rZ5xK2-ABCDEFGHIJKL-p3WtY6uB9cD1eF4gH7j", LevelPossible},
		{"okta token in an SSWS header", "Authorization: SSWS " + oktaToken, "Authorization: SSWS [TOKEN_REDACTED]", LevelProbable},
		{"okta org url then token", "orgUrl: https://dev-4181.okta.com\nadmin api = " + oktaToken, "orgUrl: https://dev-4181.okta.com\nadmin api = [API_KEY_REDACTED]", LevelProbable},
		{"okta-shaped token without okta", "export API=" + oktaToken, "export API=" + oktaToken, LevelPossible},
		{"okta too far away", "okta " + strings.Repeat("and then some words ", 5) + oktaToken, "okta " + strings.Repeat("and then some words ", 5) + oktaToken, LevelPossible},
		{"okta token one character long", "okta: " + oktaToken + "x", "okta: " + oktaToken + "x", LevelPossible},
		{"okta filler", "okta_api_token: 00" + strings.Repeat("0", 40), "okta_api_token: 00" + strings.Repeat("0", 40), ""},
		{"azdo pat", "PAT for the nightly pipeline: " + azdoToken, "PAT for the nightly pipeline: [API_KEY_REDACTED]", LevelDefinite},
		{"azdo pat in a url", "https://" + azdoToken + "@dev.azure.com/contoso/_git/web", "https://[API_KEY_REDACTED]@dev.azure.com/contoso/_git/web", LevelDefinite},
		{"azdo signature misplaced", "x " + azdoToken[1:] + "Q", "x " + azdoToken[1:] + "Q", LevelPossible},
		{"azdo one character long", "x Q" + azdoToken, "x Q" + azdoToken, LevelPossible},
		{"azdo filler", "pat: " + strings.Repeat("a", 76) + "AZDOaaaa", "pat: " + strings.Repeat("a", 76) + "AZDOaaaa", ""},
		{"old ado pat in a clone url", "git clone https://" + adoOldToken + "@dev.azure.com/contoso/web/_git/web", "git clone https://[API_KEY_REDACTED]@dev.azure.com/contoso/web/_git/web", LevelProbable},
		{"old ado pat piped to az devops", "echo " + adoOldToken + " | az devops login --org https://dev.azure.com/contoso", "echo [API_KEY_REDACTED] | az devops login --org https://dev.azure.com/contoso", LevelProbable},
		{"old ado pat after ADO", "ADO (expires in June):\n" + adoOldToken, "ADO (expires in June):\n[API_KEY_REDACTED]", LevelProbable},
		{"old ado pat after vsts host", "feed https://contoso.pkgs.visualstudio.com/_packaging, key " + adoOldToken, "feed https://contoso.pkgs.visualstudio.com/_packaging, key [API_KEY_REDACTED]", LevelProbable},
		{"base32 without ado", "onion address " + adoOldToken, "onion address " + adoOldToken, LevelPossible},
		{"base32 next to shadow", "shadow copy " + adoOldToken, "shadow copy " + adoOldToken, LevelPossible},
		{"letters only next to devops", "devops " + strings.Repeat("pipelinestage", 4), "devops " + strings.Repeat("pipelinestage", 4), ""},
		{"base32 too long for ado", "devops " + adoOldToken + "abcd", "devops " + adoOldToken + "abcd", LevelPossible},
		{"ado sample", "Azure DevOps PAT: abcdefghij" + adoOldToken[10:], "Azure DevOps PAT: abcdefghij" + adoOldToken[10:], LevelPossible},
		{"securestring literal", `$pw = ConvertTo-SecureString "Tulip-Rain-42" -AsPlainText -Force`, `$pw = ConvertTo-SecureString "[SECRET_REDACTED]" -AsPlainText -Force`, LevelProbable},
		{"securestring named string", `ConvertTo-SecureString -AsPlainText -Force -String 'lanternfish'`, `ConvertTo-SecureString -AsPlainText -Force -String '[SECRET_REDACTED]'`, LevelProbable},
		{"securestring pipe", `'lanternfish' | ConvertTo-SecureString -AsPlainText -Force`, `'[SECRET_REDACTED]' | ConvertTo-SecureString -AsPlainText -Force`, LevelProbable},
		{"securestring variable", `ConvertTo-SecureString "$password" -AsPlainText -Force`, `ConvertTo-SecureString "$password" -AsPlainText -Force`, ""},
		{"securestring bare variable", `$password | ConvertTo-SecureString -AsPlainText -Force`, `$password | ConvertTo-SecureString -AsPlainText -Force`, ""},
		{"securestring in prose", "ConvertTo-SecureString turns plain text into a SecureString.", "ConvertTo-SecureString turns plain text into a SecureString.", ""},
		{"powershell password variable", `Connect-VIServer $vc -User $user -Password $password`, `Connect-VIServer $vc -User $user -Password $password`, ""},
		{"psexec password variable", `psexec \\host -u admin -p %ADMIN_PW% cmd`, `psexec \\host -u admin -p %ADMIN_PW% cmd`, ""},
		{"postmark uuid", `postmark: "3f2b6c1e-8d4a-4b7e-9c2d-1a5e6f7b8c9d"`, `postmark: "[API_KEY_REDACTED]"`, LevelProbable},
		{"codeclimate reporter", "CC_TEST_REPORTER_ID: " + strings.Repeat("9f1bc382", 8), "CC_TEST_REPORTER_ID: [API_KEY_REDACTED]", LevelProbable},
		{"twitter key", `TWITTER_ID: "Q7rZ5xK2m4N8p3WtY6uB"`, `TWITTER_ID: "[API_KEY_REDACTED]"`, LevelProbable},
		{"twitter handle", `twitter_handle: "EngramMemoryVault"`, `twitter_handle: "EngramMemoryVault"`, ""},
		{"jenkins crumb", "-H 'Jenkins-Crumb:9f1bc382db9cfee29c68634761dd6e19'", "-H 'Jenkins-Crumb:[API_KEY_REDACTED]'", LevelProbable},
		{"jenkins setup password", "Please use the following password to proceed to installation:\n\n9f1bc382db9cfee29c68634761dd6e19\n", "Please use the following password to proceed to installation:\n\n[SECRET_REDACTED]\n", LevelProbable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := g.Check(Input{Text: tc.in})
			if res.Redacted != tc.want {
				t.Errorf("Check(%q).Redacted = %q, want %q", tc.in, res.Redacted, tc.want)
			}
			best := ""
			for _, f := range res.Findings {
				if f.Kind == KindSecret && (best == "" || levelRank(f.Level) > levelRank(best)) {
					best = f.Level
				}
			}
			if best != tc.level {
				t.Errorf("Check(%q) strongest level = %q, want %q (findings %+v)", tc.in, best, tc.level, res.Findings)
			}
			wantSecret := tc.level == LevelDefinite || tc.level == LevelProbable
			if res.HasSecret != wantSecret {
				t.Errorf("Check(%q).HasSecret = %v, want %v", tc.in, res.HasSecret, wantSecret)
			}
		})
	}
}

func TestSecretSpans(t *testing.T) {
	g := newTestGuard(t, Policy{})
	tests := []struct {
		in         string
		typ, level string
		start, end int
	}{
		{"k=AKIAQ7RZ5XK2M4N8P3WT", SecretAWSKey, LevelDefinite, 2, 22},
		{"Authorization: Bearer q7RZ5xK2m4N8p3Wt", SecretBearer, LevelProbable, 22, 38},
		{"password: 'hunter2x'", SecretPassword, LevelProbable, 11, 19},
		{"mysql://root:t0ps3cret@db/app", SecretConnString, LevelProbable, 13, 22},
		{"x eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.Q7rZ5xK2m4N8p3WtY6uB9cD1", SecretJWT, LevelDefinite, 2, 67},
		{"-----BEGIN EC PRIVATE KEY-----\nAA\n-----END EC PRIVATE KEY----- tail", SecretPrivateKey, LevelDefinite, 0, 62},
		{"value 3b335d612137949d2f21fcc6c8c8164db7603227", SecretHighEntrop, LevelPossible, 6, 46},
		// In a URL query the value ends at the next parameter.
		{"/api?token=Q7rZ5xK2m4N8p3Wt&channel=C4D8&count=1", SecretAPIKey, LevelProbable, 11, 27},
	}
	for _, tc := range tests {
		var got []Finding
		for _, f := range g.Check(Input{Text: tc.in}).Findings {
			if f.Kind == KindSecret {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0].Type != tc.typ || got[0].Level != tc.level || got[0].Start != tc.start || got[0].End != tc.end {
			t.Errorf("Check(%q) secret findings = %+v, want one %s %s at [%d,%d)", tc.in, got, tc.typ, tc.level, tc.start, tc.end)
		}
	}
}

func TestPossibleNeedsConfirm(t *testing.T) {
	g := newTestGuard(t, Policy{})
	in := "blob Zm9vYmFyYmF6cXV4UTdyWjV4SzJtNE44cDNXdFk2dUI5Y0Qx"
	for _, confirmed := range []bool{false, true} {
		res := g.Check(Input{Text: in, Confirmed: confirmed})
		if res.NeedsConfirm == confirmed {
			t.Errorf("Check(%q, confirmed=%v).NeedsConfirm = %v, want %v", in, confirmed, res.NeedsConfirm, !confirmed)
		}
		if res.Redacted != in {
			t.Errorf("Check(%q).Redacted = %q, want unchanged", in, res.Redacted)
		}
	}
}

func TestFailOnSecret(t *testing.T) {
	in := "password=hunter2x"
	for _, fail := range []bool{false, true} {
		g := newTestGuard(t, Policy{FailOnSecret: fail})
		if got := g.Check(Input{Text: in}).Rejected; got != fail {
			t.Errorf("FailOnSecret=%v: Check(%q).Rejected = %v, want %v", fail, in, got, fail)
		}
	}
}

func TestLongTextChunks(t *testing.T) {
	g := newTestGuard(t, Policy{})
	key := "ghp_Q7rZ5xK2m4N8p3WtY6uB9cD1eF4gH7jK0lM2"
	filler := strings.Repeat("the quick brown fox jumps over the lazy dog\n", 2000) // ~88 KB
	// Place a key across every chunk boundary region.
	in := filler + key + "\n" + filler + key
	res := g.Check(Input{Text: in})
	if strings.Contains(res.Redacted, key) {
		t.Fatalf("Check(long text) left the key in place")
	}
	if n := strings.Count(res.Redacted, "[API_KEY_REDACTED]"); n != 2 {
		t.Errorf("Check(long text) redacted %d keys, want 2", n)
	}
}

// TestPossibleNotSample: long strings that are documentation samples or
// named content hashes are not possible secrets; a random token is.
func TestPossibleNotSample(t *testing.T) {
	g := newTestGuard(t, Policy{})
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"see a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0", false},
		{"X9y8Z7a6B5c4D3e2F1g0H9i8J7k6L5m4N3o2", false},
		{"left-pad-1.3.0.tgz#9c1f4e7b2a05d3e8f61b7c4a9d02e5f83b6c1a7e", false},
		{"image: engram@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", false},
		{"blob Zm9vYmFyYmF6cXV4UTdyWjV4SzJtNE44cDNXdFk2dUI5Y0Qx", true},
		{"see 9c1f4e7b2a05d3e8f61b7c4a9d02e5f83b6c1a7e", true},
	} {
		if got := g.Check(Input{Text: tc.in}).NeedsConfirm; got != tc.want {
			t.Errorf("Check(%q).NeedsConfirm = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestInterleavedSample(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"a1b2c3d4e5f6", true},
		{"px-dep-d4c3b2a1-f6e5", true},
		{"A1B2C3", true},
		{"x9y0z1", true},   // digits wrap from 9 to 0
		{"X9y8Z7a6", true}, // letters up, digits down
		{"a1b9c8", false},
		{"a1b2", false}, // two pairs are too few
		{"38d5b9a8b6c0a3d3ad3f2c422c77db80", false},
		{"a1b3c5", false},
		{"Q7rZ5xK2m4N8p3WtY6uB9cD1", false},
	}
	for _, tc := range tests {
		if got := interleavedSample(tc.in); got != tc.want {
			t.Errorf("interleavedSample(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestIdentifierLike(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"ConnectionString_B2B", true},
		{"user-service.main", true},
		{"readTimeoutSeconds", true},
		{"Q7rZ5xK2m4N8p3WtY6uB", false},
		{"38d5b9a8b6c0a3d3ad3f2c422c77db80", false},
		{"single", false},
		{"ab_cd", false},
	}
	for _, tc := range tests {
		if got := identifierLike(tc.in); got != tc.want {
			t.Errorf("identifierLike(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
