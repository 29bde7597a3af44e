package recall

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// floatBlob is a format 1 blob, as Engram wrote vectors before they were
// stored quantised.
func floatBlob(model, hash string, v []float32) []byte {
	b := []byte{vectorFloat32, byte(len(model))}
	b = append(b, model...)
	b = append(b, byte(len(hash)))
	b = append(b, hash...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(v)))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

func sameQuantised(a, b Quantised) bool {
	return slices.Equal(a.Codes, b.Codes) && slices.Equal(a.Scales, b.Scales)
}

func TestVectorBlob(t *testing.T) {
	v := []float32{0.6, -0.8, 0, 3, 4, 0} // two chunks of 3, the second not unit
	want, ok := Quantise(v, 3)
	if !ok {
		t.Fatal("Quantise refused a usable vector")
	}
	blob := EncodeVector("use-lite-v2", "abc123", 3, v)
	old := floatBlob("use-lite-v2", "abc123", v)
	zeroScale := slices.Clone(blob)
	scales := len(blob) - len(want.Codes) - 4*len(want.Scales)
	binary.LittleEndian.PutUint32(zeroScale[scales:], 0)
	nanScale := slices.Clone(blob)
	binary.LittleEndian.PutUint32(nanScale[scales+4:], math.Float32bits(float32NaN()))
	tests := []struct {
		name        string
		blob        []byte
		model, hash string
		dim         int
		wantOK      bool
		wantErr     error
	}{
		{"round trip", blob, "use-lite-v2", "abc123", 3, true, nil},
		{"format 1", old, "use-lite-v2", "abc123", 3, true, nil},
		{"other model", blob, "other", "abc123", 3, false, nil},
		{"format 1, other model", old, "other", "abc123", 3, false, nil},
		{"other content", blob, "use-lite-v2", "def", 3, false, nil},
		{"other dimension", blob, "use-lite-v2", "abc123", 2, false, ErrVector},
		{"format 1, other dimension", old, "use-lite-v2", "abc123", 4, false, ErrVector},
		{"truncated", blob[:len(blob)-1], "use-lite-v2", "abc123", 3, false, ErrVector},
		{"longer", append(slices.Clone(blob), 0), "use-lite-v2", "abc123", 3, false, ErrVector},
		{"empty", nil, "use-lite-v2", "abc123", 3, false, ErrVector},
		{"unknown format", append([]byte{9}, blob[1:]...), "use-lite-v2", "abc123", 3, false, ErrVector},
		{"zero scale", zeroScale, "use-lite-v2", "abc123", 3, false, ErrVector},
		{"nan scale", nanScale, "use-lite-v2", "abc123", 3, false, ErrVector},
		{"format 1, nan", floatBlob("m", "h", []float32{float32NaN()}), "m", "h", 1, false, ErrVector},
		{"format 1, zero vector", floatBlob("m", "h", []float32{0, 0}), "m", "h", 2, false, ErrVector},
	}
	for _, tc := range tests {
		got, ok, err := DecodeVector(tc.blob, tc.model, tc.hash, tc.dim)
		if ok != tc.wantOK || !errors.Is(err, tc.wantErr) || ok && !sameQuantised(got, want) {
			t.Errorf("%s: DecodeVector = %v, %v, %v; want ok %v, err %v", tc.name, got, ok, err, tc.wantOK, tc.wantErr)
		}
	}
	big := make([]float32, 512)
	for i := range big {
		big[i] = float32(i%7) - 3
	}
	if q, f := len(EncodeVector("m", "h", 512, big)), len(floatBlob("m", "h", big)); 3*q > f {
		t.Errorf("a quantised blob of 512 floats is %d bytes, a float32 one %d", q, f)
	}
	for _, bad := range [][]float32{{float32NaN(), 1, 1}, {0, 0, 0}, {1, 2}, nil} {
		if b := EncodeVector("m", "h", 3, bad); b != nil {
			t.Errorf("EncodeVector(%v) = %v, want nil", bad, b)
		}
	}
}

// TestStoredVectorsIndexedAsEmbedded checks that a vector loaded from its
// blob, of either format, gives the index exactly the codes the embedded
// vector gives it, so recall is the same after a restart.
func TestStoredVectorsIndexedAsEmbedded(t *testing.T) {
	const dim, n = 64, 300
	r := rand.New(rand.NewPCG(5, 6))
	emb := &bagEmbedder{dim: dim}
	fresh, loaded, old := New(DefaultConfig(emb)), New(DefaultConfig(emb)), New(DefaultConfig(emb))
	var embedded, stored, float []DocVector
	for i := range n {
		d := doc(fmt.Sprint("m", i), fmt.Sprint("text number ", i))
		for _, e := range []*Engine{fresh, loaded, old} {
			if err := e.Put(d, nil); err != nil {
				t.Fatal(err)
			}
		}
		v := make([]float32, dim*(1+i%3)) // one to three chunks, not normalised
		for j := range v {
			v[j] = float32(r.NormFloat64() * 3)
		}
		q, ok, err := DecodeVector(EncodeVector("m", "h", dim, v), "m", "h", dim)
		if !ok || err != nil {
			t.Fatalf("round trip: %v, %v", ok, err)
		}
		q1, ok, err := DecodeVector(floatBlob("m", "h", v), "m", "h", dim)
		if !ok || err != nil {
			t.Fatalf("format 1: %v, %v", ok, err)
		}
		embedded = append(embedded, DocVector{ID: d.ID, Content: d.Content, Vec: slices.Clone(v)})
		stored = append(stored, DocVector{ID: d.ID, Content: d.Content, Q: q})
		float = append(float, DocVector{ID: d.ID, Content: d.Content, Q: q1})
	}
	if got := fresh.SetVectors(embedded); got != n {
		t.Fatalf("set %d embedded vectors, want %d", got, n)
	}
	if got := loaded.SetVectors(stored); got != n {
		t.Fatalf("set %d stored vectors, want %d", got, n)
	}
	if got := old.SetVectors(float); got != n {
		t.Fatalf("set %d format 1 vectors, want %d", got, n)
	}
	for _, e := range []*Engine{loaded, old} {
		if !slices.Equal(e.vec.codes, fresh.vec.codes) || !slices.Equal(e.vec.scale, fresh.vec.scale) || !slices.Equal(e.vec.rows, fresh.vec.rows) {
			t.Fatal("the index holds other codes for stored vectors than for the same vectors embedded")
		}
	}
}

func float32NaN() float32 {
	var zero float32
	return zero / zero
}

func FuzzDecodeVector(f *testing.F) {
	f.Add(EncodeVector("use-lite-v2", "abc", 2, []float32{1, 2}), "use-lite-v2", "abc")
	f.Add(floatBlob("use-lite-v2", "abc", []float32{1, 2}), "use-lite-v2", "abc")
	f.Add([]byte{1, 255}, "", "")
	f.Add([]byte{2, 0, 0, 2, 0, 1, 0}, "", "")
	f.Fuzz(func(t *testing.T, blob []byte, model, hash string) {
		q, ok, err := DecodeVector(blob, model, hash, 2)
		if ok && (err != nil || !q.valid(2)) || !ok && q.Codes != nil {
			t.Fatalf("DecodeVector = %v, %v, %v", q, ok, err)
		}
	})
}
