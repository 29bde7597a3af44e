package guard

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/engram-app/engram/app/embed"
)

// The vector model's trainer and evaluation need the USE embedding of every
// corpus text. Embedding the corpus takes half a minute, so the vectors are
// cached in <repo>/.cache/guard-vectors/<embedder name>.bin (gitignored),
// keyed by the SHA-256 of the text. The cache only saves time: deleting it
// reproduces the same vectors, since the embedder is deterministic.
//
// Record format: 32-byte SHA-256 of the text, then vecDim little-endian
// float32 values.

func embedModelDir() string {
	if d := os.Getenv("ENGRAM_MODEL_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", ".cache", "model", "use-lite")
}

func vectorCachePath() string {
	return filepath.Join("..", "..", ".cache", "guard-vectors", VectorModel+".bin")
}

// corpusVectors returns the USE vector of each text, from the cache where it
// can and from the embedder otherwise (appending the new vectors to the
// cache). It skips the test if the model is not installed.
func corpusVectors(t testing.TB, texts []string) [][]float32 {
	t.Helper()
	cache := map[[32]byte][]float32{}
	path := vectorCachePath()
	if data, err := os.ReadFile(path); err == nil {
		const rec = 32 + 4*vecDim
		for off := 0; off+rec <= len(data); off += rec {
			var k [32]byte
			copy(k[:], data[off:])
			v := make([]float32, vecDim)
			for i := range v {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[off+32+4*i:]))
			}
			cache[k] = v
		}
	}
	out := make([][]float32, len(texts))
	var missing []string
	var missIdx []int
	for i, s := range texts {
		if v, ok := cache[sha256.Sum256([]byte(s))]; ok {
			out[i] = v
		} else {
			missing = append(missing, s)
			missIdx = append(missIdx, i)
		}
	}
	if len(missing) == 0 {
		return out
	}
	u, err := embed.LoadUSE(embedModelDir())
	if errors.Is(err, embed.ErrModelNotFound) {
		t.Skipf("embedding model not installed: %v", err)
	}
	if err != nil {
		t.Fatalf("load embedder: %v", err)
	}
	if u.Name() != VectorModel || u.Dim() != vecDim {
		t.Fatalf("embedder %s/%d, the vector model expects %s/%d", u.Name(), u.Dim(), VectorModel, vecDim)
	}
	var buf bytes.Buffer
	const batch = 64
	for lo := 0; lo < len(missing); lo += batch {
		hi := min(lo+batch, len(missing))
		vs, err := u.Embed(context.Background(), missing[lo:hi])
		if err != nil {
			t.Fatalf("embed corpus: %v", err)
		}
		for j, v := range vs {
			k := sha256.Sum256([]byte(missing[lo+j]))
			buf.Write(k[:])
			for _, x := range v {
				binary.Write(&buf, binary.LittleEndian, math.Float32bits(x))
			}
			out[missIdx[lo+j]] = v
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatalf("vector cache: %v", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("vector cache: %v", err)
	}
	if _, err := io.Copy(f, &buf); err != nil {
		f.Close()
		t.Fatalf("vector cache: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("vector cache: %v", err)
	}
	t.Logf("embedded %d texts (cache %s)", len(missing), path)
	return out
}

// TestVectorModelName keeps the guard's idea of the embedder in step with
// the embedder itself.
func TestVectorModelName(t *testing.T) {
	u, err := embed.LoadUSE(embedModelDir())
	if errors.Is(err, embed.ErrModelNotFound) {
		t.Skipf("embedding model not installed: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if u.Name() != VectorModel || u.Dim() != vecDim {
		t.Errorf("embedder is %s/%d, guard.VectorModel is %s/%d", u.Name(), u.Dim(), VectorModel, vecDim)
	}
}
