package upkeep

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

// vectorBatch is how many texts are embedded at once.
const vectorBatch = 32

// Vectors are derived data, so they are stored lazily: every
// vectorSaveEvery, or once vectorSaveBatch wait, in a few commits. Under
// a steady stream of writes, storing each batch as it was made was a
// third of all commits, each two flushes that agents' writes queued
// behind. WaitVectors and Close store what waits.
const (
	vectorSaveEvery = 2 * time.Second
	vectorSaveBatch = 512
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

// toEmbed is a memory waiting for its vector.
type toEmbed struct {
	id, content, hash string
	accessed          time.Time
}

// embedJob is the background embedding of the memories a build found
// without a vector.
type embedJob struct {
	mu       sync.Mutex
	progress EmbedProgress
	cancel   context.CancelFunc
	done     chan struct{} // closed when the current run ends; nil before any
	err      error
	closed   bool // Close ran: no more runs start
}

// Progress returns the progress of the background embedding. The
// desktop app and the CLI poll it; Done reaching Total with Running false
// means every memory that can have a vector has one.
func (x *Index) Progress() EmbedProgress {
	x.job.mu.Lock()
	defer x.job.mu.Unlock()
	return x.job.progress
}

// WaitEmbedded waits until the first build is done and the background
// embedding it started has finished, and returns the embedding's error,
// if any.
func (x *Index) WaitEmbedded(ctx context.Context) error {
	if err := x.WaitBuilt(ctx); err != nil {
		return err
	}
	if err := x.WaitVectors(ctx); err != nil {
		return err
	}
	x.job.mu.Lock()
	done := x.job.done
	x.job.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	x.job.mu.Lock()
	defer x.job.mu.Unlock()
	return x.job.err
}

// startEmbedding loads the stored vectors of todo in the background,
// then embeds the memories left without one, most recently used first,
// and gives each its vector in the index and in the vault as its batch is
// done. Recall keeps working meanwhile: a memory without a vector is
// found by keyword (and takes its keyword score for the vector part in
// hybrid fusion). Vectors of another model are never loaded, so a
// similarity never compares two models' vectors. Stopped by
// stopEmbedding (Close, or the next build); what was stored stays, so the
// next build resumes with the rest.
func (x *Index) startEmbedding(model string, todo []toEmbed) {
	j := &x.job
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
		todo, err := x.attachStored(ctx, model, todo)
		if err == nil {
			j.mu.Lock()
			j.progress.Loading, j.progress.Total = false, len(todo)
			j.mu.Unlock()
			slices.SortStableFunc(todo, func(a, b toEmbed) int { return b.accessed.Compare(a.accessed) })
			err = x.embedAll(ctx, model, todo)
		}
		j.mu.Lock()
		defer j.mu.Unlock()
		j.progress.Running, j.progress.Loading = false, false
		if err != nil {
			j.err = err
			j.progress.Err = err.Error()
			if !errors.Is(err, context.Canceled) {
				x.log.Error("recall: background embedding stopped", "err", err, "done", j.progress.Done, "total", j.progress.Total)
			}
		}
	}()
}

// stopEmbedding stops the background embedding and waits for it. With
// final (Close), no other run starts afterwards.
func (x *Index) stopEmbedding(final bool) {
	j := &x.job
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

// attachStored gives the memories in todo their vectors stored in the
// vault, where they match the model and the memory's content, deletes
// the stale ones, and returns the memories left to embed.
func (x *Index) attachStored(ctx context.Context, model string, todo []toEmbed) ([]toEmbed, error) {
	type stored struct {
		hash  string
		q     recall.Quantised
		float bool // in the float32 format of older vaults
	}
	dim := x.eng.Dim()
	blobs := map[string]stored{}
	stale, err := x.v.Vectors(func(id string, blob []byte) error {
		hash, q, ok, err := recall.DecodeVectorOf(blob, model, dim)
		switch {
		case err != nil:
			x.log.Warn("recall: damaged vector, embedding again", "id", id)
		case ok:
			blobs[id] = stored{hash, q, recall.OldVectorFormat(blob)}
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	if len(stale) > 0 && !x.v.ReadOnly() {
		if err := x.v.DeleteVectors(stale...); err != nil {
			return nil, err
		}
	}
	rows := 0
	for _, m := range todo {
		if b, ok := blobs[m.id]; ok && b.hash == m.hash {
			rows += len(b.q.Scales)
		}
	}
	x.eng.ReserveVectors(rows)
	// In slices, so that recalls are not held up behind one long lock.
	const slice = 8192
	var found []recall.DocVector
	rewrite := map[string][]byte{}
	missing := todo[:0]
	for i, m := range todo {
		if b, ok := blobs[m.id]; ok && b.hash == m.hash {
			found = append(found, recall.DocVector{ID: m.id, Content: m.content, Q: b.q})
			if b.float {
				rewrite[m.id] = recall.EncodeQuantised(model, m.hash, b.q)
			}
		} else {
			// Without a stored vector; one whose memory changed since
			// the index was read has been embedded by that write.
			missing = append(missing, m)
		}
		if len(found) == slice || i == len(todo)-1 {
			x.eng.SetVectors(found)
			found = found[:0]
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	// Vectors an older Engram stored as float32 are stored again as the
	// index keeps them: a quarter of the bytes to read at the next start.
	x.storeVectors(rewrite)
	return missing, nil
}

// embedAll embeds todo in batches spread over the CPUs. It stops at the
// first error.
func (x *Index) embedAll(ctx context.Context, model string, todo []toEmbed) error {
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
				blobs, err := x.embedBatch(ctx, model, batch)
				if err != nil {
					cancel(err)
					continue
				}
				x.storeVectors(blobs)
				x.job.mu.Lock()
				x.job.progress.Done += len(batch)
				x.job.mu.Unlock()
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

// embedBatch embeds one batch and sets the vectors of the memories whose
// text has not changed meanwhile; it returns those vectors encoded for the
// vault.
func (x *Index) embedBatch(ctx context.Context, model string, batch []toEmbed) (map[string][]byte, error) {
	texts := make([]string, len(batch))
	for i, m := range batch {
		texts[i] = m.content
	}
	got, err := x.eng.EmbedDocs(ctx, texts)
	if err != nil {
		return nil, err
	}
	blobs := map[string][]byte{}
	for i, m := range batch {
		if got[i] != nil && x.eng.SetVector(m.id, m.content, got[i]) {
			if b := recall.EncodeVector(model, m.hash, x.eng.Dim(), got[i]); b != nil {
				blobs[m.id] = b
			}
		}
	}
	return blobs, nil
}

// storeVectors stores blobs, skipping memories deleted or made sensitive
// since they were embedded, in transactions of bookkeepingChunk vectors.
// A failure is logged: the vectors stay in the index, and the next
// start-up embeds those memories again.
func (x *Index) storeVectors(blobs map[string][]byte) {
	if len(blobs) == 0 || x.v.ReadOnly() {
		return
	}
	for _, part := range chunked(blobs, bookkeepingChunk) {
		if err := x.storeVectorChunk(part); err != nil {
			x.log.Error("recall: store vectors", "err", err)
			return // the rest would fail alike (a full disk, a read-only vault)
		}
	}
}

// storeVectorChunk stores blobs in one transaction, or one by one when
// some memory was deleted or made sensitive meanwhile.
func (x *Index) storeVectorChunk(blobs map[string][]byte) error {
	err := x.v.PutVectors(blobs)
	if !errors.Is(err, vault.ErrNotFound) && !errors.Is(err, vault.ErrInvalid) {
		return err
	}
	err = nil
	for id, b := range blobs { // one by one, to keep the rest
		if e := x.v.PutVectors(map[string][]byte{id: b}); e != nil && !errors.Is(e, vault.ErrNotFound) && !errors.Is(e, vault.ErrInvalid) {
			err = cmp.Or(err, e)
		}
	}
	return err
}

// A write is acknowledged once it is durable and indexed by keyword; its
// vector follows in the background. With the built-in model an embedding
// costs several milliseconds of CPU, more than the rest of a store, and on
// the write path it queued every agent's store behind every other's.
// Written memories wait in the queue and one worker embeds them in
// batches (the more that wait, the bigger and cheaper the batch), gives
// each its vector in the index if its text has not changed meanwhile, and
// hands the vectors to a batch that stores them lazily.
//
// Meanwhile recall finds the memory by keyword, and the write-time
// duplicate and conflict checks compare words only. If Engram stops before
// a vector is stored, the next build finds the memory without one and
// embeds it then (see startEmbedding).
type embedQueue struct {
	x       *Index
	vectors *batch[[]byte] // made and indexed, not yet stored

	mu      sync.Mutex
	pending map[string]toEmbed // by memory id: the latest text wins
	order   []string           // ids in the order they were written
	idle    chan struct{}      // closed when the worker stops; nil when none runs
	ctx     context.Context
	cancel  context.CancelFunc
	closed  bool
}

// vectorBatchWriter is the batch that stores x's written memories'
// vectors.
func vectorBatchWriter(x *Index) *batch[[]byte] {
	return &batch[[]byte]{
		delay: vectorSaveEvery,
		full:  vectorSaveBatch,
		merge: func(_ []byte, _ bool, v []byte) []byte { return v },
		write: x.storeVectors,
	}
}

// add puts m in line for its vector.
func (q *embedQueue) add(m *vault.Memory) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	if q.pending == nil {
		q.pending = map[string]toEmbed{}
		q.ctx, q.cancel = context.WithCancel(context.Background())
	}
	if _, ok := q.pending[m.ID]; !ok {
		q.order = append(q.order, m.ID)
	}
	q.pending[m.ID] = toEmbed{id: m.ID, content: m.Content, hash: m.ContentHash}
	if q.idle == nil {
		q.idle = make(chan struct{})
		go q.drain(q.ctx, q.idle)
	}
}

// drain embeds what waits, a batch at a time, until nothing does.
func (q *embedQueue) drain(ctx context.Context, idle chan struct{}) {
	x := q.x
	for {
		q.mu.Lock()
		if len(q.order) == 0 || ctx.Err() != nil {
			q.idle = nil
			close(idle)
			q.mu.Unlock()
			return
		}
		n := min(len(q.order), vectorBatch)
		batch := make([]toEmbed, 0, n)
		for _, id := range q.order[:n] {
			batch = append(batch, q.pending[id])
			delete(q.pending, id)
		}
		q.order = q.order[n:]
		q.mu.Unlock()

		blobs, err := x.embedBatch(x.embedContext(ctx), x.eng.Model(), batch)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				x.log.Error("recall: embed", "err", err, "memories", len(batch))
			}
			continue // they stay without a vector until the next build
		}
		q.vectors.add(blobs)
	}
}

// embedContext marks ctx for the embedding of written memories: on one
// core, the others answering requests, and on an idle-priority thread with
// IdleEmbedding.
func (x *Index) embedContext(ctx context.Context) context.Context {
	if x.idle {
		return embed.Idle(ctx)
	}
	return embed.Background(ctx)
}

// WaitVectors waits until every memory written so far has its vector,
// indexed and stored (or failed to get one), or ctx ends.
func (x *Index) WaitVectors(ctx context.Context) error {
	q := &x.queue
	for {
		q.mu.Lock()
		idle := q.idle
		q.mu.Unlock()
		if idle == nil {
			q.vectors.flush()
			return nil
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// close stops the worker and stores the vectors made; what still waits is
// embedded at the next build.
func (q *embedQueue) close() {
	q.mu.Lock()
	q.closed = true
	idle, cancel := q.idle, q.cancel
	q.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if idle != nil {
		<-idle
	}
	q.vectors.close()
}
