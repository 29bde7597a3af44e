package guard

import (
	"strings"
	"testing"
)

// Passwords for these tests, made up (none is a live credential), in the
// shapes people pick: a word or two with digits and a symbol.
const (
	cPw1 = "Harbor77#Kite"
	cPw2 = "Sparrow!2290"
	cPw3 = "Gravel#88x"
	cPw4 = "Maple%41road"
	cPw5 = "Thistle!83"
	cPw6 = "Heron^77Quill"
	cPw7 = "Cedar*519"
	cPw8 = "Lantern$604"
)

// checkRedacted fails unless every value is gone from what a store keeps.
func checkRedacted(t *testing.T, g *Guard, text string, values ...string) {
	t.Helper()
	res := g.Check(Input{Text: text})
	for _, v := range values {
		if !res.HasSecret || strings.Contains(res.Redacted, v) {
			t.Errorf("Check(%q) keeps %q (redacted %q; findings %s)", text, v, res.Redacted, findingSummary(text, res.Findings))
		}
	}
}

// checkUntouched fails if the guard redacts or holds anything of text.
func checkUntouched(t *testing.T, g *Guard, text string) {
	t.Helper()
	res := g.Check(Input{Text: text})
	if res.HasSecret || res.NeedsConfirm {
		t.Errorf("Check(%q) = HasSecret %v, NeedsConfirm %v; want it untouched (findings %s)", text, res.HasSecret, res.NeedsConfirm, findingSummary(text, res.Findings))
	}
}

// TestChosenPasswords: a run shaped like a password a person picks is
// redacted when the text speaks of credentials or of getting in, however
// the sentence introduces it; held for confirmation when nothing does;
// and the runs of ordinary text with letters, digits and symbols
// (addresses, versions, packages, code, references) are left alone.
func TestChosenPasswords(t *testing.T) {
	g := newTestGuard(t, Policy{})
	for _, c := range []struct{ text, value string }{
		{"For the Pi in the garage use pi / " + cPw8 + " over SSH.", cPw8},
		{"the router login is admin and " + cPw5, cPw5},
		{"Got it, the new one for the printer admin page: " + cPw7, cPw7},
		{cPw6 + " is what you type on the alarm panel", cPw6},
		{cPw1 + " is the new password for the Jenkins box, rotated this morning.", cPw1},
		{"[09:12] kim: what's the code for the shared account?\n[09:13] ola: " + cPw2, cPw2},
		{"Pour se connecter au NAS : " + cPw3 + " (ne pas partager)", cPw3},
		{"NAS에 로그인할 때 " + cPw4 + " 사용하세요", cPw4},
		{"~/.pgpass: db.internal:5432:orders:orders_rw:" + cPw2, cPw2},
	} {
		checkRedacted(t, g, c.text, c.value)
	}
	// Nothing speaks of credentials: the store asks first.
	res := g.Check(Input{Text: "Note to self: " + cPw6 + " before Friday."})
	if res.HasSecret || !res.NeedsConfirm {
		t.Errorf("a password-shaped run alone: HasSecret %v, NeedsConfirm %v; want it held for confirmation", res.HasSecret, res.NeedsConfirm)
	}
	for _, text := range []string{
		"Install react@18.2.0 and vue@3.4.21 before running the account migration.",
		"Log in as deploy@build-01 and run make release for v2.4.1+build.77.",
		"The login page needs C++17, Python3.11 and iPhone15+ support.",
		"In the account service, total+=fee2 was the bug; use total=fee2+Tax instead.",
		"Admin ticket#4521 and Issue#88 track the access problem.",
		"`echo 'aGVsbG8=' | base64 -d` prints hello; the login fixtures use base64 too.",
		"Email Ops2024@example.org for SSH access to the bastion.",
		"Sign in with your account, then open #Release2024! on the wiki.",
		"Call +1-555-0100x42 to unlock the account, or write to access@example.com.",
		"Root cause: getUser(42)!=nil returned early for the admin account.",
		"Ping @Platform2 or $Home3x for access questions.",
	} {
		checkUntouched(t, g, text)
	}
}

// TestCommandLinePasswords: each tool's documented password flag gives
// the password it is followed by; the same flags that prompt, or that
// mean something else, give nothing.
func TestCommandLinePasswords(t *testing.T) {
	g := newTestGuard(t, Policy{})
	for _, c := range []struct{ text, value string }{
		{"mysql -h db1 -u app -p'" + cPw1 + "' shop", cPw1},
		{"ldapwhoami -x -D \"uid=ops,ou=people,dc=example,dc=org\" -w " + cPw3, cPw3},
		{"redis-cli -h 127.0.0.1 -p 6379 -a " + tAlnum20 + " ping", tAlnum20},
		{"sshpass -p '" + cPw4 + "' ssh admin@10.1.1.1", cPw4},
		{"smbclient //nas/share -U alice%" + cPw2, cPw2},
		{"keytool -importkeystore -srcstorepass " + cPw5 + " -deststorepass " + cPw5, cPw5},
		{"htpasswd -bc /etc/nginx/.htpasswd admin " + cPw6, cPw6},
		{"7z a backup.7z docs/ -p" + cPw7 + " -mhe=on", cPw7},
		{"zip -r -P " + cPw8 + " notes.zip notes/", cPw8},
		{"sqlcmd -S db01 -U sa -P " + cPw1 + " -Q \"SELECT 1\"", cPw1},
		{"mosquitto_pub -h broker -u sensor -P " + cPw2 + " -t home/temp -m 21", cPw2},
		{"rabbitmqctl add_user ingest " + tAlnum20, tAlnum20},
		{`net use Z: \\fileserver\team ` + cPw3 + ` /user:CORP\jdoe`, cPw3},
		{"echo '" + cPw4 + "' | sudo -S apt update", cPw4},
		{"echo \"" + tAlnum28 + "\" | docker login ghcr.io -u bot --password-stdin", tAlnum28},
	} {
		checkRedacted(t, g, c.text, c.value)
	}
	for _, text := range []string{
		"mysql -u root -p shop",
		"ldapsearch -x -W -b dc=example,dc=org",
		"unzip -p archive.zip readme.txt",
		"7z x archive.7z -o/tmp/out",
		"docker run -p 8080:80 nginx",
		"sqlcmd -S db01 -E -Q \"SELECT 1\"",
		"echo $DB_PASSWORD | docker login ghcr.io -u bot --password-stdin",
	} {
		checkUntouched(t, g, text)
	}
}

// TestSecretsInOtherForms: a passphrase named in another alphabet, a
// hyphenated passphrase in quotes, a product key in groups, a token as a
// URL's user name; and what is not a secret in the same sentences: a key
// id, a key the sentence says is public, a public DSN, a URL's plain user.
func TestSecretsInOtherForms(t *testing.T) {
	g := newTestGuard(t, Policy{})
	for _, c := range []struct{ text, value string }{
		{"Кодовая фраза для резервной копии: орбита лампа кедр туман", "орбита лампа кедр туман"},
		{"Парольная фраза: kettle mirror anvil dune", "kettle mirror anvil dune"},
		{"Wi-Fiのパスワードは「maple-river-stone42」です", "maple-river-stone42"},
		{"The product key on the box is 4KX7P-9QWMT-R2D8B-HJ6YV-3CFNG.", "4KX7P-9QWMT-R2D8B-HJ6YV-3CFNG"},
		{"git remote set-url origin https://" + tAlnum36 + "@github.com/acme/api.git", tAlnum36},
		{"Errors go to https://" + tHex32 + "@o12345.ingest.sentry.io/67890", tHex32},
		{"The API key is " + tAlnum28 + "; never make it public.", tAlnum28},
		{"The Pusher app secret is " + tHex32 + "; the app key is public.", tHex32},
	} {
		checkRedacted(t, g, c.text, c.value)
	}
	for _, text := range []string{
		"gpg --recv-keys 0x7A3F91C2B8D4E605",
		"The signing key is 0x7A3F91C2B8D4E605 on keys.openpgp.org.",
		"Our search key " + tHex32 + " ships in the frontend bundle; it is public by design.",
		"Site key " + tAlnum40 + " (it's the public one; the secret stays on the server)",
		"Clone with https://git@github.com/acme/api.git",
	} {
		checkUntouched(t, g, text)
	}
}
