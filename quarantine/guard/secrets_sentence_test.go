package guard

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Values for the sentence tests, drawn at random for these tests (none is
// a live credential): letters and digits, hex, base64, URL-safe base64,
// and passwords with symbols.
const (
	tAlnum20 = "DGCgMjb2RU5Ag185wbda"
	tAlnum28 = "wujs6Bqzgx405kPKT8jHdRupUrql"
	tAlnum36 = "aVFd8oJ2uusWCzc1vP2w9VEQCX7Bvlak5oRS"
	tAlnum40 = "LXvmCY4Vfo1t8IkSjSw8bKiseKtP7OIzv8NMTPWu"
	tHex32   = "7d5eaa5eae3ebd08283ca4ef213d3250"
	tHex40   = "a1dc0ad12cde299c6df2dff36480160837469c7d"
	tHex64   = "cb67da97c27cf1bc7a6a8800f528739017d8fa5f4f599acdc73905166a2b80f7"
	tB64     = "5dU+/2qCPMxK5YUJBjJ04wc4ozWoHRXa+oehrQXwWvI="
	tURL     = "aqp7rtlLtl-EOiuOLYSxGQYUYbQGX31-fwtZkX3z"
	tPw1     = "VL^n8Ma#Azz*10"
	tPw2     = "+X^iGZVpAhCcTd"
	tPw3     = "H_dSJKMZWO_7GO"
	tPw4     = "@5!NstHP85Aj_K"
	tPw5     = "6RF@_Yy+2Bq-aG"
	tPhrase  = "Tangerine-Otter-Lamp-93"
)

// TestSecretsNamedBySentence checks that a value its sentence names as a
// credential is redacted, and only the value: the sentence around it stays
// as written. The sentences are written for this test in the eleven
// languages Engram screens.
func TestSecretsNamedBySentence(t *testing.T) {
	g := newTestGuard(t, Policy{})
	tests := []struct {
		name, text, value string
	}{
		// English, in the ways agents write it down.
		{"en deploy token", "FYI the staging deploy token is " + tURL + " and it expires Friday.", tURL},
		{"en shared secret", "Heads up: the shared secret we agreed on with Acme is " + tB64 + ".", tB64},
		{"en password changed to", "The root password of the NAS was changed to " + tPw1 + " last week.", tPw1},
		{"en env var set to", "I set BILLING_API_PASSWORD to " + tPw2 + " on the CI runner.", tPw2},
		{"en label colon", "Our Postgres superuser password: " + tPw3, tPw3},
		{"en secret hex", "Remember that the SMTP relay secret is " + tHex32, tHex32},
		{"en recovery code", "The recovery code for the admin account is 4F7K-9QXZ-2M8P.", "4F7K-9QXZ-2M8P"},
		{"en passphrase", "Bob's backup passphrase is " + tPhrase + ", he wrote it on paper too.", tPhrase},
		{"en client secret", "The client secret of the reporting OAuth app: " + tURL, tURL},
		{"en value as the key", "Use " + tAlnum40 + " as the API key for the geocoder.", tAlnum40},
		{"en login pair", "login for the staging CMS: ops-admin / " + tPw4, tPw4},
		{"en user and password", "Creds for the test tenant: user qa-bot, password " + tPw5, tPw5},
		{"en bearer", "The bearer token for the internal API: " + tAlnum36, tAlnum36},
		{"en session cookie", "The session cookie value is " + tAlnum40 + ", valid for a day.", tAlnum40},
		{"en key apposition", "Ping the weather service with key " + tAlnum28 + " from now on.", tAlnum28},
		{"en token in parentheses", "Dana shared the metrics token (" + tAlnum36 + ") in the channel.", tAlnum36},
		{"en signing key hex", "The HMAC signing key for outgoing events is " + tHex64 + ".", tHex64},
		{"en quoted password", `The kiosk password is "marmalade" for now.`, "marmalade"},
		{"en was reset to", "The Grafana admin password was reset to " + tPw3 + " yesterday.", tPw3},
		{"en dash", "Wi-Fi password for the office guests - " + tPw1, tPw1},
		// Other languages.
		{"es api key", "La clave de API del proveedor de SMS es " + tAlnum36 + ".", tAlnum36},
		{"es password", "Mi contraseña del correo corporativo es " + tPw1, tPw1},
		{"fr password", "Le mot de passe du compte de service est " + tPw2 + ".", tPw2},
		{"fr token colon", "Voici le jeton d'API pour la préprod : " + tAlnum28, tAlnum28},
		{"de password lautet", "Das Kennwort für den Router lautet " + tPw5 + ".", tPw5},
		{"de compound token", "Der Zugangstoken ist " + tAlnum40, tAlnum40},
		{"de secret key", "Unser geheimer Schlüssel: " + tB64, tB64},
		{"pt api key", "A chave da API de pagamentos é " + tAlnum36 + ".", tAlnum36},
		{"pt password", "Minha senha do roteador é " + tPw3, tPw3},
		{"it secret key", "La chiave segreta di Stripe è " + tAlnum40 + ", non condividerla.", tAlnum40},
		{"it password", "La password del database di test è " + tPw4 + ".", tPw4},
		{"zh password", "生产环境的数据库密码是 " + tPw1 + "，请勿外传。", tPw1},
		{"zh token colon", "这是访问令牌：" + tAlnum36, tAlnum36},
		{"zh key wei", "API 密钥为 " + tHex40 + "。", tHex40},
		{"ja api key", "ステージングのAPIキーは " + tAlnum28 + " です。", tAlnum28},
		{"ja admin password", "管理者パスワード：" + tPw2, tPw2},
		{"ru password dash", "Пароль от базы данных — " + tPw3, tPw3},
		{"ru api key", "API-ключ для биллинга: " + tAlnum40, tAlnum40},
		{"ko password", "운영 서버 비밀번호는 " + tPw4 + " 입니다.", tPw4},
		{"ko token", "배포 토큰: " + tAlnum36, tAlnum36},
		{"hi password", "डेटाबेस का पासवर्ड " + tPw5 + " है।", tPw5},
		{"hi token", "API टोकन: " + tAlnum40, tAlnum40},
		// Written in groups, and lists.
		{"groups of five", "The licence key, in groups: X7K2P QM9TZ A4WRL 8HJ3N", "X7K2P QM9TZ A4WRL 8HJ3N"},
		{"halves joined by plus", "Token in two parts: " + tAlnum20 + " + " + tAlnum20[:12], tAlnum20 + " + " + tAlnum20[:12]},
		{"one chunk per line", "The vault key, one chunk per line:\nq7Rz5xK2\nm4N8p3Wt\nY6uB9cD1", "q7Rz5xK2\nm4N8p3Wt\nY6uB9cD1"},
		// Webhook URLs and URL passwords.
		{"webhook url", "Alerts go to https://hooks.chat.example/services/T1ABC/B2DEF/" + tAlnum28 + " now.", "T1ABC/B2DEF/" + tAlnum28},
		{"percent-encoded url password", "Broker: amqp://svc:%40xK9%21mQ2vL@mq.internal:5672/", "%40xK9%21mQ2vL"},
		{"empty user url password", "Cache at redis://:" + tPw3 + "@cache.internal:6379/0", tPw3},
		{"docker login", "CI runs `docker login reg.internal -u ci -p " + tAlnum36 + "` first.", tAlnum36},
		// Recovery codes in the other languages.
		{"es recovery code", "El código de recuperación de la cuenta de soporte es 7h2kq-9xm3p.", "7h2kq-9xm3p"},
		{"de recovery code", "Wiederherstellungscode für das Admin-Konto: 7h2kq-9xm3p", "7h2kq-9xm3p"},
		{"pt recovery code", "O código de recuperação do e-mail é 7h2kq-9xm3p.", "7h2kq-9xm3p"},
		{"it recovery code", "Il codice di recupero dell'account è 7h2kq-9xm3p.", "7h2kq-9xm3p"},
		{"zh recovery code", "账号的恢复码：7h2kq-9xm3p", "7h2kq-9xm3p"},
		{"ja recovery code", "リカバリーコードは 7h2kq-9xm3p です。", "7h2kq-9xm3p"},
		{"ru recovery code", "Код восстановления: 7h2kq-9xm3p", "7h2kq-9xm3p"},
		{"ko recovery code", "복구 코드: 7h2kq-9xm3p", "7h2kq-9xm3p"},
		{"hi recovery code", "रिकवरी कोड 7h2kq-9xm3p है।", "7h2kq-9xm3p"},
		// A credential named, then its value as "the new value".
		{"new value after semicolon", "We regenerated the Mailgun signing key; new value " + tAlnum40 + ".", tAlnum40},
		{"current value", "The session secret was reset this morning, the current value is " + tB64 + ".", tB64},
		// App passwords in letter groups; passwords beginning with "$".
		{"app password hyphens", "Apple app-specific password for the CI notarisation: qzvk-mwtr-hplb-sxnd", "qzvk-mwtr-hplb-sxnd"},
		{"app password spaces", "The app password for Thunderbird is: wexo tkbn prau ghmz", "wexo tkbn prau ghmz"},
		{"en is colon", "The password is: " + tPw2, tPw2},
		{"de lautet colon", "Das Passwort für die Buchhaltung lautet: " + tPw1, tPw1},
		{"creds slash pair", "Creds for the old Jenkins: admin/" + tPw4, tPw4},
		{"weak password", "The guest wifi password is hunter42 until the router is replaced.", "hunter42"},
		{"digits password", "Her laptop password is 482913, she asked me to note it.", "482913"},
		{"table column", "Accounts for the demo:\n\n| System | Login | Password |\n|--------|-------|----------|\n| Jira | demo | " + tPw5 + " |\n", tPw5},
		{"pgpass line", "Added to ~/.pgpass: reports.internal:5432:analytics:reader:" + tPw3, tPw3},
		{"basic auth pair", "Basic auth for the preview site is reviewer:" + tPw1 + ", ask before sharing.", tPw1},
		{"diceware passphrase", "The disk encryption passphrase is walnut-orbit-saffron-glacier.", "walnut-orbit-saffron-glacier"},
		{"psk will be", "The WireGuard PSK will be " + tB64 + " from Monday.", tB64},
		{"dollar password", "The router's admin password is $Qz8!rT2mK.", "$Qz8!rT2mK"},
		{"dollar password two signs", "Contraseña del panel: $kV9w$Lp2xQ", "$kV9w$Lp2xQ"},
		// Codes and keys that open an account or a disk, in digits.
		{"recovery key digit groups", "The FileVault recovery key of the old Mac mini is 381920-552817-009364-771205.", "381920-552817-009364-771205"},
		{"puk", "The SIM's PUK is 77120458 if it locks again.", "77120458"},
		{"alarm code", "The alarm code at the lab entrance is 90412.", "90412"},
		{"community string", "The read-only community string of the printers is " + tAlnum20 + ".", tAlnum20},
		// The noun's object is another credential noun.
		{"passphrase for the key", "The passphrase for the backup signing key: walnut-orbit-saffron-glacier", "walnut-orbit-saffron-glacier"},
		{"it passphrase della chiave", "La passphrase della chiave di firma è \"" + tPw2 + "\".", tPw2},
		// Words that open a wallet.
		{"seed phrase", "My wallet's seed phrase: copper lantern meadow quartz violet harbor", "copper lantern meadow quartz violet harbor"},
		{"mnemonic", "The test wallet's mnemonic is saffron glacier bramble otter lilac pebble.", "saffron glacier bramble otter lilac pebble"},
		// Russian declines its nouns.
		{"ru token declined", "Отправь запрос с токеном " + tAlnum36 + ".", tAlnum36},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := g.Check(Input{Text: tc.text})
			i := strings.Index(tc.text, tc.value)
			if i < 0 {
				t.Fatalf("test value %q not in %q", tc.value, tc.text)
			}
			before, after := tc.text[:i], tc.text[i+len(tc.value):]
			mid, ok := strings.CutPrefix(res.Redacted, before)
			if ok {
				mid, ok = strings.CutSuffix(mid, after)
			}
			if !ok || !strings.HasPrefix(mid, "[") || !strings.HasSuffix(mid, "_REDACTED]") || strings.Count(mid, "[") != 1 {
				t.Errorf("Check(%q).Redacted = %q, want %q with only %q replaced by a marker (findings %s)", tc.text, res.Redacted, tc.text, tc.value, findingSummary(tc.text, res.Findings))
			}
			if !res.HasSecret {
				t.Errorf("Check(%q).HasSecret = false, want true", tc.text)
			}
		})
	}
}

// TestSecretsNotNamedSecret checks that values the sentence names as
// something other than a secret, placeholders, and ordinary prose about
// credentials get no secret finding at all: nothing redacted, nothing held
// for confirmation.
func TestSecretsNotNamedSecret(t *testing.T) {
	g := newTestGuard(t, Policy{})
	tests := []struct{ name, text string }{
		// Commits and revisions.
		{"commit before", "We reverted commit " + tHex40 + " because it broke the build."},
		{"commit after", tHex40 + " is the commit that introduced the regression."},
		{"revision", "The upstream revision is " + tHex40 + "."},
		{"sha named", "Deployed git SHA: " + tHex40},
		{"submodule pinned", "The vendored submodule is pinned to " + tHex40 + " until the fix lands."},
		{"fr commit", "Le commit fautif est " + tHex40 + "."},
		{"ja commit", "このコミット " + tHex40 + " で直りました。"},
		{"ru commit hash", "Хеш коммита: " + tHex40},
		{"hi commit", "कमिट " + tHex40 + " में बग ठीक हुआ।"},
		// Digests and checksums.
		{"image digest", "Pin the base image to sha256:" + tHex64 + " before the audit."},
		{"checksum", "The installer's checksum is " + tHex64 + "; compare it before running."},
		{"md5 of file", "The md5 of the nightly export is " + tHex32 + "."},
		{"sri", `<script integrity="sha384-` + tB64[:43] + tB64[:21] + `">`},
		{"go.sum", "go.sum line: h1:" + tB64},
		{"de checksum", "Die Prüfsumme der Datei ist " + tHex64 + "."},
		{"zh digest", "镜像摘要是 sha256:" + tHex64},
		// Trace and request ids, other public identifiers.
		{"trace id", "Trace ID " + tHex32 + " shows the retry storm."},
		{"request id", "Request id: " + tHex32},
		{"es trace id", "El identificador de la traza es " + tHex32 + "."},
		{"pt request id", "O identificador da requisição é " + tHex32 + "."},
		{"ko request id", "요청 ID는 " + tHex32 + " 입니다."},
		{"ru trace id", "Идентификатор трассировки: " + tHex32},
		{"client id", "The OAuth client ID for the mobile app is " + tAlnum36 + "."},
		{"etag", `The ETag of the cached page is "` + tHex32 + `".`},
		{"content-hashed file", "The bundle is served as /assets/app." + tHex32 + ".js from the CDN."},
		{"object path", "The failed upload is stored under exports/2025/03/" + tHex40 + ".parquet"},
		// Public keys, fingerprints, publishable keys.
		{"ssh public key", "Her public SSH key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH" + tAlnum40 + " ana@laptop"},
		{"ssh fingerprint", "The host key fingerprint is SHA256:" + strings.TrimRight(tB64, "=")},
		{"pgp fingerprint of key", "Fingerprint of the release signing key: 3A9F 1C2B 77D0 E4B1 9C0A  5F6E 2D81 B3C4 A7E0 19F2"},
		{"publishable key", "The Stripe publishable key is pk_test_" + tAlnum28 + "; it ships in the page."},
		{"public key named", "The public key for verifying webhooks is " + tB64 + "."},
		{"it public key", "L'impronta della chiave pubblica è " + tB64},
		{"cache key", "Cache key: build-" + tHex40},
		{"public pem block", "Verification key:\n-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + tAlnum40 + "\n" + tAlnum40 + "==\n-----END PUBLIC KEY-----"},
		// Placeholders and samples.
		{"angle placeholder", "In the docs the token is shown as <YOUR_TOKEN>."},
		{"your key", "The README says API_KEY=YOUR_KEY_HERE."},
		{"filler after prefix", "The sample .env has STRIPE_SECRET_KEY=sk_live_xxx in it."},
		{"changeme compound", "Set API_KEY=changeme-in-production in .env.sample."},
		{"aws documented example", "The example key from the AWS guide, AKIAIOSFODNN7EXAMPLE, is allow-listed."},
		{"masked", "The console shows the token as ghp_...4f2a only."},
		{"variable reference", "The password comes from ${DB_PASSWORD} at start-up."},
		{"readme credentials", "The README template uses postgres://user:password@localhost/app as the URL."},
		{"fr placeholder", "Dans le modèle, la clé est `VOTRE_CLE_API`."},
		// Base64 of text.
		{"base64 of json", "The cursor is base64 of JSON: eyJwYWdlIjoyLCJzaXplIjo1MCwic29ydCI6ImRlc2MifQ=="},
		{"base64 of csv", "Header row in base64: bmFtZSxlbWFpbCxjb3VudHJ5LGNyZWF0ZWRfYXQ="},
		// Ordinary prose about credentials.
		{"rotate advice", "Rotate the token every 90 days and never paste it into chat."},
		{"password length", "The password must be at least 12 characters long."},
		{"token count", "The token count for this prompt was 48213."},
		{"password policy", "Password policy: at least 14 characters, one digit."},
		{"stored in", "The API key is stored in 1Password under 'Billing'."},
		{"secret sauce", "Our secret sauce is 3 days of load testing."},
		{"key takeaway", "The key takeaway is that v2.3.1 fixed it."},
		{"key id", "The deploy key ID is 84213377."},
		{"hashed with", "Passwords are hashed with argon2id (m=64MiB, t=3, p=4)."},
		{"fine-grained", "Personal access tokens are fine-grained and expire after 30 days."},
		{"de policy compound", "Die Passwortrichtlinie verlangt 12 Zeichen."},
		{"fr key to success", "La clé du succès est la patience."},
		{"zh cryptography", "密码学是一门学科。"},
		{"ja keyboard", "キーボードのショートカットは Ctrl+K です。"},
		{"docker ports", "Run it with docker run -u 1000 -p 127.0.0.1:8080:80 nginx."},
		{"mysql prompt", "Connect with mysql -u root -p orders and type it in."},
		// Values that say they are not real.
		{"fake in value", `The unit test logs in with password="fakepass42" against the stub.`},
		{"dummy in value", "Seed data: every demo user has the password dummy_pw_2024."},
		// Variables, in every case style.
		{"dollar upper", "The password is $DB_PASSWORD at runtime."},
		{"dollar camel", "The login helper sets password: $dbPass from the vault client."},
		{"dollar lower", "The deploy token is $deploy_token, exported by the CI job."},
		// Identifiers and data.
		{"sid", "Twilio messaging service SID: MG" + tHex32},
		{"account sid", "The account SID of the Twilio subaccount is AC" + tHex32 + "."},
		{"png base64 cut", "Inline icon for the mail header: iVBORw0KGgoAAAANSUhEUgAAAB" + tAlnum36[:23]},
		{"content-addressed", "The model weights are the content-addressed blob " + tHex64 + " in the store."},
		{"rotated no value", "The webhook secret was rotated; the new value is in Vault."},
		{"nonce", "The nonce in the replayed request was " + tHex32 + "."},
		{"hash named after is", "The password is argon2id hashed with a per-user salt."},
		{"path after creds", "Creds live under secrets/prod/db in the vault."},
		{"negated after value", "The lease id for the DB credentials is " + tAlnum28 + " (leases are not secret)."},
		{"relative clause", "The commit that rotated the API token is " + tHex40 + "."},
		{"relative clause fingerprint", "The fingerprint of the key that signs releases is " + tHex40 + "."},
		{"label prose", "Password: should come from the secret store, never from the repo."},
		{"table without values", "| Service | Password |\n|---|---|\n| Jira | (in 1Password) |\n| CI | ${CI_PASSWORD} |"},
		{"compound words after be", "The token will be read-only for now."},
		// A sentence about a phrase, not a phrase.
		{"passphrase kept", "The recovery phrase is kept in the office safe, written on paper."},
		{"passphrase words with stops", "The seed phrase was written down by the user and stored offline."},
		// Declined non-secret nouns; public tokens of a map provider.
		{"ru commit declined", "Регрессия появилась в коммите " + tHex40 + ", я его откатил."},
		{"mapbox public token", "The map uses the public token pk.eyJ1Ijoib3BzIiwiYSI6ImNqa3h5In0.dGhpc2lzcHVibGljdG9rZW4x; it is restricted to our domain."},
		{"date with time", "The last rotation was at 2026-03-14 09:30, the password is in 1Password."},
		// Four words are no app password.
		{"four words", "The password hint: blue door last left."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := g.Check(Input{Text: tc.text})
			for _, f := range res.Findings {
				if f.Kind == KindSecret {
					t.Errorf("Check(%q) secret finding %s %s %q (%s), want none", tc.text, f.Level, f.Type, tc.text[f.Start:f.End], f.Reason)
				}
			}
			if res.NeedsConfirm || res.HasSecret || res.Redacted != tc.text {
				t.Errorf("Check(%q) = NeedsConfirm %v, HasSecret %v, Redacted %q; want the text untouched", tc.text, res.NeedsConfirm, res.HasSecret, res.Redacted)
			}
		})
	}
}

// TestPossibleSecretsStay checks that a long random string the sentence
// does not name still asks for confirmation: the changes above only take
// away what the sentence explains.
func TestPossibleSecretsStay(t *testing.T) {
	g := newTestGuard(t, Policy{})
	for _, text := range []string{
		"Paste this into the form: " + tAlnum40,
		"value " + tHex40,
		"It printed " + tHex64 + " and exited.",
		"The blob was " + tB64 + " last time.",
	} {
		res := g.Check(Input{Text: text})
		if !res.NeedsConfirm || res.HasSecret {
			t.Errorf("Check(%q) = NeedsConfirm %v, HasSecret %v; want a possible secret (findings %s)", text, res.NeedsConfirm, res.HasSecret, findingSummary(text, res.Findings))
		}
	}
}

// sentenceRow is one line of testdata/secrets-sentences.jsonl: sentences
// written for these tests, apart from the evaluation corpora, in the
// ways agents write credentials down and in the ways texts name values
// that are not secrets. value is the credential of a secret row; expect
// "held" marks a secret the guard only holds for confirmation (the
// Hindi "API की", where की is both "key" and "of").
type sentenceRow struct {
	Label  string `json:"label"`
	Value  string `json:"value"`
	Expect string `json:"expect"`
	Text   string `json:"text"`
}

// TestSecretSentencesFile checks every row of secrets-sentences.jsonl:
// a secret's value is gone from the stored text, a non-secret row gets no
// secret finding at all.
func TestSecretSentencesFile(t *testing.T) {
	rows := readJSONL[sentenceRow](t, filepath.Join("testdata", "secrets-sentences.jsonl"))
	if len(rows) < 100 {
		t.Fatalf("secrets-sentences.jsonl has %d rows, want 100 or more", len(rows))
	}
	g := newTestGuard(t, Policy{})
	for _, r := range rows {
		res := g.Check(Input{Text: r.Text})
		switch {
		case r.Label == "secret" && r.Expect == "held":
			if !res.NeedsConfirm {
				t.Errorf("Check(%q).NeedsConfirm = false, want true", r.Text)
			}
		case r.Label == "secret":
			if !res.HasSecret || strings.Contains(res.Redacted, r.Value) {
				t.Errorf("Check(%q) = HasSecret %v, Redacted %q; want %q redacted (findings %s)", r.Text, res.HasSecret, res.Redacted, r.Value, findingSummary(r.Text, res.Findings))
			}
		default:
			if res.HasSecret || res.NeedsConfirm {
				t.Errorf("Check(%q) = HasSecret %v, NeedsConfirm %v; want no secret (findings %s)", r.Text, res.HasSecret, res.NeedsConfirm, findingSummary(r.Text, res.Findings))
			}
		}
	}
}

// FuzzSentenceSecrets checks the sentence reading on arbitrary text
// seeded with credential sentences: no panic, secret spans inside the
// text and, in valid UTF-8, on character boundaries, and no definite or
// probable secret left in the stored text.
func FuzzSentenceSecrets(f *testing.F) {
	for _, s := range []string{
		"The staging deploy token is " + tURL + ".", "Das Kennwort für den Router lautet " + tPw5 + ".",
		"API 密钥为 " + tHex40 + "。", "운영 서버 비밀번호는 " + tPw4 + " 입니다.", "login: ops / " + tPw1,
		"Token in two parts: " + tAlnum20 + " + " + tAlnum20[:12], "We reverted commit " + tHex40 + ".",
		"the new one is " + tAlnum36, "Use " + tAlnum40 + " as the API key", "password: ", "key (",
		"| User | Password |\n|---|---|\n| ops | " + tPw1 + " |", "|Password|\n|-|\n||", "~/.pgpass: h:5432:d:u:" + tPw2,
		"The app password is: wexo tkbn prau ghmz", "The PSK will be walnut-orbit-saffron-glacier.",
	} {
		f.Add(s)
	}
	g := newTestGuard(f, Policy{})
	f.Fuzz(func(t *testing.T, text string) {
		res := g.Check(Input{Text: text})
		for _, fd := range res.Findings {
			if fd.Kind != KindSecret {
				continue
			}
			if fd.Start < 0 || fd.End > len(text) || fd.Start >= fd.End {
				t.Fatalf("Check(%q) secret span [%d,%d) out of bounds", text, fd.Start, fd.End)
			}
			if utf8.ValidString(text) && (!utf8.RuneStart(text[fd.Start]) || fd.End < len(text) && !utf8.RuneStart(text[fd.End])) {
				t.Fatalf("Check(%q) secret span [%d,%d) splits a character", text, fd.Start, fd.End)
			}
			if fd.Level != LevelPossible && fd.End-fd.Start >= 8 {
				// The value may recur unnamed elsewhere: one fewer copy.
				if v := text[fd.Start:fd.End]; strings.Count(res.Redacted, v) >= strings.Count(text, v) && !strings.Contains(redactedMarkers, v) {
					t.Fatalf("Check(%q).Redacted = %q still holds %s secret %q", text, res.Redacted, fd.Level, v)
				}
			}
		}
	})
}

// TestSecretListsNamedBySentence checks that every value of a list its
// sentence names as credentials is redacted: a sheet of recovery codes,
// one per line or parted by commas, where the codes after the first are
// known by their shape.
func TestSecretListsNamedBySentence(t *testing.T) {
	g := newTestGuard(t, Policy{})
	tests := []struct {
		name   string
		text   string
		values []string
	}{
		{"bullets", "Backup codes for the family Google account:\n- ktwq-7h2m\n- pzra-x9fd\n- mule-bnoc\n- 3vq8-rr2k",
			[]string{"ktwq-7h2m", "pzra-x9fd", "mule-bnoc", "3vq8-rr2k"}},
		{"commas digits", "Her 2FA recovery codes, saved with me: 51823904, 77310256, 09182734, 66021985.",
			[]string{"51823904", "77310256", "09182734", "66021985"}},
		{"slashes", "Códigos de recuperación: 5512-0938 / 7731-6620 / 1029-4471",
			[]string{"5512-0938", "7731-6620", "1029-4471"}},
		{"lines de", "Wiederherstellungscodes:\nq7mt2-a9kfz\nzzpq4-w0xle\nb81ko-jj3pr",
			[]string{"q7mt2-a9kfz", "zzpq4-w0xle", "b81ko-jj3pr"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := g.Check(Input{Text: tc.text})
			for _, v := range tc.values {
				if strings.Contains(res.Redacted, v) {
					t.Errorf("Check(%q).Redacted = %q, still holds %q (findings %s)", tc.text, res.Redacted, v, findingSummary(tc.text, res.Findings))
				}
			}
			if !strings.HasPrefix(res.Redacted, tc.text[:strings.Index(tc.text, tc.values[0])]) {
				t.Errorf("Check(%q).Redacted = %q, want the words before the codes kept", tc.text, res.Redacted)
			}
		})
	}
}
