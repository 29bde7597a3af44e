package guard

import (
	"strings"
	"testing"
)

// BenchmarkSecrets measures the secret scan alone (every rule, the
// sentence reading, the extra finders) on the 500-character memory of
// BenchmarkCheck.
func BenchmarkSecrets(b *testing.B) {
	g := newTestGuard(b, Policy{})
	b.ReportAllocs()
	for b.Loop() {
		g.scanSecrets(memory500)
	}
}

// BenchmarkSecretsProse is BenchmarkSecrets on a memory that talks about
// credentials (nouns to follow, one value named, one commit).
func BenchmarkSecretsProse(b *testing.B) {
	g := newTestGuard(b, Policy{})
	text := "Rotate the API key every 90 days; the password policy asks for 14 characters. " +
		"The staging deploy token is " + tURL + " and it expires Friday. " +
		"The fix landed in commit " + tHex40 + ", see the token budget notes. " +
		"Das Passwort für den Router steht im Tresor, la clé est chez Anna."
	b.ReportAllocs()
	for b.Loop() {
		g.scanSecrets(text)
	}
}

// BenchmarkSecretsPlain is BenchmarkSecrets on a memory that names no
// credential: the common case.
func BenchmarkSecretsPlain(b *testing.B) {
	g := newTestGuard(b, Policy{})
	text := "Decided to move the billing service to PostgreSQL 16 after the load test on staging. " +
		"The old MySQL replica stays read-only until March. Always run the smoke tests before switching traffic, " +
		"and keep the previous release tagged so we can roll back within five minutes. Owners: Alice for schema, " +
		"Bob for the cutover. The dashboards moved to Grafana; alerts page the on-call rotation."
	b.ReportAllocs()
	for b.Loop() {
		g.scanSecrets(text)
	}
}

// BenchmarkSecretsAdversarial runs the secret scan on 256 KB of one
// credential noun and link repeated, the inputs that make the sentence
// reading follow the most nouns; read MB/s. The reading is linear: each
// noun reads a bounded window.
func BenchmarkSecretsAdversarial(b *testing.B) {
	g := newTestGuard(b, Policy{})
	const n = 256 << 10
	for _, unit := range []string{"password: ", "password:", "token is ", "key (", "secret ", "https://hooks.a/b/", "密码是", "| Password |\n|---|\n", "| Password |\n|---|\n| Xk29!pq#Lm |\n", "pgpass h:1:d:u:p "} {
		in := strings.Repeat(unit, n/len(unit))
		b.Run(strings.TrimSpace(unit), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				g.scanSecrets(in)
			}
		})
	}
}
