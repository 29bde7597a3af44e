package recall

import (
	"errors"
	"slices"
	"testing"
)

func TestVectorBlob(t *testing.T) {
	v := []float32{0.6, -0.8, 0}
	blob := EncodeVector("use-lite-v2", "abc123", v)
	tests := []struct {
		name        string
		blob        []byte
		model, hash string
		wantOK      bool
		wantErr     error
	}{
		{"round trip", blob, "use-lite-v2", "abc123", true, nil},
		{"other model", blob, "other", "abc123", false, nil},
		{"other content", blob, "use-lite-v2", "def", false, nil},
		{"truncated", blob[:len(blob)-1], "use-lite-v2", "abc123", false, ErrVector},
		{"empty", nil, "use-lite-v2", "abc123", false, ErrVector},
		{"unknown format", append([]byte{9}, blob[1:]...), "use-lite-v2", "abc123", false, ErrVector},
		{"nan", EncodeVector("m", "h", []float32{float32NaN()}), "m", "h", false, ErrVector},
	}
	for _, tc := range tests {
		got, ok, err := DecodeVector(tc.blob, tc.model, tc.hash)
		if ok != tc.wantOK || !errors.Is(err, tc.wantErr) || ok && !slices.Equal(got, v) {
			t.Errorf("%s: DecodeVector = %v, %v, %v; want ok %v, err %v", tc.name, got, ok, err, tc.wantOK, tc.wantErr)
		}
	}
}

func float32NaN() float32 {
	var zero float32
	return zero / zero
}

func FuzzDecodeVector(f *testing.F) {
	f.Add(EncodeVector("use-lite-v2", "abc", []float32{1, 2}), "use-lite-v2", "abc")
	f.Add([]byte{1, 255}, "", "")
	f.Fuzz(func(t *testing.T, blob []byte, model, hash string) {
		v, ok, err := DecodeVector(blob, model, hash)
		if ok && err != nil || !ok && v != nil {
			t.Fatalf("DecodeVector = %v, %v, %v", v, ok, err)
		}
	})
}
