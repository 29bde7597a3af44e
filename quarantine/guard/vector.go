package guard

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"unicode"
)

// VectorModel is the name of the embedder whose vectors the semantic
// injection model reads (app/embed's USE Lite, Embedder.Name). Input.Vector
// is used only when Input.VectorModel equals it and the vector has the
// right length; any other vector is ignored, since a linear model over one
// embedding space means nothing in another.
const VectorModel = "use-lite-v2"

// vecDim is the length of VectorModel's vectors.
const vecDim = 512

// The semantic injection model is a logistic regression over the
// L2-normalised sentence embedding of the text. It is trained offline by
// TestTrainVector (vector_train_test.go) and shipped as vecmodel.bin:
//
//	magic "EGIV", version uint32 = 1, dim uint32, bias float32, then dim
//	float32 weights, all little-endian.
//
//go:embed vecmodel.bin
var vecModelBin []byte

const (
	vecMagic   = "EGIV"
	vecVersion = 1
)

type vecModel struct {
	bias float32
	w    []float32
}

var loadVecModel = sync.OnceValues(func() (*vecModel, error) { return decodeVecModel(vecModelBin) })

func decodeVecModel(raw []byte) (*vecModel, error) {
	const head = 4 + 4*3
	if len(raw) < head || string(raw[:4]) != vecMagic {
		return nil, fmt.Errorf("decode vector model: %w: bad header", ErrBadModel)
	}
	le := binary.LittleEndian
	if v := le.Uint32(raw[4:]); v != vecVersion {
		return nil, fmt.Errorf("decode vector model: %w: version %d", ErrBadModel, v)
	}
	if d := le.Uint32(raw[8:]); d != vecDim || len(raw) != head+4*vecDim {
		return nil, fmt.Errorf("decode vector model: %w: shape %d, %d bytes", ErrBadModel, d, len(raw))
	}
	m := &vecModel{bias: math.Float32frombits(le.Uint32(raw[12:])), w: make([]float32, vecDim)}
	for i := range m.w {
		m.w[i] = math.Float32frombits(le.Uint32(raw[head+4*i:]))
	}
	return m, nil
}

// encodeVecModel is the inverse of decodeVecModel (used by the trainer).
func encodeVecModel(bias float32, w []float32) []byte {
	le := binary.LittleEndian
	raw := make([]byte, 16+4*len(w))
	copy(raw, vecMagic)
	le.PutUint32(raw[4:], vecVersion)
	le.PutUint32(raw[8:], uint32(len(w)))
	le.PutUint32(raw[12:], math.Float32bits(bias))
	for i, x := range w {
		le.PutUint32(raw[16+4*i:], math.Float32bits(x))
	}
	return raw
}

// predict returns the model's probability that the text whose embedding is
// v is an injection.
func (m *vecModel) predict(v []float32) float64 {
	z := m.bias
	for i, x := range v[:len(m.w)] {
		z += m.w[i] * x
	}
	return sigmoid(float64(z))
}

// usableVector reports whether in carries a vector the semantic model can
// read.
func usableVector(in Input) bool {
	if in.VectorModel != VectorModel || len(in.Vector) != vecDim || !vectorReadable(in.Text) {
		return false
	}
	for _, x := range in.Vector {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// vectorReadable reports whether text is mostly in the Latin script. USE
// Lite's vocabulary is English: text in other scripts falls apart into
// rare pieces whose vectors say nothing about meaning, and the vector
// model's verdict on them would be noise. It looks at the first 2 KB (the
// model reads no more than 128 tokens anyway).
func vectorReadable(text string) bool {
	if len(text) > 2048 {
		text = text[:2048]
	}
	latin, other := 0, 0
	for _, r := range text {
		switch {
		case r < 0x80:
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				latin++
			}
		case r < 0x250: // Latin-1 Supplement and Latin Extended
			latin++
		case unicode.IsLetter(r):
			other++
		}
	}
	return latin > 0 && other*10 <= latin
}
