package guard

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"unicode"
)

// The injection model is a logistic regression over hashed features:
// character 3- to 5-grams and word 1- and 2-grams of the lower-cased text
// (binary, L2-normalised), plus dense features from the pattern and
// heuristic layers. It is trained offline by TestTrain (train_test.go) from
// the labelled corpus and shipped as model.bin:
//
//	magic "EGIM", version uint32 = 1, hashBits uint32, dense uint32,
//	bias float32, scale float32, then 2^hashBits + dense int16 weights
//	(weight = int16 * scale), all little-endian, the whole gzip-compressed.
//
//go:embed model.bin
var modelBin []byte

const (
	modelMagic   = "EGIM"
	modelVersion = 1
	hashBits     = 18
	hashDim      = 1 << hashBits
	// Dense features: one per layer-1 pattern, then decodedB64, high
	// entropy, many agents, imperative density, hidden text, hidden
	// instruction.
	denseDim = 80
)

type model struct {
	bias float32
	w    []float32 // hashDim + denseDim
	cfg  featureSet
}

// featureSet selects feature groups. The shipped model uses all of them;
// the trainer's experiments switch groups off to measure what each adds.
type featureSet struct {
	noChars, noWords, noDense bool
}

// loadModel decodes the embedded model once; the result is immutable and
// shared by every Guard.
var loadModel = sync.OnceValues(func() (*model, error) { return decodeModel(modelBin) })

func decodeModel(data []byte) (*model, error) {
	raw, err := gunzipModel("model", data)
	if err != nil {
		return nil, err
	}
	const head = 4 + 4*5
	if len(raw) < head || string(raw[:4]) != modelMagic {
		return nil, fmt.Errorf("decode model: %w: bad header", ErrBadModel)
	}
	le := binary.LittleEndian
	if v := le.Uint32(raw[4:]); v != modelVersion {
		return nil, fmt.Errorf("decode model: %w: version %d", ErrBadModel, v)
	}
	if hb, dd := le.Uint32(raw[8:]), le.Uint32(raw[12:]); hb != hashBits || dd != denseDim {
		return nil, fmt.Errorf("decode model: %w: shape %d/%d", ErrBadModel, hb, dd)
	}
	m := &model{bias: math.Float32frombits(le.Uint32(raw[16:]))}
	n := hashDim + denseDim
	if len(raw) != head+2*n {
		return nil, fmt.Errorf("decode model: %w: %d bytes", ErrBadModel, len(raw))
	}
	m.w = int16Weights(raw[head:], n, math.Float32frombits(le.Uint32(raw[20:])))
	return m, nil
}

// encodeModel is the inverse of decodeModel (used by the trainer).
func encodeModel(bias float32, w []float32) []byte {
	scale := weightScale(w)
	le := binary.LittleEndian
	raw := make([]byte, 24, 24+2*len(w))
	copy(raw, modelMagic)
	le.PutUint32(raw[4:], modelVersion)
	le.PutUint32(raw[8:], hashBits)
	le.PutUint32(raw[12:], denseDim)
	le.PutUint32(raw[16:], math.Float32bits(bias))
	le.PutUint32(raw[20:], math.Float32bits(scale))
	return gzipBest(appendInt16Weights(raw, w, scale))
}

// The shipped weights files (model.bin, secretmodel.bin) share their
// packing: a header, then int16 weights times one float32 scale, all
// gzip-compressed.

// gunzipModel reads a gzip-compressed weights file whole.
func gunzipModel(what string, data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w: %v", what, ErrBadModel, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w: %v", what, ErrBadModel, err)
	}
	return raw, nil
}

// int16Weights decodes n little-endian int16 weights times scale.
func int16Weights(raw []byte, n int, scale float32) []float32 {
	w := make([]float32, n)
	for i := range w {
		w[i] = float32(int16(binary.LittleEndian.Uint16(raw[2*i:]))) * scale
	}
	return w
}

// weightScale is the scale that maps w's largest magnitude to 32767.
func weightScale(w []float32) float32 {
	maxAbs := float32(0)
	for _, x := range w {
		if a := float32(math.Abs(float64(x))); a > maxAbs {
			maxAbs = a
		}
	}
	if maxAbs == 0 {
		return 1
	}
	return maxAbs / 32767
}

// appendInt16Weights appends w as int16 at scale to raw.
func appendInt16Weights(raw []byte, w []float32, scale float32) []byte {
	for _, x := range w {
		raw = binary.LittleEndian.AppendUint16(raw, uint16(int16(math.Round(float64(x/scale)))))
	}
	return raw
}

// gzipBest compresses raw at the best compression.
func gzipBest(raw []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(raw)
	zw.Close()
	return buf.Bytes()
}

// feature is one non-zero entry of a feature vector.
type feature struct {
	i int32
	v float32
}

// featurize turns text and its signals into a sparse vector.
func featurize(text string, s signals, cfg featureSet) []feature {
	norm := normalizeForModel(text)
	// Distinct hashed indices; a bitmap from a pool deduplicates them
	// without sorting, and only the set bits are cleared afterwards.
	seen := bitmapPool.Get().(*[hashDim / 64]uint64)
	defer bitmapPool.Put(seen)
	idx := make([]int32, 0, 3*len(norm)+64)
	addIdx := func(i int32) {
		w, bit := i>>6, uint64(1)<<(i&63)
		if seen[w]&bit == 0 {
			seen[w] |= bit
			idx = append(idx, i)
		}
	}
	// Character n-grams, namespace 'c'.
	b := []byte(norm)
	for n := 3; n <= 5 && !cfg.noChars; n++ {
		for i := 0; i+n <= len(b); i++ {
			addIdx(hashFeature('c'+byte(n), b[i:i+n]))
		}
	}
	// Word unigrams and bigrams, namespace 'w' and 'b'.
	if !cfg.noWords {
		words := strings.FieldsFunc(norm, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
		for i, w := range words {
			addIdx(hashFeature('w', []byte(w)))
			if i > 0 {
				addIdx(hashFeature2('b', words[i-1], w))
			}
		}
	}
	for _, i := range idx {
		seen[i>>6] = 0
	}
	fs := make([]feature, 0, len(idx)+denseDim)
	if len(idx) > 0 {
		v := float32(1 / math.Sqrt(float64(len(idx))))
		for _, i := range idx {
			fs = append(fs, feature{i, v})
		}
	}
	if cfg.noDense {
		return fs
	}
	for _, p := range s.patterns {
		fs = append(fs, feature{int32(hashDim + p), 1})
	}
	d := hashDim + len(injectionPatterns)
	if s.decodedB64 {
		fs = append(fs, feature{int32(d), 1})
	}
	if s.entropy > entropyLimit {
		fs = append(fs, feature{int32(d + 1), 1})
	}
	if s.agents > agentLimit {
		fs = append(fs, feature{int32(d + 2), 1})
	}
	if s.sentences >= 2 {
		fs = append(fs, feature{int32(d + 3), float32(s.imperative)})
	}
	if len(s.hidden) > 0 {
		fs = append(fs, feature{int32(d + 4), 1})
	}
	if s.hiddenInstruction {
		fs = append(fs, feature{int32(d + 5), 1})
	}
	return fs
}

// normalizeForModel lower-cases text and collapses white space, padding
// with spaces so word edges are visible to the character n-grams.
func normalizeForModel(text string) string {
	var sb strings.Builder
	sb.Grow(len(text) + 2)
	sb.WriteByte(' ')
	space := true
	for _, r := range text {
		if unicode.IsSpace(r) {
			if !space {
				sb.WriteByte(' ')
				space = true
			}
			continue
		}
		sb.WriteRune(unicode.ToLower(r))
		space = false
	}
	if !space {
		sb.WriteByte(' ')
	}
	return sb.String()
}

var bitmapPool = sync.Pool{New: func() any { return new([hashDim / 64]uint64) }}

// hashFeature2 hashes two words joined by a space, as hashFeature would.
func hashFeature2(ns byte, a, b string) int32 {
	h := uint32(2166136261)
	h ^= uint32(ns)
	h *= 16777619
	for i := 0; i < len(a); i++ {
		h ^= uint32(a[i])
		h *= 16777619
	}
	h ^= ' '
	h *= 16777619
	for i := 0; i < len(b); i++ {
		h ^= uint32(b[i])
		h *= 16777619
	}
	return int32(h & (hashDim - 1))
}

// hashFeature is FNV-1a over a namespace byte and the feature bytes.
func hashFeature(ns byte, b []byte) int32 {
	h := uint32(2166136261)
	h ^= uint32(ns)
	h *= 16777619
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return int32(h & (hashDim - 1))
}

func (m *model) score(fs []feature) float64 {
	z := float64(m.bias)
	for _, f := range fs {
		z += float64(m.w[f.i] * f.v)
	}
	return z
}

func sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// predict returns the model's probability that text is an injection.
func (m *model) predict(text string, s signals) float64 {
	return sigmoid(m.score(featurize(text, s, m.cfg)))
}
