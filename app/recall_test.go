package app_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// countingEmbedder embeds texts as hashed bags of terms and counts them.
type countingEmbedder struct{ n atomic.Int64 }

func (c *countingEmbedder) Dim() int     { return 32 }
func (c *countingEmbedder) Name() string { return "bag-test" }
func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		c.n.Add(1)
		v := make([]float32, 32)
		for _, term := range recall.Terms(nil, t) {
			h := fnv.New32a()
			h.Write([]byte(term))
			v[h.Sum32()%32]++
		}
		out[i] = v
	}
	return out, nil
}

func newRecallService(t *testing.T, v *vault.Vault, emb recall.Embedder) *app.Service {
	t.Helper()
	s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(emb))})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func recallIDs(t *testing.T, s *app.Service, req app.Request, in app.RecallInput) []string {
	t.Helper()
	r := s.Recall(ctx, req, in)
	if !r.OK() {
		t.Fatalf("Recall(%q) = %+v", in.Query, r.Response)
	}
	var out []string
	for _, res := range r.Results {
		out = append(out, res.Content)
	}
	slices.Sort(out)
	return out
}

func mustStore(t *testing.T, s *app.Service, req app.Request, in app.StoreInput) *app.Memory {
	t.Helper()
	r := s.Store(ctx, req, in)
	if !r.OK() {
		t.Fatalf("Store(%q) = %+v", in.Content, r.Response)
	}
	return r.Memory
}

func TestRecallReadRules(t *testing.T) {
	v, _ := vaulttest.New(t)
	s := newRecallService(t, v, &countingEmbedder{})
	mustStore(t, s, operator, app.StoreInput{Content: "kiwi public by operator", Partition: vault.Public})
	mustStore(t, s, operator, app.StoreInput{Content: "kiwi internal by operator"})
	mustStore(t, s, operator, app.StoreInput{Content: "kiwi sensitive by operator", Partition: vault.Sensitive})
	mustStore(t, s, claude, app.StoreInput{Content: "kiwi internal by claude"})
	mustStore(t, s, cursor, app.StoreInput{Content: "kiwi internal by cursor"})
	makePublic(t, s, mustStore(t, s, cursor, app.StoreInput{Content: "kiwi public by cursor"}))
	if err := s.WaitVectors(ctx); err != nil { // semantic recall below needs every vector
		t.Fatal(err)
	}

	all := []string{"kiwi internal by claude", "kiwi internal by cursor", "kiwi internal by operator", "kiwi public by cursor", "kiwi public by operator", "kiwi sensitive by operator"}
	tests := []struct {
		name string
		req  app.Request
		mode recall.Mode
		want []string
	}{
		{"operator sees all", operator, recall.Exact, all},
		{"operator semantic has no sensitive", operator, recall.Semantic, slices.Delete(slices.Clone(all), 5, 6)},
		// Agents read the user's internal memories, their own, and public
		// ones; never another agent's internal ones (no shared group or
		// product here) or sensitive ones.
		{"claude", claude, recall.Hybrid, []string{"kiwi internal by claude", "kiwi internal by operator", "kiwi public by cursor", "kiwi public by operator"}},
		{"cursor", cursor, recall.Exact, []string{"kiwi internal by cursor", "kiwi internal by operator", "kiwi public by cursor", "kiwi public by operator"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := recallIDs(t, s, tc.req, app.RecallInput{Query: "kiwi", Mode: tc.mode}); !slices.Equal(got, tc.want) {
				t.Errorf("Recall = %q, want %q", got, tc.want)
			}
		})
	}

	unauth := s.Recall(ctx, app.Request{Caller: app.Caller{Agent: "x"}}, app.RecallInput{Query: "kiwi"})
	bad := s.Recall(ctx, operator, app.RecallInput{Query: "kiwi", Mode: "fuzzy"})
	off, _ := newService(t)
	tests2 := []struct {
		name string
		got  app.Status
		want app.Status
	}{
		{"unauthorized", unauth.Status, app.StatusUnauthorized},
		{"bad mode", bad.Status, app.StatusInvalid},
		{"recall off", off.Recall(ctx, operator, app.RecallInput{Query: "x"}).Status, app.StatusUnavailable},
	}
	for _, tc := range tests2 {
		if tc.got != tc.want {
			t.Errorf("%s: status %s, want %s", tc.name, tc.got, tc.want)
		}
	}
}

func TestRecallFollowsWrites(t *testing.T) {
	v, _ := vaulttest.New(t)
	s := newRecallService(t, v, &countingEmbedder{})
	m := mustStore(t, s, operator, app.StoreInput{Content: "deploys use rsync"})
	newText := "deploys use kubectl"
	steps := []struct {
		name  string
		do    func() app.Response
		query string
		want  int
	}{
		{"stored", func() app.Response { return app.Response{Status: app.StatusOK} }, "rsync", 1},
		{"updated: old text gone", func() app.Response {
			return s.Update(ctx, operator, m.ID, app.UpdateInput{Content: &newText}).Response
		}, "rsync", 0},
		{"updated: new text found", func() app.Response { return app.Response{Status: app.StatusOK} }, "kubectl", 1},
		{"rolled back", func() app.Response { return s.Rollback(ctx, operator, m.ID, 1).Response }, "rsync", 1},
		{"pinned keeps it", func() app.Response { return s.SetPinned(ctx, operator, m.ID, true).Response }, "rsync", 1},
		{"deleted", func() app.Response { return s.Delete(ctx, operator, m.ID) }, "deploys", 0},
	}
	for _, st := range steps {
		if r := st.do(); !r.OK() {
			t.Fatalf("%s: %+v", st.name, r)
		}
		if got := recallIDs(t, s, operator, app.RecallInput{Query: st.query, Mode: recall.Exact}); len(got) != st.want {
			t.Errorf("%s: Recall(%q) = %q, want %d results", st.name, st.query, got, st.want)
		}
	}

	// An approved quarantine item becomes recallable.
	q := s.Store(ctx, claude, app.StoreInput{Content: "the docs moved to docs.example.org", Source: app.Source{Type: vault.SourceWebFetch}})
	if q.Status != app.StatusQuarantined {
		t.Fatalf("web write = %+v, want quarantined", q.Response)
	}
	if got := recallIDs(t, s, operator, app.RecallInput{Query: "docs moved"}); len(got) != 0 {
		t.Fatalf("quarantined memory recalled: %q", got)
	}
	if r := s.Approve(ctx, operator, q.QueueID, nil); !r.OK() {
		t.Fatal(r.Response)
	}
	r := s.Recall(ctx, operator, app.RecallInput{Query: "docs moved"})
	if len(r.Results) != 1 || !strings.Contains(r.Context, "[from web - may be inaccurate] <user_memory>") {
		t.Fatalf("approved memory: %+v, context %q", r.Results, r.Context)
	}
}

// countedService is a service over v whose recall embeds with a new
// countingEmbedder, returned with its engine and the embedder.
func countedService(t *testing.T, v *vault.Vault) (*app.Service, *recall.Engine, *countingEmbedder) {
	t.Helper()
	emb := &countingEmbedder{}
	eng := recall.New(recall.DefaultConfig(emb))
	s, err := app.New(v, app.Options{Recall: eng})
	if err != nil {
		t.Fatal(err)
	}
	return s, eng, emb
}

func TestRecallVectorsPersist(t *testing.T) {
	v, _ := vaulttest.New(t)
	s, eng, emb := countedService(t, v)
	a := mustStore(t, s, operator, app.StoreInput{Content: "tabs for indentation"})
	b := mustStore(t, s, operator, app.StoreInput{Content: "Tabs, for indentation.", Partition: vault.Public})
	mustStore(t, s, operator, app.StoreInput{Content: "alice's phone is 555-0100"}) // personal data: sensitive
	if err := s.WaitVectors(ctx); err != nil {                                      // vectors follow the writes
		t.Fatal(err)
	}
	if n := emb.n.Load(); n != 2 {
		t.Fatalf("embedded %d texts on store, want 2 (the sensitive memory is never embedded)", n)
	}
	if sim, ok := eng.Similarity(a.ID, b.ID); !ok || sim < 0.99 {
		t.Errorf("Similarity = %v, %v; want about 1", sim, ok)
	}

	// A new service over the same vault reads the stored vectors.
	emb2 := &countingEmbedder{}
	s2 := newRecallService(t, v, emb2)
	if n := emb2.n.Load(); n != 0 {
		t.Errorf("start-up embedded %d texts, want 0", n)
	}
	if got := recallIDs(t, s2, operator, app.RecallInput{Query: "indentation", Mode: recall.Semantic}); len(got) != 2 {
		t.Errorf("semantic recall after restart = %q, want 2", got)
	}
	// Another model's vectors are stale: start-up embeds again.
	emb3 := &renamedEmbedder{countingEmbedder: &countingEmbedder{}}
	newRecallService(t, v, emb3)
	if n := emb3.n.Load(); n != 2 {
		t.Errorf("start-up with another model embedded %d texts, want 2", n)
	}
}

// TestRecallVectorsOfOlderVaults checks that vectors an older Engram
// stored as float32 are read without embedding anything, give the same
// similarities, and are stored again in the quantised format.
func TestRecallVectorsOfOlderVaults(t *testing.T) {
	v, _ := vaulttest.New(t)
	s, eng, emb := countedService(t, v)
	a := mustStore(t, s, operator, app.StoreInput{Content: "tabs for indentation in Go"})
	b := mustStore(t, s, operator, app.StoreInput{Content: "Tabs, for indentation."})
	if err := s.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	want, _ := eng.Similarity(a.ID, b.ID)
	old := map[string][]byte{}
	for _, m := range []*app.Memory{a, b} {
		vec, _ := emb.Embed(ctx, []string{m.Content})
		blob := []byte{1, byte(len(eng.Model()))} // format 1: float32
		blob = append(blob, eng.Model()...)
		blob = append(blob, byte(len(m.ContentHash)))
		blob = append(blob, m.ContentHash...)
		blob = binary.LittleEndian.AppendUint16(blob, uint16(len(vec[0])))
		for _, f := range vec[0] {
			blob = binary.LittleEndian.AppendUint32(blob, math.Float32bits(f))
		}
		old[m.ID] = blob
	}
	if err := v.PutVectors(old); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s2, eng2, emb2 := countedService(t, v)
	defer s2.Close()
	if err := s2.WaitEmbedded(ctx); err != nil {
		t.Fatal(err)
	}
	if n := emb2.n.Load(); n != 0 {
		t.Errorf("start-up embedded %d texts, want 0", n)
	}
	if got, ok := eng2.Similarity(a.ID, b.ID); !ok || got != want {
		t.Errorf("Similarity from float32 blobs = %v, %v; want %v as before", got, ok, want)
	}
	formats := map[byte]int{}
	if _, err := v.Vectors(func(_ string, blob []byte) error { formats[blob[0]]++; return nil }); err != nil {
		t.Fatal(err)
	}
	if formats[1] != 0 || formats[2] != 2 {
		t.Errorf("stored vector formats after start-up: %v, want both quantised (2)", formats)
	}
}

type renamedEmbedder struct{ *countingEmbedder }

func (renamedEmbedder) Name() string { return "bag-test-2" }

func TestRecallSensitiveOnlyWhileUnlocked(t *testing.T) {
	v, _ := vaulttest.New(t)
	s := newRecallService(t, v, nil)
	mustStore(t, s, operator, app.StoreInput{Content: "mango sensitive", Partition: vault.Sensitive})
	mustStore(t, s, operator, app.StoreInput{Content: "mango internal"})
	steps := []struct {
		name string
		do   func()
		want int
	}{
		{"unlocked", func() {}, 2},
		{"locked", v.Lock, 1},
		{"unlocked again", func() {
			if err := v.Unlock(ctx, []byte(vaulttest.Passphrase)); err != nil {
				t.Fatal(err)
			}
		}, 2},
	}
	for _, st := range steps {
		st.do()
		if got := recallIDs(t, s, operator, app.RecallInput{Query: "mango"}); len(got) != st.want {
			t.Errorf("%s: Recall = %q, want %d", st.name, got, st.want)
		}
	}
}

func TestIndexInBackground(t *testing.T) {
	v, _ := vaulttest.New(t)
	for _, c := range []string{"deploys go through the staging pipeline", "the cafe on the corner closes at six"} {
		if _, err := v.Add(vaulttest.Memory(vault.Internal, c), vault.Actor{Agent: vault.AgentOperator}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil)), IndexInBackground: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// A recall issued at once waits for the index instead of missing.
	r := s.Recall(t.Context(), operator, app.RecallInput{Query: "staging pipeline"})
	if !r.OK() || len(r.Results) != 1 {
		t.Fatalf("recall during the background build = %+v", r)
	}
	if err := s.WaitIndexed(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestRecallRanksByConfidenceNow: two otherwise equal memories, one the
// user confirmed last week and one untouched for a year, rank in that
// order, and min_confidence drops the stale one; recall writes nothing to
// the memories to do so.
func TestRecallRanksByConfidenceNow(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil)), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	fresh := mustStore(t, s, operator, app.StoreInput{Content: "The deploy window for billing is Tuesday morning", Kind: vault.Fact})
	stale := mustStore(t, s, operator, app.StoreInput{Content: "The deploy window for search is Thursday evening", Kind: vault.Fact})
	clock.Advance(358 * 24 * time.Hour)
	if r := s.Confirm(ctx, operator, fresh.ID, ""); !r.OK() {
		t.Fatal(r.Response)
	}
	clock.Advance(7 * 24 * time.Hour)

	r := s.Recall(ctx, operator, app.RecallInput{Query: "deploy window", Mode: recall.Exact})
	if !r.OK() || len(r.Results) != 2 {
		t.Fatalf("Recall = %+v", r)
	}
	if r.Results[0].ID != fresh.ID || r.Results[1].ID != stale.ID {
		t.Fatalf("order = %q, %q; want the memory confirmed last week first", r.Results[0].Content, r.Results[1].Content)
	}
	if c0, c1 := r.Results[0].Confidence, r.Results[1].Confidence; !(c0 > 0.9 && c1 < 0.5) {
		t.Errorf("confidences = %.3f, %.3f; want above 0.9 (confirmed last week) and below 0.5 (a year of decay)", c0, c1)
	}
	r = s.Recall(ctx, operator, app.RecallInput{Query: "deploy window", Mode: recall.Exact, Filters: app.RecallFilters{MinConfidence: 0.6}})
	if len(r.Results) != 1 || r.Results[0].ID != fresh.ID {
		t.Fatalf("min_confidence 0.6 = %+v, want only the confirmed memory", r.Results)
	}
	// The stored confidence is what it was written with: decay is computed
	// per query, not written.
	if g := s.Get(ctx, operator, stale.ID); !g.OK() || g.Memory.Confidence != stale.Confidence || g.Memory.Version != stale.Version {
		t.Errorf("stale memory after recall = %+v, want confidence %.2f at version %d", g.Memory, stale.Confidence, stale.Version)
	}
}

// TestRecallRelevanceFloor: a query about nothing the vault holds returns
// nothing and says so, instead of the nearest unrelated memories (found by
// meaning alone, below the floor's cosine); what matches is found.
func TestRecallRelevanceFloor(t *testing.T) {
	v, _ := vaulttest.New(t)
	s := newRecallService(t, v, &countingEmbedder{})
	for _, c := range []string{"The on-call rotation starts on Monday", "The team indents with tabs, never spaces", "Deploys go through the release script"} {
		mustStore(t, s, operator, app.StoreInput{Content: c})
	}
	if err := s.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"timeouts", 0},
		{"what is the timeout of the database connection", 0},
		{"how do we indent code: tabs or spaces?", 1},
	} {
		r := s.Recall(ctx, operator, app.RecallInput{Query: tc.query})
		if !r.OK() || len(r.Results) != tc.want {
			t.Errorf("Recall(%q) = %d results (%+v), want %d", tc.query, len(r.Results), r.Response, tc.want)
		}
		if said := r.Message == app.NothingPassedFloor; said != (tc.want == 0) {
			t.Errorf("Recall(%q): message %q; want it to say nothing passed the floor: %v", tc.query, r.Message, tc.want == 0)
		}
		if tc.want == 0 && r.BelowFloor == 0 {
			t.Errorf("Recall(%q): below_floor 0, want the weak matches counted", tc.query)
		}
	}
}

// TestRecallNamesUnheard: a question about someone no memory mentions
// says who, so the agent knows the vault never heard of them; a name
// the caller may not read about counts as unheard too, so the answer
// tells nothing of memories the caller cannot read.
func TestRecallNamesUnheard(t *testing.T) {
	v, _ := vaulttest.New(t)
	s := newRecallService(t, v, &countingEmbedder{})
	mustStore(t, s, operator, app.StoreInput{Content: "Alice moved the deploy window to Thursday"})
	mustStore(t, s, operator, app.StoreInput{Content: "Zorro's bank is in Lisbon", Partition: "sensitive"})
	if err := s.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	r := s.Recall(ctx, claude, app.RecallInput{Query: "What did Zorro say about the deploy window?"})
	if !r.OK() || len(r.Results) != 0 {
		t.Fatalf("Recall = %d results (%+v), want none", len(r.Results), r.Response)
	}
	if !strings.HasPrefix(r.Message, app.NothingPassedFloor) || !strings.Contains(r.Message, `"Zorro"`) {
		t.Errorf("message %q, want it to say nothing passed the floor and name \"Zorro\"", r.Message)
	}
	if len(r.Unheard) != 1 || r.Unheard[0] != "Zorro" {
		t.Errorf("unheard = %q, want [Zorro]", r.Unheard)
	}
	if r := s.Recall(ctx, claude, app.RecallInput{Query: "When does Alice deploy?"}); len(r.Unheard) != 0 {
		t.Errorf("unheard = %q for a name a memory holds, want none", r.Unheard)
	}
}

// registerAgent registers spec with s and returns a request with its
// token's caller.
func registerAgent(t *testing.T, s *app.Service, spec app.AgentSpec) app.Request {
	t.Helper()
	a := s.AddAgent(ctx, operator, spec)
	if !a.OK() {
		t.Fatalf("AddAgent(%s) = %+v", spec.Name, a.Response)
	}
	c, r := s.Authenticate(ctx, a.Token, "")
	if !r.OK() {
		t.Fatalf("Authenticate(%s) = %+v", spec.Name, r)
	}
	return app.Request{Caller: c, Authorized: true}
}

// bagBucket is the dimension of countingEmbedder's vectors that word
// counts in: two words of one bucket are embedded alike.
func bagBucket(word string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(recall.Terms(nil, word)[0]))
	return h.Sum32() % 32
}

// sameAnswer describes how recall answer a differs from b once every w in
// a reads z, or returns "" when they are the same: the same status and
// message, the same results (memory, score, confidence) in the same order,
// context, counts and unheard names.
func sameAnswer(a, b app.RecallResponse, w, z string) string {
	sub := func(s string) string { return strings.ReplaceAll(s, w, z) }
	unheard := slices.Clone(a.Unheard)
	for i := range unheard {
		unheard[i] = sub(unheard[i])
	}
	switch {
	case a.Status != b.Status || sub(a.Message) != b.Message:
		return fmt.Sprintf("status %s %q against %s %q", a.Status, a.Message, b.Status, b.Message)
	case len(a.Results) != len(b.Results):
		return fmt.Sprintf("%d results against %d", len(a.Results), len(b.Results))
	case a.BelowFloor != b.BelowFloor:
		return fmt.Sprintf("below_floor %d against %d", a.BelowFloor, b.BelowFloor)
	case !slices.Equal(unheard, b.Unheard):
		return fmt.Sprintf("unheard %q against %q", a.Unheard, b.Unheard)
	case a.Context != b.Context || a.KeywordOnly != b.KeywordOnly:
		return fmt.Sprintf("context %q against %q", a.Context, b.Context)
	}
	for i := range a.Results {
		if a.Results[i] != b.Results[i] {
			return fmt.Sprintf("result %d: %+v against %+v", i, a.Results[i], b.Results[i])
		}
	}
	return ""
}

// TestRecallTellsNothingOfUnreadable is issue 32, finding 3: an agent
// that reads public memories only asks about a name that only memories
// it may not read hold (the user's sensitive and internal ones, another
// product's agent's, an agent's of another group). Its answer is the
// answer for a name held nowhere (embedded alike), in every mode; a name
// a public memory holds does change the answer.
func TestRecallTellsNothingOfUnreadable(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(&countingEmbedder{})), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	reader := registerAgent(t, s, app.AgentSpec{Name: "reader", Group: "qa", Product: "lens", Read: []vault.Partition{vault.Public}})
	writer := registerAgent(t, s, app.AgentSpec{Name: "writer", Group: "backend", Product: "engram"})
	grouped := registerAgent(t, s, app.AgentSpec{Name: "grouped", Group: "frontend"})
	for _, c := range []string{"the frobnicator service uses spaces", "the billing service uses tabs", "the frobnicator runs nightly",
		"every service uses the same linter", "tabs are wider than spaces", "the frobnicator service restarts at noon"} {
		mustStore(t, s, operator, app.StoreInput{Content: c, Partition: vault.Public})
	}
	const name, nowhere, public = "Qzkrvt", "Tqzkrn", "Dxkvml"
	if bagBucket(name) != bagBucket(nowhere) || bagBucket(public) != bagBucket(nowhere) {
		t.Fatalf("the embedder tells %s, %s and %s apart: the test needs names it embeds alike", name, nowhere, public)
	}
	mustStore(t, s, operator, app.StoreInput{Content: name + " owns the frobnicator service", Partition: vault.Sensitive})
	mustStore(t, s, operator, app.StoreInput{Content: name + " reviews every frobnicator change"})
	mustStore(t, s, writer, app.StoreInput{Content: "ask " + name + " why the frobnicator uses tabs"})
	mustStore(t, s, grouped, app.StoreInput{Content: "ask " + name + " about the service"})
	mustStore(t, s, operator, app.StoreInput{Content: "ask " + public + " about the linter", Partition: vault.Public})
	if err := s.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	ask := func(who string, mode recall.Mode) app.RecallResponse {
		return s.Recall(ctx, reader, app.RecallInput{Query: "frobnicator " + who + " service uses tabs", Mode: mode})
	}
	for _, mode := range []recall.Mode{recall.Hybrid, recall.Exact, recall.Semantic} {
		held, none := ask(name, mode), ask(nowhere, mode)
		if !none.OK() {
			t.Fatalf("%s: Recall = %+v", mode, none.Response)
		}
		if d := sameAnswer(held, none, name, nowhere); d != "" {
			t.Errorf("%s: a name only unreadable memories hold is answered otherwise than a name held nowhere: %s", mode, d)
		}
		if mode != recall.Semantic { // semantic recall reads no words
			if d := sameAnswer(ask(public, mode), none, public, nowhere); d == "" {
				t.Errorf("%s: a name a public memory holds is answered as a name held nowhere", mode)
			}
		}
	}
}

// TestRecallReadsAsGet: recall finds exactly the memories Get lets the
// caller read, for agents whose group or product lets them read other
// agents' internal memories, and the duplicate check merges a write only
// into a memory its writer may read.
func TestRecallReadsAsGet(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(&countingEmbedder{})), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	agents := map[string]app.Request{
		"writer":       registerAgent(t, s, app.AgentSpec{Name: "writer", Group: "backend", Product: "engram"}),
		"same-group":   registerAgent(t, s, app.AgentSpec{Name: "same-group", Group: "backend"}),
		"same-product": registerAgent(t, s, app.AgentSpec{Name: "same-product", Group: "frontend", Product: "engram"}),
		"grouped":      registerAgent(t, s, app.AgentSpec{Name: "grouped", Group: "frontend"}),
		"public-only":  registerAgent(t, s, app.AgentSpec{Name: "public-only", Read: []vault.Partition{vault.Public}}),
		"granted":      registerAgent(t, s, app.AgentSpec{Name: "granted", Read: []vault.Partition{vault.Public, vault.Internal, vault.Sensitive}}),
	}
	mems := []*app.Memory{
		mustStore(t, s, agents["writer"], app.StoreInput{Content: "the queue retries three times"}),        // L2: product engram
		mustStore(t, s, agents["grouped"], app.StoreInput{Content: "the cache is warmed at boot"}),         // L1: group frontend
		mustStore(t, s, agents["same-group"], app.StoreInput{Content: "the linter runs before each push"}), // L1: group backend
		mustStore(t, s, operator, app.StoreInput{Content: "the pager rotates weekly"}),
		mustStore(t, s, operator, app.StoreInput{Content: "the vault key is in the safe", Partition: vault.Sensitive}),
		mustStore(t, s, operator, app.StoreInput{Content: "the wiki is public", Partition: vault.Public}),
	}
	if err := s.WaitVectors(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(agents)) {
		req := agents[name]
		for _, m := range mems {
			want := s.Get(ctx, req, m.ID).OK()
			for _, mode := range []recall.Mode{recall.Exact, recall.Hybrid} {
				r := s.Recall(ctx, req, app.RecallInput{Query: m.Content, Mode: mode})
				got := slices.ContainsFunc(r.Results, func(x app.RecallResult) bool { return x.ID == m.ID })
				if got != want {
					t.Errorf("%s recalls %q (%s, by %s) in %s mode: %v; Get reads it: %v", name, m.Content, m.Partition, m.Owner, mode, got, want)
				}
			}
		}
	}
	// A memory the same-group agent may not read is no duplicate of its
	// write: it is stored, and told nothing of the other.
	r := s.Store(ctx, agents["same-group"], app.StoreInput{Content: mems[0].Content})
	if !r.OK() || r.Memory == nil || r.Memory.ID == mems[0].ID || strings.Contains(fmt.Sprint(r.Warnings), mems[0].ID) {
		t.Errorf("Store of an unreadable memory's text = %+v, %v; want it stored anew, without a word of %s", r.Response, r.Warnings, mems[0].ID)
	}
	if r := s.Store(ctx, agents["same-product"], app.StoreInput{Content: mems[0].Content}); r.Memory == nil || r.Memory.ID != mems[0].ID {
		t.Errorf("Store of a readable memory's text by an agent of its product = %+v; want it merged into %s", r.Response, mems[0].ID)
	}
}

// TestRecallUnreadableWordProperty is TestRecallTellsNothingOfUnreadable
// over random vaults and callers, through the service and its read
// rules: agents in groups and products write public and internal
// memories and the user sensitive ones too, names in some of them; each
// agent, and one that reads public memories only, asks about a name that
// only memories it may not read hold (Get says which), and is answered as
// about a name held nowhere (embedded alike); about a name a memory it
// may read holds, otherwise. Every other name is asked misspelled.
func TestRecallUnreadableWordProperty(t *testing.T) {
	words := strings.Fields("deploy service tabs spaces queue cache build release schema index backup token router linter config script server metric alert pager")
	const consonants = "bcdfghjklmnpqrtvwxz" // no s or y: stemming leaves the names alone
	cases, converse := 0, 0
	for seed := range 40 {
		r := rand.New(rand.NewPCG(uint64(seed), 32))
		randName := func() string {
			b := []byte{consonants[r.IntN(len(consonants))] - 'a' + 'A'}
			for range 5 {
				b = append(b, consonants[r.IntN(len(consonants))])
			}
			return string(b)
		}
		randWords := func(n int) []string {
			out := make([]string, n)
			for i := range out {
				out[i] = words[r.IntN(len(words))]
			}
			return out
		}
		v, clock := vaulttest.New(t, vaulttest.NoSync)
		s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(&countingEmbedder{})), Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		callers := []app.Request{registerAgent(t, s, app.AgentSpec{Name: "public-only", Read: []vault.Partition{vault.Public}})}
		groups, products := []string{"", "backend", "frontend"}, []string{"", "", "engram", "lens"}
		for i := range 4 {
			spec := app.AgentSpec{Name: fmt.Sprintf("agent-%d", i), Group: groups[r.IntN(len(groups))], Product: products[r.IntN(len(products))]}
			if r.IntN(3) == 0 {
				spec.Read = []vault.Partition{vault.Public, vault.Internal, vault.Sensitive}
			}
			callers = append(callers, registerAgent(t, s, spec))
		}
		names := []string{randName(), randName(), randName(), randName(), randName()}
		var mems []*app.Memory
		for range 25 {
			text := randWords(3 + r.IntN(6))
			if r.IntN(3) != 0 {
				text = slices.Insert(text, 1+r.IntN(len(text)-1), names[r.IntN(len(names))])
			}
			in := app.StoreInput{Content: strings.Join(text, " ")}
			req := operator
			if i := r.IntN(len(callers) + 1); i < len(callers) {
				req = callers[i]
			}
			switch p := r.IntN(3); {
			case p == 0 && (req.Caller.Operator || req.Caller.Product == ""):
				in.Partition = vault.Public
			case p == 1 && req.Caller.Operator:
				in.Partition = vault.Sensitive
			}
			clock.Advance(time.Hour)
			if m := s.Store(ctx, req, in); m.Memory != nil {
				mems = append(mems, m.Memory)
			}
		}
		if err := s.WaitVectors(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range callers {
			var unread, read []string // names only unreadable memories hold; names a readable one holds
			for _, n := range names {
				held, readable := false, false
				for _, m := range mems {
					if strings.Contains(m.Content, n) {
						held = true
						readable = readable || s.Get(ctx, c, m.ID).OK()
					}
				}
				switch {
				case readable:
					read = append(read, n)
				case held:
					unread = append(unread, n)
				}
			}
			ask := func(text, name string, mode recall.Mode) app.RecallResponse {
				return s.Recall(ctx, c, app.RecallInput{Query: fmt.Sprintf(text, name), Mode: mode})
			}
			for i, name := range append(unread, read...) {
				// Every other name is asked with a slip (a letter doubled),
				// which recall matches against the names of the memories
				// the caller may read only.
				w := name
				if i%2 == 1 {
					w = name[:3] + name[2:]
				}
				nowhere := randName()
				for slices.Contains(names, nowhere) || bagBucket(nowhere) != bagBucket(w) {
					nowhere = randName()
				}
				q := randWords(1 + r.IntN(4))
				text := strings.Join(slices.Insert(q, 1+r.IntN(len(q)), "%s"), " ")
				for _, mode := range []recall.Mode{recall.Hybrid, recall.Exact} {
					held, none := ask(text, w, mode), ask(text, nowhere, mode)
					if !none.OK() {
						t.Fatalf("Recall = %+v", none.Response)
					}
					d := sameAnswer(held, none, w, nowhere)
					if slices.Contains(unread, name) {
						cases++
						if d != "" {
							t.Fatalf("seed %d, %s (%+v), %s: %q about %s, which only unreadable memories hold, is answered otherwise than about %s, held nowhere: %s",
								seed, c.Caller.Name(), c.Caller, mode, text, w, nowhere, d)
						}
						continue
					}
					converse++
					if d == "" {
						t.Fatalf("seed %d, %s, %s: %q about %s, which a readable memory holds, is answered as about %s, held nowhere", seed, c.Caller.Name(), mode, text, w, nowhere)
					}
				}
			}
		}
		s.Close()
	}
	t.Logf("%d recalls about a name only unreadable memories hold, %d about a readable one", cases, converse)
}

// TestDuplicateCheckTellsNothingOfUnreadable: the memories a write is
// warned it may contradict are the same whether a word of it is held by
// memories its writer may not read (another agent's) or by none. Six
// readable memories on its subject with other numbers compete for the
// check's five places, ranked by how rare their words are.
func TestDuplicateCheckTellsNothingOfUnreadable(t *testing.T) {
	warned := func(hidden string) []string {
		v, clock := vaulttest.New(t)
		s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil)), Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{"port 1001 serves alpha", "port 2001 serves beta", "port 1002 serves alpha",
			"port 2002 serves beta", "port 1003 serves alpha", "port 2003 serves beta", "beta is the second stage"} {
			clock.Advance(time.Hour) // the newer ranks higher: no ties
			mustStore(t, s, operator, app.StoreInput{Content: c})
		}
		for i := range 5 { // claude's: cursor may not read them
			mustStore(t, s, claude, app.StoreInput{Content: fmt.Sprintf("%s note %d of the rollout", hidden, i)})
		}
		r := s.Store(ctx, cursor, app.StoreInput{Content: "port 9999 serves alpha beta"})
		if r.Memory == nil {
			t.Fatalf("Store = %+v", r.Response)
		}
		var out []string
		for _, w := range r.Warnings {
			if id, ok := strings.CutPrefix(w, "may contradict memory "); ok {
				id, _, _ = strings.Cut(id, " ")
				out = append(out, s.Get(ctx, operator, id).Memory.Content)
			}
		}
		slices.Sort(out)
		return out
	}
	held, nowhere := warned("alpha"), warned("gamma")
	if len(nowhere) != 5 {
		t.Fatalf("warned of %q, want five memories", nowhere)
	}
	if !slices.Equal(held, nowhere) {
		t.Errorf("a word only unreadable memories hold changes the warnings: %q, against %q for a word held nowhere", held, nowhere)
	}
}

// TestSearchShowsEveryAnswer is issue 36, item 3: the desktop's and the
// CLI's search (Service.Search) returns every memory above the relevance
// floor with their number, not the agents' recall caps (10 episodic, 20
// semantic, 4,000 tokens); a limit cuts the results but not the total.
// An agent's Recall keeps its caps.
func TestSearchShowsEveryAnswer(t *testing.T) {
	v, _ := vaulttest.New(t)
	s := newRecallService(t, v, &countingEmbedder{})
	for i := range 38 {
		mustStore(t, s, operator, app.StoreInput{Content: fmt.Sprintf("deploy note %d: the %s stage runs after review", i, strings.Repeat("x", i%7+1)), Tier: vault.Episodic})
	}
	mustStore(t, s, operator, app.StoreInput{Content: "the kiwi tree needs water", Tier: vault.Episodic})
	r := s.Search(ctx, operator, app.RecallInput{Query: "deploy"})
	if !r.OK() || len(r.Results) != 38 || r.Total != 38 {
		t.Fatalf("Search(deploy) = %s, %d results, total %d; want 38 and 38", r.Status, len(r.Results), r.Total)
	}
	r = s.Search(ctx, operator, app.RecallInput{Query: "deploy", Limit: 10})
	if len(r.Results) != 10 || r.Total != 38 {
		t.Errorf("Search(deploy, limit 10) = %d results, total %d; want 10 of 38", len(r.Results), r.Total)
	}
	if a := s.Recall(ctx, operator, app.RecallInput{Query: "deploy"}); len(a.Results) != 10 || a.Total != 38 {
		t.Errorf("Recall(deploy) = %d results, total %d; want the cap of 10 episodic of 38", len(a.Results), a.Total)
	}
}
