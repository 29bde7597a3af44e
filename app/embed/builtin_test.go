package embed

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The pinned hashes in Go and in fetch-model.sh are one list written
// twice: the script checks a download, LoadBuiltin checks at start.
func TestPinnedMatchesFetchScript(t *testing.T) {
	f, err := os.Open("fetch-model.sh")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	script := map[string]string{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "FILES='"); ok {
			line, in = rest, true
		}
		if !in {
			continue
		}
		end := strings.HasSuffix(line, "'")
		name, sum, ok := strings.Cut(strings.TrimSuffix(line, "'"), " ")
		if !ok {
			t.Fatalf("fetch-model.sh: FILES line %q is not NAME SHA256", line)
		}
		script[filepath.Base(name)] = sum
		if end {
			break
		}
	}
	if len(script) != len(pinned) {
		t.Errorf("fetch-model.sh pins %d files, pinned %d", len(script), len(pinned))
	}
	for name, sum := range pinned {
		if script[name] != sum {
			t.Errorf("%s: pinned %s, fetch-model.sh %q", name, sum, script[name])
		}
	}
}

func TestBuiltinLocation(t *testing.T) {
	t.Setenv("ENGRAM_MODEL_DIR", "/models/x")
	if got := BuiltinLocation("/given"); got != "/given" {
		t.Errorf("BuiltinLocation(%q) = %q, want the directory given", "/given", got)
	}
	if got := BuiltinLocation(""); got != "/models/x" {
		t.Errorf("BuiltinLocation(\"\") with ENGRAM_MODEL_DIR = %q, want /models/x", got)
	}
	t.Setenv("ENGRAM_MODEL_DIR", "")
	t.Setenv("ENGRAM_HOME", "/data")
	want := "/data/models/use-lite"
	if HasEmbedded() {
		want = Embedded
	}
	if got := BuiltinLocation(""); got != want {
		t.Errorf("BuiltinLocation(\"\") = %q, want %q", got, want)
	}
}

func TestLoadBuiltin(t *testing.T) {
	dir := testModelDir(t)
	u, info, err := LoadBuiltin(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := (ModelInfo{Name: u.Name(), Location: dir, Verified: true}); info != want {
		t.Errorf("LoadBuiltin(%q) info = %+v, want %+v", dir, info, want)
	}
	if got, err := VerifyBuiltin(dir); got != info || err != nil {
		t.Errorf("VerifyBuiltin(%q) = %+v, %v, want %+v", dir, got, err, info)
	}
	ref := testUSE(t)
	for _, text := range []string{"The team indents with tabs", "which package manager do we use?"} {
		if got, want := embedOne(t, u, text), embedOne(t, ref, text); Cosine(got, want) < 0.99999 {
			t.Errorf("LoadBuiltin's vector of %q differs from LoadUSE's: cosine %v", text, Cosine(got, want))
		}
	}
}

func TestLoadBuiltinRefuses(t *testing.T) {
	dir := testModelDir(t)
	// A copy of the model (links to the real files) with one damage.
	mk := func(t *testing.T, damage func(d string)) string {
		d := t.TempDir()
		for name := range pinned {
			if err := os.Symlink(filepath.Join(dir, name), filepath.Join(d, name)); err != nil {
				t.Fatal(err)
			}
		}
		damage(d)
		return d
	}
	flip := func(name string) func(string) {
		return func(d string) {
			p := filepath.Join(d, name)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 1 // same size, still parses: only the hash tells
			os.Remove(p)
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name   string
		damage func(string)
		want   error
		names  string // the file the error must name
	}{
		{"one bit of a shard", flip("group1-shard3of7"), ErrModelCorrupt, "group1-shard3of7"},
		{"one bit of the licence", flip("LICENSE"), ErrModelCorrupt, "LICENSE"},
		{"missing vocab", func(d string) { os.Remove(filepath.Join(d, vocabFile)) }, ErrModelNotFound, vocabFile},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mk(t, tc.damage)
			if info, err := VerifyBuiltin(d); !errors.Is(err, tc.want) || info.Verified {
				t.Errorf("VerifyBuiltin = %+v, %v, want %v", info, err, tc.want)
			}
			u, info, err := LoadBuiltin(d)
			if !errors.Is(err, tc.want) || u != nil {
				t.Fatalf("LoadBuiltin = %v, %v, want %v", u, err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.names) {
				t.Errorf("error %q does not name %s", err, tc.names)
			}
			if info.Verified || info.Location != d || info.Name == "" {
				t.Errorf("info = %+v, want unverified, at %s, named", info, d)
			}
		})
	}
	if _, _, err := LoadBuiltin(filepath.Join(t.TempDir(), "absent")); !errors.Is(err, ErrModelNotFound) {
		t.Errorf("LoadBuiltin(absent dir) = %v, want ErrModelNotFound", err)
	}
}

func embedOne(t *testing.T, e Embedder, text string) []float32 {
	t.Helper()
	v, err := e.Embed(t.Context(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

// BenchmarkLoadBuiltin is the model's share of start-up: read, check the
// pinned hashes, parse and pack, against BenchmarkLoadUSE without the
// check (go test -bench 'LoadBuiltin|LoadUSE'; with -tags
// engram_model and ENGRAM_MODEL_DIR unset for the embedded copy).
func BenchmarkLoadBuiltin(b *testing.B) {
	dir := ""
	if !HasEmbedded() {
		dir = testModelDir(b)
	}
	for b.Loop() {
		if _, _, err := LoadBuiltin(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyBuiltin is what engram doctor spends on the model.
func BenchmarkVerifyBuiltin(b *testing.B) {
	dir := ""
	if !HasEmbedded() {
		dir = testModelDir(b)
	}
	for b.Loop() {
		if _, err := VerifyBuiltin(dir); err != nil {
			b.Fatal(err)
		}
	}
}
