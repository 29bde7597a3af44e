package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/engram-app/engram/app/recall"
)

// TestRetrievalSessions: a corpus row's session_id reaches the stored
// memory through Service.Store, so recall's neighbouring context works on
// the product path: the answer written after the question about the
// bakery ranks above the same words written later after another
// question, which without sessions come first (they are newer).
func TestRetrievalSessions(t *testing.T) {
	corpus := func(sessions bool) string {
		rows := []struct{ id, text, at, session string }{
			{"q-bakery", "Did you like the new bakery on Main Street?", "2023-05-08T13:56:00Z", "s1"},
			{"z-answer", "Yes, it was lovely, thanks.", "2023-05-08T13:56:01Z", "s1"},
			{"q-dentist", "Did you like the new dentist on Oak Street?", "2023-05-09T10:00:00Z", "s2"},
			{"a-other", "Yes, it was lovely, truly.", "2023-05-09T10:00:01Z", "s2"},
		}
		var b strings.Builder
		for _, r := range rows {
			b.WriteString(`{"_id": "` + r.id + `", "text": "` + r.text + `", "created_at": "` + r.at + `"`)
			if sessions {
				b.WriteString(`, "session_id": "` + r.session + `"`)
			}
			b.WriteString("}\n")
		}
		return b.String()
	}
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	queries := write("queries.jsonl", `{"_id": "q1", "text": "was the bakery on Main Street lovely"}`+"\n")
	qrels := write("qrels.tsv", "query-id\tcorpus-id\tscore\nq1\tz-answer\t1\n")
	mrr := map[bool]float64{}
	for _, sessions := range []bool{false, true} {
		rep, err := Retrieval(context.Background(), Options{Corpus: write("corpus.jsonl", corpus(sessions)), Queries: queries, Qrels: qrels,
			Modes: []recall.Mode{recall.Exact}, K: 10, Recency: 0.3})
		if err != nil {
			t.Fatal(err)
		}
		mrr[sessions] = rep.ByMode[recall.Exact].MRR10
	}
	if mrr[true] != 0.5 || mrr[false] != 1.0/3 {
		t.Errorf("the answer's reciprocal rank: %.3f with sessions, %.3f without; want 0.5 (after the question) and 0.333 (after the newer look-alike)", mrr[true], mrr[false])
	}
}
