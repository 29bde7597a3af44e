package embed

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// reference is testdata/reference.json, produced once by running the TF.js
// implementation (tfjs-core cpu backend, tokenizer of
// @tensorflow-models/universal-sentence-encoder) on the same model files.
type reference struct {
	Source    string `json:"source"`
	Sentences []struct {
		Text   string    `json:"text"`
		IDs    []int32   `json:"ids"`
		Vector []float32 `json:"vector"`
	} `json:"sentences"`
	EmptyInBatch []float32 `json:"empty_in_batch"`
	Tokens       []struct {
		Text string  `json:"text"`
		IDs  []int32 `json:"ids"`
	} `json:"tokens"`
}

func loadReference(t testing.TB) *reference {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r reference
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// testModelDir finds the model: $ENGRAM_MODEL_DIR, else .cache/model/use-lite
// at the repository root. Without it the test is skipped, unless $CI is set:
// CI must never pass by skipping.
func testModelDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("ENGRAM_MODEL_DIR")
	if dir == "" {
		if root := repoRoot(); root != "" {
			dir = filepath.Join(root, ".cache", "model", "use-lite")
		}
	}
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, modelFile)); err == nil {
			return dir
		}
	}
	msg := "USE model not found; run: app/embed/fetch-model.sh .cache/model/use-lite (or set ENGRAM_MODEL_DIR)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

var (
	sharedOnce sync.Once
	sharedUSE  *USE
	sharedErr  error
)

// testUSE loads the model once per test binary.
func testUSE(t testing.TB) *USE {
	t.Helper()
	dir := testModelDir(t)
	sharedOnce.Do(func() { sharedUSE, sharedErr = LoadUSE(dir) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedUSE
}

func TestTokenizerMatchesReference(t *testing.T) {
	u := testUSE(t)
	ref := loadReference(t)
	type tc struct {
		text string
		ids  []int32
	}
	var cases []tc
	for _, s := range ref.Sentences {
		cases = append(cases, tc{s.Text, s.IDs})
	}
	for _, s := range ref.Tokens {
		cases = append(cases, tc{s.Text, s.IDs})
	}
	for _, c := range cases {
		t.Run(shortName(c.text), func(t *testing.T) {
			got := u.tok.encode(nil, c.text)
			if !slices.Equal(got, c.ids) && !(len(got) == 0 && len(c.ids) == 0) {
				t.Errorf("encode(%q) = %v, want %v", c.text, got, c.ids)
			}
		})
	}
}

func TestUSEMatchesReference(t *testing.T) {
	u := testUSE(t)
	ref := loadReference(t)
	ctx := context.Background()

	var texts []string
	for _, s := range ref.Sentences {
		texts = append(texts, s.Text)
	}
	batch, err := u.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := float32(2), float32(-2)
	maxDiff := 0.0
	for i, s := range ref.Sentences {
		t.Run(shortName(s.Text), func(t *testing.T) {
			single, err := u.Embed(ctx, []string{s.Text})
			if err != nil {
				t.Fatal(err)
			}
			for _, got := range [][]float32{single[0], batch[i]} {
				if len(got) != u.Dim() {
					t.Fatalf("len = %d, want %d", len(got), u.Dim())
				}
				c := Cosine(got, s.Vector)
				lo, hi = min(lo, c), max(hi, c)
				for j := range got {
					maxDiff = max(maxDiff, math.Abs(float64(got[j]-s.Vector[j])))
				}
				if c < 0.9999 {
					t.Errorf("Embed(%q): cosine to reference = %.6f, want >= 0.9999", shortName(s.Text), c)
				}
			}
		})
	}
	t.Logf("cosine to reference: min %.7f max %.7f; largest element difference %.2g", lo, hi, maxDiff)

	t.Run("empty text", func(t *testing.T) {
		// The reference gives a text without tokens, inside a batch, the
		// pooled-zero vector.
		got, err := u.Embed(ctx, []string{"a", "", "b"})
		if err != nil {
			t.Fatal(err)
		}
		if c := Cosine(got[1], ref.EmptyInBatch); c < 0.9999 {
			t.Errorf("Embed(\"\"): cosine to reference = %.6f, want >= 0.9999", c)
		}
	})
}

func TestUSEConcurrent(t *testing.T) {
	u := testUSE(t)
	ctx := context.Background()
	texts := []string{"the cat sat on the mat", "quarterly revenue grew", "remember my anniversary"}
	want, err := u.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 5 {
				got, err := u.Embed(ctx, texts[g%3:])
				if err != nil {
					t.Error(err)
					return
				}
				for i, v := range got {
					if c := Cosine(v, want[g%3+i]); c < 0.99999 {
						t.Errorf("concurrent Embed: cosine %.6f to the serial result", c)
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestUSEManyTexts(t *testing.T) {
	// More tokens than one forward pass takes: the texts are chunked.
	u := testUSE(t)
	ref := loadReference(t)
	long := ref.Sentences[len(ref.Sentences)-1]
	texts := make([]string, 9)
	for i := range texts {
		texts[i] = long.Text
	}
	texts[4] = ref.Sentences[0].Text
	got, err := u.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		want := long.Vector
		if i == 4 {
			want = ref.Sentences[0].Vector
		}
		if c := Cosine(v, want); c < 0.9999 {
			t.Errorf("text %d: cosine to reference = %.6f", i, c)
		}
	}
}

func TestUSECancelled(t *testing.T) {
	u := testUSE(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := u.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed(cancelled ctx) error = %v, want context.Canceled", err)
	}
}

// TestUSERelatedness is a cheap quality check: a paraphrase scores higher
// than an unrelated sentence.
func TestUSERelatedness(t *testing.T) {
	u := testUSE(t)
	tests := []struct{ query, related, unrelated string }{
		{"How do I reset my password?", "I forgot my login credentials and need to change them.", "The weather in Lisbon is sunny today."},
		{"The user likes dark mode.", "They prefer a dark colour theme in the editor.", "Stock markets fell sharply on Monday."},
		{"Where is the deploy key stored?", "The deployment SSH key is kept in the ops vault.", "My grandmother bakes excellent apple pie."},
		{"What's my favourite food?", "I really love eating sushi.", "The server restarts every night at 3am."},
		{"Meeting with Alice on Friday", "Appointment with Alice at the end of the week", "Bananas are rich in potassium"},
	}
	for _, tc := range tests {
		t.Run(shortName(tc.query), func(t *testing.T) {
			v, err := u.Embed(context.Background(), []string{tc.query, tc.related, tc.unrelated})
			if err != nil {
				t.Fatal(err)
			}
			rel, unrel := Cosine(v[0], v[1]), Cosine(v[0], v[2])
			t.Logf("related %.3f, unrelated %.3f", rel, unrel)
			if rel <= unrel {
				t.Errorf("cosine(%q, related) = %.3f, not above unrelated %.3f", tc.query, rel, unrel)
			}
		})
	}
}

func TestLoadUSEErrors(t *testing.T) {
	dir := testModelDir(t)
	// A model directory with every file linked from the real one, then
	// one damage applied.
	mk := func(t *testing.T, damage func(d string)) string {
		d := t.TempDir()
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if err := os.Symlink(filepath.Join(dir, e.Name()), filepath.Join(d, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		damage(d)
		return d
	}
	replace := func(name string, data []byte) func(string) {
		return func(d string) {
			p := filepath.Join(d, name)
			os.Remove(p)
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	remove := func(name string) func(string) {
		return func(d string) { os.Remove(filepath.Join(d, name)) }
	}
	shard, err := os.ReadFile(filepath.Join(dir, "group1-shard7of7"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		damage func(string)
		want   error
	}{
		{"missing shard", remove("group1-shard3of7"), ErrModelNotFound},
		{"missing vocab", remove(vocabFile), ErrModelNotFound},
		{"missing model.json", remove(modelFile), ErrModelNotFound},
		{"truncated shard", replace("group1-shard7of7", shard[:len(shard)-4]), ErrModelCorrupt},
		{"long shard", replace("group1-shard7of7", append(slices.Clip(shard), 0, 0, 0, 0)), ErrModelCorrupt},
		{"bad model.json", replace(modelFile, []byte(`{"weightsManifest": [`)), ErrModelCorrupt},
		{"bad vocab", replace(vocabFile, []byte(`[["a", "x"]]`)), ErrModelCorrupt},
		{"shard path escapes", replace(modelFile, []byte(`{"weightsManifest":[{"paths":["../x"],"weights":[]}]}`)), ErrModelCorrupt},
		{"quantised", replace(modelFile, []byte(`{"weightsManifest":[{"paths":[],"weights":[{"name":"w","shape":[1],"dtype":"float32","quantization":{"dtype":"uint8"}}]}]}`)), ErrUnsupportedModel},
		{"other model", replace(modelFile, []byte(`{"weightsManifest":[{"paths":[],"weights":[]}]}`)), ErrUnsupportedModel},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadUSE(mk(t, tc.damage))
			if !errors.Is(err, tc.want) {
				t.Errorf("LoadUSE = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestLoadUSEMissingDir(t *testing.T) {
	tests := []struct{ name, dir string }{
		{"empty", ""},
		{"absent", filepath.Join(t.TempDir(), "nope")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := LoadUSE(tc.dir); !errors.Is(err, ErrModelNotFound) {
				t.Errorf("LoadUSE(%q) = %v, want ErrModelNotFound", tc.dir, err)
			}
		})
	}
}

func shortName(s string) string {
	r := []rune(s)
	if len(r) > 24 {
		r = r[:24]
	}
	if len(r) == 0 {
		return "empty"
	}
	return string(r)
}

func TestClipText(t *testing.T) {
	long := strings.Repeat("é", maxTextBytes) // 2 bytes each
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"short", "abc", 3},
		{"exact", strings.Repeat("a", maxTextBytes), maxTextBytes},
		{"rune boundary", "a" + long, maxTextBytes - 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := clipText(tc.in)
			if len(got) != tc.want || !utf8.ValidString(got) {
				t.Errorf("len(clipText(...)) = %d (valid %v), want %d", len(got), utf8.ValidString(got), tc.want)
			}
		})
	}
}

func TestUSEHugeText(t *testing.T) {
	// Only the first 128 tokens count: a huge text embeds like its head.
	u := testUSE(t)
	ref := loadReference(t)
	long := ref.Sentences[len(ref.Sentences)-1]
	huge := strings.Repeat(long.Text+" ", 200) // ~430 KB
	got, err := u.Embed(context.Background(), []string{huge})
	if err != nil {
		t.Fatal(err)
	}
	if c := Cosine(got[0], long.Vector); c < 0.9999 {
		t.Errorf("cosine of huge text to its head's reference = %.6f", c)
	}
}

// TestUSEBackground: background work runs on one goroutine and gives the
// same vectors, bit for bit (each panel is computed the same way
// whichever goroutine computes it).
func TestUSEBackground(t *testing.T) {
	u := testUSE(t)
	ctx := context.Background()
	texts := []string{strings.Repeat("a long memory about the deploy pipeline and its reviewers ", 12), "short note", "日本語のメモ"}
	want, err := u.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for name, bg := range map[string]context.Context{"Background": Background(ctx), "Idle": Idle(ctx)} {
		got, err := u.Embed(bg, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !slices.Equal(got[i], want[i]) {
				t.Errorf("%s: text %d: vector differs from the foreground one", name, i)
			}
		}
	}
	if !background(Background(ctx)) || !background(Idle(ctx)) || idle(Background(ctx)) || background(ctx) {
		t.Error("Background or Idle marks its context wrongly, or an unmarked one reads as marked")
	}
}
