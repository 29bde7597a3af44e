package vault

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// eachBatch is how many records a decoding worker takes at a time.
const eachBatch = 256

// eachRecord is a record as the cursor found it; both slices point into
// the read transaction's pages.
type eachRecord struct{ key, raw []byte }

// eachDecoded is a batch of records decoded by a worker.
type eachDecoded struct {
	keys  [][]byte
	mems  []Memory
	errs  []error // per record, nil when it decoded
	fault error   // the file's pages could not be read
}

// decodeMemories decodes every memory record of bucket b (partition
// part) and calls out with each, in key order, on the calling goroutine.
// It runs inside the read transaction that b belongs to. Decoding (JSON,
// and AES-GCM for sealed records) is most of the cost of reading a large
// vault, so it is spread over the CPUs while one goroutine walks the
// cursor; out sees exactly what a sequential walk would give it. When
// out returns an error the walk stops and decodeMemories returns it.
func decodeMemories(b *bolt.Bucket, key []byte, part string, out func(k []byte, m *Memory, err error) error) error {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 {
		var m Memory
		return b.ForEach(func(k, raw []byte) error {
			if raw == nil {
				return nil // a nested bucket
			}
			m = Memory{}
			return out(k, &m, decodeMemory(raw, key, part, string(k), &m))
		})
	}

	type job struct {
		recs []eachRecord
		res  chan eachDecoded // buffered: a worker never waits
	}
	jobs := make(chan job)
	order := make(chan chan eachDecoded, 2*workers) // results in key order
	stop := make(chan struct{})                     // closed when out fails

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				j.res <- decodeBatch(j.recs, key, part)
			}
		})
	}

	var walkErr error
	walked := make(chan struct{})
	go func() {
		defer close(walked)
		defer close(order)
		defer close(jobs)
		defer recoverDamage(&walkErr)
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		recs := make([]eachRecord, 0, eachBatch)
		send := func() bool {
			res := make(chan eachDecoded, 1)
			select {
			case order <- res:
			case <-stop:
				return false
			}
			select {
			case jobs <- job{recs, res}:
			case <-stop:
				return false
			}
			recs = make([]eachRecord, 0, eachBatch)
			return true
		}
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v == nil {
				continue // a nested bucket
			}
			recs = append(recs, eachRecord{k, v})
			if len(recs) == eachBatch && !send() {
				return
			}
		}
		if len(recs) > 0 {
			send()
		}
	}()

	stopped := false
	finish := func() { // stops the walk and waits for every goroutine
		if !stopped {
			stopped = true
			close(stop)
		}
		for range order { // batches that may never have reached a worker
		}
		wg.Wait()
		<-walked
	}
	defer func() {
		if r := recover(); r != nil { // out panicked: the caller's recoverDamage takes it
			finish()
			panic(r)
		}
	}()
	err := func() error {
		for res := range order {
			d := <-res
			if d.fault != nil {
				return d.fault
			}
			for i := range d.mems {
				if err := out(d.keys[i], &d.mems[i], d.errs[i]); err != nil {
					return err
				}
			}
		}
		return nil
	}()
	finish()
	if err != nil {
		return err
	}
	return walkErr
}

// decodeBatch decodes recs. A fault reading the file's pages (a damaged
// or truncated file under the memory map) is returned, not a crash.
func decodeBatch(recs []eachRecord, key []byte, part string) (d eachDecoded) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			d = eachDecoded{fault: fmt.Errorf("%w: the file is damaged (%v)", ErrCorrupt, r)}
		}
	}()
	d.keys = make([][]byte, len(recs))
	d.mems = make([]Memory, len(recs))
	d.errs = make([]error, len(recs))
	for i, r := range recs {
		d.keys[i] = r.key
		d.errs[i] = decodeMemory(r.raw, key, part, string(r.key), &d.mems[i])
	}
	return d
}

// decodeMemory decodes and checks (checkMemory) the memory record raw
// stored in partition part under key id.
func decodeMemory(raw, key []byte, part, id string, m *Memory) error {
	if _, err := decodeRecord(raw, key, part, id, m); err != nil {
		return err
	}
	return checkMemory(m, part, id)
}
