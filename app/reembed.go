package app

import (
	"cmp"
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

// EmbedProgress reports the background embedding of the memories that
// have no vector for the current embedding model: after the model
// changed, after an import, or where an earlier run was stopped.
type EmbedProgress struct {
	Model   string `json:"model,omitempty"`
	Done    int    `json:"done"`  // memories embedded (or found changed) so far
	Total   int    `json:"total"` // memories the run started with
	Running bool   `json:"running"`
	// Loading is set while the vectors stored in the vault are loaded,
	// before Total is known.
	Loading bool `json:"loading,omitempty"`
	// Err says why the last run stopped early; it resumes at the next
	// index build (a restart), from the memories still without a vector.
	Err string `json:"err,omitempty"`
}

// embedJob is the state of the background embedding.
type embedJob struct {
	mu       sync.Mutex
	progress EmbedProgress
	cancel   context.CancelFunc
	done     chan struct{} // closed when the current run ends; nil before any
	err      error
	closed   bool // Close ran: no more runs start
}

// toEmbed is a memory waiting for its vector.
type toEmbed struct {
	id, content, hash string
	accessed          time.Time
}

// EmbedProgress returns the progress of the background embedding. The
// desktop app and the CLI poll it; Done reaching Total with Running false
// means every memory that can have a vector has one.
func (s *Service) EmbedProgress() EmbedProgress {
	s.embedding.mu.Lock()
	defer s.embedding.mu.Unlock()
	return s.embedding.progress
}

// WaitEmbedded waits until the first index build is done and the
// background embedding it started has finished, and returns the
// embedding's error, if any.
func (s *Service) WaitEmbedded(ctx context.Context) error {
	if err := s.WaitIndexed(ctx); err != nil {
		return err
	}
	if err := s.WaitVectors(ctx); err != nil {
		return err
	}
	s.embedding.mu.Lock()
	done := s.embedding.done
	s.embedding.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.embedding.mu.Lock()
	defer s.embedding.mu.Unlock()
	return s.embedding.err
}

// startEmbedding loads the stored vectors of todo in the background,
// then embeds the memories left without one, most recently used first,
// and gives each its vector in the index and in the vault as its batch is
// done. Recall keeps working meanwhile: a memory without a vector is
// found by keyword (and takes its keyword score for the vector part in
// hybrid fusion). Vectors of another model are never loaded, so a
// similarity never compares two models' vectors. Stopped by
// stopEmbedding (Close, or the next index build); what was stored stays,
// so the next build resumes with the rest.
func (s *Service) startEmbedding(model string, todo []toEmbed) {
	j := &s.embedding
	j.mu.Lock()
	defer j.mu.Unlock()
	j.progress = EmbedProgress{Model: model, Running: len(todo) > 0, Loading: len(todo) > 0}
	j.err = nil
	if j.closed || len(todo) == 0 {
		j.progress.Running, j.progress.Loading = false, false
		j.done = nil
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	j.cancel, j.done = cancel, done
	go func() {
		defer close(done)
		todo, err := s.attachStored(ctx, model, todo)
		if err == nil {
			j.mu.Lock()
			j.progress.Loading, j.progress.Total = false, len(todo)
			j.mu.Unlock()
			slices.SortStableFunc(todo, func(a, b toEmbed) int { return b.accessed.Compare(a.accessed) })
			err = s.embedAll(ctx, model, todo)
		}
		j.mu.Lock()
		defer j.mu.Unlock()
		j.progress.Running, j.progress.Loading = false, false
		if err != nil {
			j.err = err
			j.progress.Err = err.Error()
			if !errors.Is(err, context.Canceled) {
				s.log.Error("recall: background embedding stopped", "err", err, "done", j.progress.Done, "total", j.progress.Total)
			}
		}
	}()
}

// stopEmbedding stops the background embedding and waits for it. With
// final (Close), no other run starts afterwards.
func (s *Service) stopEmbedding(final bool) {
	j := &s.embedding
	j.mu.Lock()
	if final {
		j.closed = true
	}
	cancel, done := j.cancel, j.done
	j.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// embedAll embeds todo in batches spread over the CPUs. It stops at the
// first error.
func (s *Service) embedAll(ctx context.Context, model string, todo []toEmbed) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	batches := make(chan []toEmbed)
	var wg sync.WaitGroup
	// Each batch on one core, on all cores but one: the app and the
	// agents keep a core while a whole vault is embedded again.
	ctx = embed.Background(ctx)
	for range max(1, runtime.GOMAXPROCS(0)-1) {
		wg.Go(func() {
			for batch := range batches {
				if err := s.embedBatch(ctx, model, batch); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for start := 0; start < len(todo); start += vectorBatch {
		select {
		case batches <- todo[start:min(start+vectorBatch, len(todo))]:
		case <-ctx.Done():
			break feed
		}
	}
	close(batches)
	wg.Wait()
	return context.Cause(ctx)
}

// embedBatch embeds one batch, sets the vectors of the memories that have
// not changed meanwhile and stores them.
func (s *Service) embedBatch(ctx context.Context, model string, batch []toEmbed) error {
	texts := make([]string, len(batch))
	for i, m := range batch {
		texts[i] = m.content
	}
	got, err := s.recall.EmbedDocs(ctx, texts)
	if err != nil {
		return err
	}
	blobs := map[string][]byte{}
	for i, m := range batch {
		if got[i] != nil && s.recall.SetVector(m.id, m.content, got[i]) {
			blobs[m.id] = recall.EncodeVector(model, m.hash, got[i])
		}
	}
	s.storeVectors(blobs)
	s.embedding.mu.Lock()
	s.embedding.progress.Done += len(batch)
	s.embedding.mu.Unlock()
	return nil
}

// storeVectors stores blobs, skipping memories deleted or made sensitive
// since they were embedded, in transactions of bookkeepingChunk vectors.
// A failure is logged: the vectors stay in the index, and the next
// start-up embeds those memories again.
func (s *Service) storeVectors(blobs map[string][]byte) {
	if len(blobs) == 0 || s.v.ReadOnly() {
		return
	}
	for _, part := range chunked(blobs, bookkeepingChunk) {
		if err := s.storeVectorChunk(part); err != nil {
			s.log.Error("recall: store vectors", "err", err)
			return // the rest would fail alike (a full disk, a read-only vault)
		}
	}
}

// storeVectorChunk stores blobs in one transaction, or one by one when
// some memory was deleted or made sensitive meanwhile.
func (s *Service) storeVectorChunk(blobs map[string][]byte) error {
	err := s.v.PutVectors(blobs)
	if !errors.Is(err, vault.ErrNotFound) && !errors.Is(err, vault.ErrInvalid) {
		return err
	}
	err = nil
	for id, b := range blobs { // one by one, to keep the rest
		if e := s.v.PutVectors(map[string][]byte{id: b}); e != nil && !errors.Is(e, vault.ErrNotFound) && !errors.Is(e, vault.ErrInvalid) {
			err = cmp.Or(err, e)
		}
	}
	return err
}
