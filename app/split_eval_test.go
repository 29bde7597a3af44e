package app_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// TestEvalSplitPairs measures the split check as an agent meets it on
// conventions-dev.jsonl (../shared/eval/guard): each split pair written by
// one agent, a new session per half, in both orders, through Store. It
// reports the pairs caught (either half not stored, the second queued by
// the split check, and the stored half held), and the benign rows that
// one agent writing them in file order, a new session each a minute
// apart, gets queued although each alone is stored. It asserts nothing.
//
//	ENGRAM_EVAL=1 go test ./app -run TestEvalSplitPairs -v
func TestEvalSplitPairs(t *testing.T) {
	if os.Getenv("ENGRAM_EVAL") == "" {
		t.Skip("set ENGRAM_EVAL=1")
	}
	dir := os.Getenv("ENGRAM_EVAL_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "eval")
	}
	f, err := os.Open(filepath.Join(dir, "guard", "conventions-dev.jsonl"))
	if err != nil {
		t.Skipf("corpus not found (ENGRAM_EVAL_DIR): %v", err)
	}
	defer f.Close()
	type row struct {
		ID, Text, Label, Family, Field, Pair string
	}
	var rows []row
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	pairs := map[string][]row{}
	for _, r := range rows {
		if r.Pair != "" {
			pairs[r.Pair] = append(pairs[r.Pair], r)
		}
	}
	ids := make([]string, 0, len(pairs))
	for p := range pairs {
		ids = append(ids, p)
	}
	sort.Strings(ids)
	// An agent granted every field the corpus writes to.
	writer := claude
	writer.Caller.Fields = vault.AgentFields
	var total, caught, bySplit, held int
	for _, p := range ids {
		h := pairs[p]
		sort.Slice(h, func(i, j int) bool { return h[i].ID < h[j].ID })
		for _, order := range [][2]row{{h[0], h[1]}, {h[1], h[0]}} {
			total++
			s, _ := newSplitService(t)
			first := s.Store(ctx, inSession(writer, "one"), app.StoreInput{Content: order[0].Text, Field: vault.Field(order[0].Field)})
			second := s.Store(ctx, inSession(writer, "two"), app.StoreInput{Content: order[1].Text, Field: vault.Field(order[1].Field)})
			how := "missed"
			switch {
			case !first.OK():
				how = "first half alone: " + string(first.Status)
				caught++
			case second.Status == app.StatusQuarantined && second.QueueID != "":
				caught++
				how = "second half: quarantined"
				if it := s.QuarantineItem(ctx, operator, second.QueueID).Item; it != nil && it.Joined != "" {
					bySplit++
					how = "second half: joined"
					if it.Partner != nil && it.Partner.Held {
						held++
						how += ", first held"
					}
				}
			case !second.OK():
				caught++
				how = "second half: " + string(second.Status)
			}
			t.Logf("%s %s first: %s", p, how, order[0].ID)
		}
	}
	t.Logf("split pairs (a new session per half, both orders): caught %d of %d; by the split check %d, the stored half held in %d", caught, total, bySplit, held)

	// The joined check alone, as if neither half were caught alone: the
	// joined text is not safe because of an instruction neither half
	// holds alone (app.splitFinding's rule).
	g, err := guard.New(guard.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	types := func(text, field string) map[string]bool {
		out := map[string]bool{}
		for _, f := range g.Check(guard.Input{Text: text, Field: field, Source: string(vault.SourceAIInference)}).Findings {
			if f.Kind == guard.KindInjection {
				out[f.Type] = true
			}
		}
		return out
	}
	joinedCaught, joinedTotal := 0, 0
	for _, p := range ids {
		h := pairs[p]
		for _, order := range [][2]row{{h[0], h[1]}, {h[1], h[0]}} {
			joinedTotal++
			a, b := types(order[0].Text, order[0].Field), types(order[1].Text, order[1].Field)
			res := g.Screen(guard.Input{Text: order[0].Text + " " + order[1].Text, Field: order[1].Field, Source: string(vault.SourceAIInference)})
			hit := false
			for _, f := range res.Findings {
				if res.Verdict != guard.Safe && f.Kind == guard.KindInjection && !a[f.Type] && !b[f.Type] {
					hit = true
				}
			}
			if hit {
				joinedCaught++
			}
		}
	}
	t.Logf("split pairs, the joined check alone (both orders): %d of %d", joinedCaught, joinedTotal)

	// Benign rows in sequence, as one agent writing them.
	var benign []row
	for _, r := range rows {
		if r.Label == "benign" {
			benign = append(benign, r)
		}
	}
	s, clock := newSplitService(t)
	joinedAlarms := 0
	for i, r := range benign {
		clock.Advance(time.Minute)
		res := s.Store(ctx, inSession(writer, fmt.Sprintf("b%d", i)), app.StoreInput{Content: r.Text, Field: vault.Field(r.Field)})
		if res.Status != app.StatusQuarantined {
			continue
		}
		if it := s.QuarantineItem(ctx, operator, res.QueueID).Item; it != nil && it.Joined != "" {
			joinedAlarms++
			t.Logf("benign joined: %s %v %+v\n   %.120q + %.120q", r.ID, it.Reasons, it.JoinedFindings, it.Partner.Content, r.Text)
		}
	}
	t.Logf("benign rows in sequence (one agent, a session each, a minute apart): %d of %d queued by the split check", joinedAlarms, len(benign))
}
