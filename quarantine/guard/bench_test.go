package guard

import (
	"strings"
	"testing"
)

// memory500 is a 500-character memory with a little of everything.
var memory500 = func() string {
	s := "Decided to move the billing service to PostgreSQL 16 after the load test on staging. " +
		"Contact ann@example.com or 415-555-0132 for the rollout plan. The old MySQL replica at 10.0.4.12 " +
		"stays read-only until March. Gotcha: migrations must run with the api_key from the vault, never " +
		"inline. Always run the smoke tests before switching traffic, and keep the previous release " +
		"tagged so we can roll back within five minutes. Owners: @alice for schema, @bob for the cutover."
	for len(s) < 500 {
		s += " ok"
	}
	return s[:500]
}()

func BenchmarkCheck(b *testing.B) {
	g := newTestGuard(b, Policy{PII: PIIRedact})
	in := Input{Text: memory500, Source: SourceToolOutput, Field: "learnings"}
	b.ReportAllocs()
	for b.Loop() {
		g.Check(in)
	}
}

// BenchmarkCheckLong measures throughput on 1 MB of mixed text; read MB/s.
func BenchmarkCheckLong(b *testing.B) {
	g := newTestGuard(b, Policy{PII: PIIRedact})
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString(memory500)
		sb.WriteString("\nkey AKIAQ7RZ5XK2M4N8P3WT password=hunter2x ghp_Q7rZ5xK2m4N8p3WtY6uB9cD1eF4gH7jK0lM2\n")
	}
	in := Input{Text: sb.String()}
	b.SetBytes(int64(len(in.Text)))
	for b.Loop() {
		g.Check(in)
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(Policy{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckLongProse measures throughput on 1 MB of ordinary prose
// with a secret every ~50 KB: the common shape of a long paste.
func BenchmarkCheckLongProse(b *testing.B) {
	g := newTestGuard(b, Policy{PII: PIIRedact})
	prose := "The billing service moved to PostgreSQL after the load test. Keep the previous release tagged so rollback is quick, and run the smoke tests before switching traffic. "
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		sb.WriteString(prose)
		if i%300 == 0 {
			sb.WriteString("token ghp_Q7rZ5xK2m4N8p3WtY6uB9cD1eF4gH7jK0lM2\n")
		}
		if i%5 == 0 {
			sb.WriteString("\n")
		}
	}
	in := Input{Text: sb.String()}
	b.SetBytes(int64(len(in.Text)))
	for b.Loop() {
		g.Check(in)
	}
}

// BenchmarkCheckAdversarial runs inputs built to trigger quadratic paths
// (runs of "@", keyword runs, digit runs, colons); each is 256 KB.
func BenchmarkCheckAdversarial(b *testing.B) {
	g := newTestGuard(b, Policy{PII: PIIRedact})
	const n = 256 << 10
	inputs := map[string]string{
		"at-signs":   strings.Repeat("a@", n/2),
		"keywords":   strings.Repeat("pass", n/4),
		"digits":     strings.Repeat("1 ", n/2),
		"colons":     strings.Repeat("a:", n/2),
		"base64":     strings.Repeat("QUJD", n/4),
		"pem-begins": strings.Repeat("-----BEGIN ", n/11),
	}
	for name, in := range inputs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				g.Check(Input{Text: in})
			}
		})
	}
}

// BenchmarkCheckVector is BenchmarkCheck with a vector: the difference is
// the cost of the vector model (a 512-d dot product and a validity scan).
func BenchmarkCheckVector(b *testing.B) {
	g := newTestGuard(b, Policy{PII: PIIRedact})
	v := make([]float32, vecDim)
	for i := range v {
		v[i] = 1 / float32(22.627417) // unit length
	}
	in := Input{Text: memory500, Source: SourceToolOutput, Field: "learnings", Vector: v, VectorModel: VectorModel}
	b.ReportAllocs()
	for b.Loop() {
		g.Check(in)
	}
}

// BenchmarkVecModel measures the vector model alone.
func BenchmarkVecModel(b *testing.B) {
	m, err := loadVecModel()
	if err != nil {
		b.Fatal(err)
	}
	v := make([]float32, vecDim)
	for i := range v {
		v[i] = 1 / float32(22.627417)
	}
	in := Input{Text: memory500, Vector: v, VectorModel: VectorModel}
	for b.Loop() {
		if usableVector(in) {
			m.predict(in.Vector)
		}
	}
}
