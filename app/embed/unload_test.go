package embed

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
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

// The tests run in a synctest bubble: Unloading's timer and clock are the
// bubble's fake ones, so an idle time passes in a time.Sleep that takes no
// real time, and synctest.Wait lets the timer's function finish.

// idleFor lets idle pass without a call, and reports whether u still
// holds its model then.
func idleFor(u *Unloading, idle time.Duration) (held bool) {
	time.Sleep(idle)
	synctest.Wait()
	held, _ = u.Loaded()
	return held
}

// waitDropped checks that u drops its model once idle has passed since
// its last use, and not a moment before.
func waitDropped(t *testing.T, u *Unloading, idle time.Duration) {
	t.Helper()
	if !idleFor(u, idle-time.Nanosecond) {
		t.Fatalf("the model was dropped before %v without a call", idle)
	}
	if idleFor(u, time.Nanosecond) {
		t.Fatalf("the model was still held %v after its last use", idle)
	}
}

func TestUnloadingDropsIdleModelAndLoadsItAgain(t *testing.T) {
	synctest.Test(t, testUnloadingDropsIdleModelAndLoadsItAgain)
}

func testUnloadingDropsIdleModelAndLoadsItAgain(t *testing.T) {
	var mu sync.Mutex
	fail := errors.New("disk gone")
	var loadErr error
	const idle = 20 * time.Millisecond
	u := NewUnloading(counting{"m"}, func() (Embedder, error) {
		mu.Lock()
		defer mu.Unlock()
		if loadErr != nil {
			return nil, loadErr
		}
		return counting{"m"}, nil
	}, idle)

	if held, loads := u.Loaded(); !held || loads != 1 {
		t.Fatalf("after NewUnloading: held %v, loads %d; want true, 1", held, loads)
	}
	waitDropped(t, u, idle)
	v, err := u.Embed(t.Context(), []string{"abc"})
	if err != nil || v[0][0] != 3 {
		t.Fatalf("Embed after a drop = %v, %v", v, err)
	}
	if held, loads := u.Loaded(); !held || loads != 2 {
		t.Fatalf("after Embed: held %v, loads %d; want true, 2", held, loads)
	}

	waitDropped(t, u, idle)
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
	synctest.Test(t, testUnloadingRefusesAnotherModel)
}

func testUnloadingRefusesAnotherModel(t *testing.T) {
	u := NewUnloading(counting{"m"}, func() (Embedder, error) { return counting{"other"}, nil }, time.Millisecond)
	waitDropped(t, u, time.Millisecond)
	if _, err := u.Embed(t.Context(), []string{"x"}); err == nil {
		t.Fatal("a reload that yields another model was used")
	}
	if u.Name() != "m" || u.Dim() != 2 {
		t.Fatalf("Name, Dim = %s, %d; want m, 2", u.Name(), u.Dim())
	}
}

// A model in use is never dropped, however long the call takes.
func TestUnloadingKeepsModelInUse(t *testing.T) {
	synctest.Test(t, testUnloadingKeepsModelInUse)
}

func testUnloadingKeepsModelInUse(t *testing.T) {
	const idle = 5 * time.Millisecond
	started, finish := make(chan struct{}, 1), make(chan struct{})
	slow := slowEmbedder{counting{"m"}, started, finish}
	u := NewUnloading(slow, func() (Embedder, error) { return slow, nil }, idle)
	done := make(chan error)
	go func() {
		_, err := u.Embed(context.Background(), []string{"x"})
		done <- err
	}()
	<-started
	// The call lasts ten idle times.
	if held := idleFor(u, 10*idle); !held {
		t.Fatal("the model was dropped during a call")
	}
	if _, loads := u.Loaded(); loads != 1 {
		t.Fatalf("during a call: %d loads, want 1", loads)
	}
	close(finish)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitDropped(t, u, idle)
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
