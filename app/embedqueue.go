package app

import (
	"context"
	"errors"
	"maps"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/app/recall"
)

// A write is acknowledged once it is durable and indexed by keyword; its
// vector follows in the background. With the built-in model an embedding
// costs several milliseconds of CPU, more than the rest of a store, and on
// the write path it queued every agent's store behind every other's.
// Written memories wait in writeEmbeds and one worker embeds them in
// batches (the more that wait, the bigger and cheaper the batch), gives
// each its vector in the index if its text has not changed meanwhile, and
// stores the vectors (see storeVectors).
//
// Meanwhile recall finds the memory by keyword, and the write-time
// duplicate and conflict checks compare words only. If Engram stops before
// a vector is stored, the next index build finds the memory without one
// and embeds it then (see startEmbedding).
//
// Vectors are derived data, so they are stored lazily: every
// vectorSaveEvery, or once vectorSaveBatch wait, in a few commits. Under
// a steady stream of writes, storing each batch as it was made was a
// third of all commits, each two flushes that agents' writes queued
// behind. WaitVectors and Close store what waits.
type embedQueue struct {
	mu      sync.Mutex
	pending map[string]toEmbed // by memory id: the latest text wins
	order   []string           // ids in the order they were written
	idle    chan struct{}      // closed when the worker stops; nil when none runs
	ctx     context.Context
	cancel  context.CancelFunc
	closed  bool

	unsaved   map[string][]byte // vectors made and indexed, not yet stored
	saveTimer *time.Timer       // stores unsaved; nil when none is due
	saving    sync.Mutex        // held while a save writes, so Close waits for it
}

const (
	vectorSaveEvery = 2 * time.Second
	vectorSaveBatch = 512
)

// queueEmbed puts m in line for its vector.
func (s *Service) queueEmbed(m *Memory) {
	q := &s.writeEmbeds
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
		go s.drainEmbeds(q.ctx, q.idle)
	}
}

// drainEmbeds embeds what waits, a batch at a time, until nothing does.
func (s *Service) drainEmbeds(ctx context.Context, idle chan struct{}) {
	q := &s.writeEmbeds
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

		texts := make([]string, len(batch))
		for i, m := range batch {
			texts[i] = m.content
		}
		model := s.recall.Model()
		got, err := s.recall.EmbedDocs(s.embedContext(ctx), texts)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				s.log.Error("recall: embed", "err", err, "memories", len(batch))
			}
			continue // they stay without a vector until the next index build
		}
		blobs := map[string][]byte{}
		for i, m := range batch {
			if got[i] != nil && s.recall.SetVector(m.id, m.content, got[i]) {
				blobs[m.id] = recall.EncodeVector(model, m.hash, got[i])
			}
		}
		q.mu.Lock()
		if q.unsaved == nil {
			q.unsaved = blobs
		} else {
			maps.Copy(q.unsaved, blobs)
		}
		full := len(q.unsaved) >= vectorSaveBatch
		if !full && len(q.unsaved) > 0 && q.saveTimer == nil && !q.closed {
			q.saveTimer = time.AfterFunc(vectorSaveEvery, s.saveVectors)
		}
		q.mu.Unlock()
		if full {
			s.saveVectors()
		}
	}
}

// saveVectors stores the vectors made since the last save.
func (s *Service) saveVectors() {
	q := &s.writeEmbeds
	q.saving.Lock()
	defer q.saving.Unlock()
	q.mu.Lock()
	blobs := q.unsaved
	q.unsaved = nil
	if q.saveTimer != nil {
		q.saveTimer.Stop()
		q.saveTimer = nil
	}
	q.mu.Unlock()
	s.storeVectors(blobs)
}

// embedContext marks ctx for the embedding of written memories: on one
// core, the others answering requests, and on an idle-priority thread with
// Options.IdleEmbedding.
func (s *Service) embedContext(ctx context.Context) context.Context {
	if s.idleEmbedding {
		return embed.Idle(ctx)
	}
	return embed.Background(ctx)
}

var spareProc sync.Once

// SpareProc gives the Go scheduler one P more than it has (GOMAXPROCS
// defaults to the number of cores), once per process, unless the
// GOMAXPROCS environment variable sets it. With Options.IdleEmbedding the
// embedding thread holds a P even while the kernel keeps it waiting for an
// idle core; the spare P keeps every core available to requests. The
// long-running processes (the desktop app, engram serve) call it.
func SpareProc() {
	spareProc.Do(func() {
		if os.Getenv("GOMAXPROCS") == "" {
			runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + 1)
		}
	})
}

// WaitVectors waits until every memory written so far has its vector,
// indexed and stored (or failed to get one), or ctx ends.
func (s *Service) WaitVectors(ctx context.Context) error {
	for {
		s.writeEmbeds.mu.Lock()
		idle := s.writeEmbeds.idle
		s.writeEmbeds.mu.Unlock()
		if idle == nil {
			s.saveVectors()
			return nil
		}
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// closeEmbeds stops the worker; what still waits is embedded at the next
// index build.
func (s *Service) closeEmbeds() {
	q := &s.writeEmbeds
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
	s.saveVectors()
}
