package embed

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
)

// Embedder turns texts into vectors whose cosine similarity reflects how
// related the texts are.
type Embedder interface {
	// Embed returns one L2-normalised vector of length Dim per text, in
	// the order given. It fails as a whole or not at all.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dim is the length of every vector.
	Dim() int
	// Name is a stable identifier of the model and its numerics. Vectors
	// are only comparable under the same Name; a stored index must be
	// rebuilt when it changes.
	Name() string
}

var (
	_ Embedder = (*USE)(nil)
	_ Embedder = (*OpenAI)(nil)
)

// Cosine returns the cosine similarity of a and b, in [-1, 1], or 0 if
// either is all zeros. For L2-normalised vectors it equals the dot product.
// It panics if the lengths differ, like an out-of-range index: mixing
// dimensions is a programming error (compare Embedder.Name first).
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) {
		panic(ErrDimension)
	}
	var ab, aa, bb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		ab += x * y
		aa += x * x
		bb += y * y
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return float32(ab / math.Sqrt(aa*bb))
}

// normalize scales v to unit L2 norm in place; an all-zero v is left as is.
func normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}

// DefaultModelDir is where LoadUSE looks by default: $ENGRAM_MODEL_DIR if
// set, else <data dir>/models/use-lite, where the data directory is
// $ENGRAM_HOME, else $XDG_DATA_HOME/engram, else ~/.local/share/engram. It
// returns "" if none of these can be determined.
func DefaultModelDir() string {
	if d := os.Getenv("ENGRAM_MODEL_DIR"); d != "" {
		return d
	}
	data := os.Getenv("ENGRAM_HOME")
	if data == "" {
		if x := os.Getenv("XDG_DATA_HOME"); x != "" {
			data = filepath.Join(x, "engram")
		} else if home, err := os.UserHomeDir(); err == nil && home != "" {
			data = filepath.Join(home, ".local", "share", "engram")
		} else {
			return ""
		}
	}
	return filepath.Join(data, "models", "use-lite")
}

type backgroundKey struct{}

// Background marks ctx as background work (embedding stored memories
// rather than answering a query): an embedder that can spread a batch
// over several cores runs it on one, and leaves the others to requests.
func Background(ctx context.Context) context.Context {
	return context.WithValue(ctx, backgroundKey{}, true)
}

func background(ctx context.Context) bool {
	b, _ := ctx.Value(backgroundKey{}).(bool)
	return b || idle(ctx)
}

type idleKey struct{}

// Idle marks ctx as background work that may wait for an idle CPU: [USE]
// runs it on one OS thread of the lowest scheduling class (SCHED_IDLE on
// Linux, normal priority elsewhere), which the kernel runs only when no
// other thread wants a core. It implies [Background].
//
// A thread so demoted still holds one of the Go scheduler's Ps while the
// kernel holds it back, so a process using Idle should run with
// GOMAXPROCS above the number of cores.
func Idle(ctx context.Context) context.Context {
	return context.WithValue(ctx, idleKey{}, true)
}

func idle(ctx context.Context) bool {
	b, _ := ctx.Value(idleKey{}).(bool)
	return b
}

// onIdleThread runs f on a new goroutine locked to its own OS thread,
// demoted by idleThread. The goroutine ends without unlocking, so the
// demoted thread ends with it and never runs other goroutines.
func onIdleThread(f func() ([][]float32, error)) ([][]float32, error) {
	type result struct {
		v   [][]float32
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		_ = idleThread() // if the kernel refuses, the work runs at normal priority
		v, err := f()
		done <- result{v, err}
	}()
	r := <-done
	return r.v, r.err
}
