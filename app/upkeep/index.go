package upkeep

import (
	"context"
	"log/slog"
	"sync"

	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

// IndexOptions configure an Index.
type IndexOptions struct {
	Log *slog.Logger
	// Doc is a memory as the index keeps it (the service adds what its
	// lifecycle rules need to compute confidence at query time).
	Doc func(*vault.Memory) recall.Doc
	// Damaged receives the records the index's listings skip.
	Damaged *Damaged
	// Background makes NewIndex return at once and build the index later,
	// in a goroutine started by Build or the first WaitBuilt.
	Background bool
	// IdleEmbedding embeds written memories on an idle-priority thread
	// (see app.Options.IdleEmbedding).
	IdleEmbedding bool
}

// Index is the recall index of a vault, kept current by the service's
// writes (Put, Remove). Its methods are safe for concurrent use. With a nil
// engine, recall is off: every method does nothing and Enabled is false.
type Index struct {
	v    *vault.Vault
	eng  *recall.Engine
	log  *slog.Logger
	doc  func(*vault.Memory) recall.Doc
	skip func(string, error)
	idle bool

	// mu orders index rebuilds and the loading and dropping of sensitive
	// memories; sensitiveIndexed says they are in the index.
	mu               sync.Mutex
	sensitiveIndexed bool

	// built is closed once the first build is done; buildErr is its error.
	built      chan struct{}
	buildErr   error
	startBuild sync.Once
	buildCtx   context.Context
	stopBuild  context.CancelFunc

	job   embedJob   // memories without a vector, after a build
	queue embedQueue // written memories waiting for their vector
}

// NewIndex returns the index of v over eng. Unless o.Background, it builds
// the index and waits for the vectors of the memories that have none (a
// failed embedder leaves them to keyword recall, logged).
func NewIndex(v *vault.Vault, eng *recall.Engine, o IndexOptions) (*Index, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Damaged == nil {
		o.Damaged = NewDamaged(o.Log)
	}
	x := &Index{v: v, eng: eng, log: o.Log, doc: o.Doc, skip: o.Damaged.Skip, idle: o.IdleEmbedding, built: make(chan struct{})}
	if x.doc == nil {
		x.doc = func(m *vault.Memory) recall.Doc { return recall.DocOf(m) }
	}
	x.queue.x = x
	x.queue.vectors = vectorBatchWriter(x)
	if o.Background {
		x.buildCtx, x.stopBuild = context.WithCancel(context.Background())
		return x, nil
	}
	defer close(x.built)
	if err := x.Rebuild(context.Background()); err != nil {
		return nil, err
	}
	x.job.mu.Lock()
	done := x.job.done
	x.job.mu.Unlock()
	if done != nil {
		<-done
	}
	return x, nil
}

// Enabled reports whether recall is on.
func (x *Index) Enabled() bool { return x.eng != nil }

// Engine is the recall engine; nil when recall is off. Searches go to it
// directly; writes go through Put and Remove.
func (x *Index) Engine() *recall.Engine { return x.eng }

// Build starts building the index in the background, once, for an index
// made with Background; otherwise it does nothing.
func (x *Index) Build() {
	if x.buildCtx == nil {
		return
	}
	x.startBuild.Do(func() {
		go func() {
			defer close(x.built)
			if err := x.Rebuild(x.buildCtx); err != nil && x.buildCtx.Err() == nil {
				x.log.Error("recall: building the index", "err", err)
				x.buildErr = err
			}
		}()
	})
}

// WaitBuilt waits until the first build is done (starting it if it has
// not started) and returns its error.
func (x *Index) WaitBuilt(ctx context.Context) error {
	x.Build()
	select {
	case <-x.built:
		return x.buildErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Rebuild builds the index again from the vault: every memory it can read
// (sensitive ones only while unlocked). It returns once every memory is in
// the index by keyword, and recall works from then on. The vectors stored
// in the vault that match a memory's content and the embedder are then
// loaded in the background, stale ones deleted, and the memories left
// without a vector embedded, most recently used first (see Progress and
// WaitEmbedded); this stops any earlier such run.
func (x *Index) Rebuild(ctx context.Context) error {
	if x.eng == nil {
		return nil
	}
	x.stopEmbedding(false)
	x.mu.Lock()
	defer x.mu.Unlock()
	model := x.eng.Model()
	// Memories are tokenised on the other cores while the vault decodes
	// the next ones.
	load := x.eng.NewLoader()
	var todo []toEmbed
	_, err := x.v.Each(vault.ListFilter{Partitions: vault.AllPartitions, OnDamaged: x.skip}, func(m *vault.Memory) error {
		load.Add(x.doc(m), nil)
		if !m.Sensitive() && model != "" {
			todo = append(todo, toEmbed{id: m.ID, content: m.Content, hash: m.ContentHash, accessed: m.Accessed})
		}
		return nil
	})
	if err != nil {
		load.Discard()
		return err
	}
	if err := load.Done(); err != nil {
		return err
	}
	x.sensitiveIndexed = !x.v.Locked()
	x.startEmbedding(model, todo)
	return nil
}

// SyncSensitive keeps sensitive memories in the index only while the
// vault is unlocked: it drops them once it is locked and loads them again
// after it is unlocked. Every search calls it first.
func (x *Index) SyncSensitive() {
	if x.eng == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	locked := x.v.Locked()
	switch {
	case locked && x.sensitiveIndexed:
		x.eng.RemoveSensitive()
		x.sensitiveIndexed = false
	case !locked && !x.sensitiveIndexed:
		mems, _, err := x.v.List(vault.ListFilter{Partitions: []vault.Partition{vault.Sensitive, vault.Archive}, OnDamaged: x.skip})
		if err != nil {
			x.log.Error("recall: load sensitive memories", "err", err)
			return
		}
		for i := range mems {
			if mems[i].Sensitive() {
				_ = x.eng.Put(x.doc(&mems[i]), nil)
			}
		}
		x.sensitiveIndexed = true
	}
}

// Put brings memory m into the index after a write, or takes a sensitive
// memory's vector out. A memory whose text has no vector yet is indexed
// by keyword at once and gets its vector in the background. Failures
// leave the memory findable by keyword and are logged: the write itself
// succeeded.
func (x *Index) Put(m *vault.Memory) {
	if x.eng == nil {
		return
	}
	d := x.doc(m)
	var vec []float32
	later := false
	switch {
	case d.Sensitive:
		if x.eng.HasVector(m.ID) {
			if err := x.v.DeleteVectors(m.ID); err != nil {
				x.log.Error("recall: delete vector", "err", err)
			}
		}
	case x.eng.Model() == "":
	default:
		if vec = x.eng.VectorFor(m.ID, m.Content); vec != nil {
			break
		}
		later = true
	}
	// Under mu, so a concurrent Rebuild cannot reset the index after this
	// Put with a list of memories taken before this write.
	x.mu.Lock()
	if err := x.eng.Put(d, vec); err != nil {
		x.log.Error("recall: index", "err", err)
	}
	x.mu.Unlock()
	if later {
		x.queue.add(m)
	}
}

// Committed is Put for a memory already put in the engine, before its
// write was committed, as the Doc of IndexOptions makes it and without a
// vector (an import's batch): the engine holding it as it is, only its
// vector is queued, as Put does; it is put again otherwise (a Rebuild or
// a lock in between).
func (x *Index) Committed(m *vault.Memory) {
	if x.eng == nil {
		return
	}
	x.mu.Lock()
	held := x.eng.Holds(m.ID, m.Content)
	x.mu.Unlock()
	if !held {
		x.Put(m)
		return
	}
	if !m.Sensitive() && x.eng.Model() != "" {
		x.queue.add(m)
	}
}

// Remove takes a deleted memory out of the index and its vector out of
// the vault.
func (x *Index) Remove(id string) {
	if x.eng == nil {
		return
	}
	x.mu.Lock()
	x.eng.Remove(id)
	x.mu.Unlock()
	if err := x.v.DeleteVectors(id); err != nil {
		x.log.Error("recall: delete vector", "err", err)
	}
}

// Close stops a background build and the background embedding and waits
// for them, and stores the vectors made so far.
func (x *Index) Close() {
	if x.stopBuild != nil {
		x.stopBuild()
		x.startBuild.Do(func() { close(x.built) }) // never started: nothing to wait for
		<-x.built
	}
	x.queue.close()
	x.stopEmbedding(true)
}
