package recall

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/kelindar/search"
)

// vectorIndex is an exact cosine index over the engine's slots. The
// underlying index cannot delete, so a removed or replaced document stays
// in it as a tombstone (its slot no longer live) until the engine
// rebuilds it.
type vectorIndex struct {
	idx  *search.Index[uint32]
	dead int // tombstones in idx
}

func newVectorIndex() *vectorIndex { return &vectorIndex{idx: search.NewIndex[uint32]()} }

// add indexes v under slot. The index keeps v and normalises it in place.
func (x *vectorIndex) add(slot uint32, v []float32) { x.idx.Add(v, slot) }

func (x *vectorIndex) len() int { return x.idx.Len() }

// search returns up to k nearest slots for which keep is true, best
// first. It asks the index for more than k when tombstones or keep may
// discard some, doubling until it has k or has seen everything.
func (x *vectorIndex) search(q []float32, k int, keep func(slot uint32) bool) []search.Result[uint32] {
	n := x.idx.Len()
	if k <= 0 || n == 0 {
		return nil
	}
	want := min(k+x.dead, n)
	for {
		query := append([]float32(nil), q...) // Search normalises in place
		res := x.idx.Search(query, want)
		out := res[:0]
		for _, r := range res {
			if keep(r.Value) {
				out = append(out, r)
			}
		}
		if len(out) >= k || want >= n {
			return out[:min(k, len(out))]
		}
		want = min(want*4, n)
	}
}

// Vector blobs, as the memory service stores them in the vault:
//
//	0x01 | len(model) (1 byte) | model | len(hash) (1 byte) | content hash | dim (uint16 LE) | dim × float32 LE
//
// The model name and content hash say which embedder made the vector and
// from which text; a blob that matches neither is stale and re-embedded.
const vectorFormat = 1

// EncodeVector encodes v as a blob for model and the memory's content hash.
func EncodeVector(model, contentHash string, v []float32) []byte {
	b := make([]byte, 0, 5+len(model)+len(contentHash)+4*len(v))
	b = append(b, vectorFormat, byte(len(model)))
	b = append(b, model...)
	b = append(b, byte(len(contentHash)))
	b = append(b, contentHash...)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(v)))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

// DecodeVector decodes a blob made by EncodeVector. It returns an error
// wrapping ErrVector for a damaged blob, and ok false for a well-formed
// blob of another model or another content hash.
func DecodeVector(blob []byte, model, contentHash string) (v []float32, ok bool, err error) {
	bad := fmt.Errorf("%w: damaged vector blob", ErrVector)
	field := func() (string, bool) {
		if len(blob) < 1 || len(blob) < 1+int(blob[0]) {
			return "", false
		}
		s := string(blob[1 : 1+int(blob[0])])
		blob = blob[1+int(blob[0]):]
		return s, true
	}
	if len(blob) < 1 || blob[0] != vectorFormat {
		return nil, false, bad
	}
	blob = blob[1:]
	gotModel, ok1 := field()
	gotHash, ok2 := field()
	if !ok1 || !ok2 || len(blob) < 2 {
		return nil, false, bad
	}
	dim := int(binary.LittleEndian.Uint16(blob))
	blob = blob[2:]
	if len(blob) != 4*dim {
		return nil, false, bad
	}
	if gotModel != model || gotHash != contentHash {
		return nil, false, nil
	}
	v = make([]float32, dim)
	for i := range v {
		f := math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:]))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return nil, false, bad
		}
		v[i] = f
	}
	return v, true, nil
}
