package embed

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// counting is an Embedder that returns len(text) in its first dimension.
type counting struct{ name string }

func (c counting) Name() string { return c.name }
func (c counting) Dim() int     { return 2 }
func (c counting) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 0}
	}
	return out, nil
}

func waitDropped(t *testing.T, u *Unloading) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if held, _ := u.Loaded(); !held {
			return
		}
	}
	t.Fatal("the model was still held 5 s after its last use")
}

func TestUnloadingDropsIdleModelAndLoadsItAgain(t *testing.T) {
	var mu sync.Mutex
	fail := errors.New("disk gone")
	var loadErr error
	u := NewUnloading(counting{"m"}, func() (Embedder, error) {
		mu.Lock()
		defer mu.Unlock()
		if loadErr != nil {
			return nil, loadErr
		}
		return counting{"m"}, nil
	}, 20*time.Millisecond)

	if held, loads := u.Loaded(); !held || loads != 1 {
		t.Fatalf("after NewUnloading: held %v, loads %d; want true, 1", held, loads)
	}
	waitDropped(t, u)
	v, err := u.Embed(t.Context(), []string{"abc"})
	if err != nil || v[0][0] != 3 {
		t.Fatalf("Embed after a drop = %v, %v", v, err)
	}
	if held, loads := u.Loaded(); !held || loads != 2 {
		t.Fatalf("after Embed: held %v, loads %d; want true, 2", held, loads)
	}

	waitDropped(t, u)
	mu.Lock()
	loadErr = fail
	mu.Unlock()
	if _, err := u.Embed(t.Context(), []string{"x"}); !errors.Is(err, fail) {
		t.Fatalf("Embed with a failing load: err %v, want it to wrap %v", err, fail)
	}
	mu.Lock()
	loadErr = nil
	mu.Unlock()
	if _, err := u.Embed(t.Context(), []string{"x"}); err != nil {
		t.Fatalf("Embed once the load works again: %v", err)
	}
}

func TestUnloadingRefusesAnotherModel(t *testing.T) {
	u := NewUnloading(counting{"m"}, func() (Embedder, error) { return counting{"other"}, nil }, time.Millisecond)
	waitDropped(t, u)
	if _, err := u.Embed(t.Context(), []string{"x"}); err == nil {
		t.Fatal("a reload that yields another model was used")
	}
	if u.Name() != "m" || u.Dim() != 2 {
		t.Fatalf("Name, Dim = %s, %d; want m, 2", u.Name(), u.Dim())
	}
}

// A model in use is never dropped, however long the call takes.
func TestUnloadingKeepsModelInUse(t *testing.T) {
	started, finish := make(chan struct{}, 1), make(chan struct{})
	slow := slowEmbedder{counting{"m"}, started, finish}
	u := NewUnloading(slow, func() (Embedder, error) { return slow, nil }, 5*time.Millisecond)
	done := make(chan error)
	go func() {
		_, err := u.Embed(context.Background(), []string{"x"})
		done <- err
	}()
	<-started
	time.Sleep(50 * time.Millisecond)
	if held, loads := u.Loaded(); !held || loads != 1 {
		t.Fatalf("during a call: held %v, loads %d; want true, 1", held, loads)
	}
	close(finish)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitDropped(t, u)
}

type slowEmbedder struct {
	counting
	started, finish chan struct{}
}

func (s slowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case s.started <- struct{}{}:
	default:
	}
	<-s.finish
	return s.counting.Embed(ctx, texts)
}
