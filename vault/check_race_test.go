package vault_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestCheckWhileWriting runs the consistency check while memories are
// written: bbolt's check reads the freelist a commit changes, so it must
// not run beside a commit (under -race this found the race), and the
// check still finds nothing wrong.
func TestCheckWhileWriting(t *testing.T) {
	v, _ := vaulttest.New(t, vaulttest.NoSync)
	for i := range 200 {
		if _, err := v.Add(vaulttest.Memory(vault.Internal, fmt.Sprintf("memory %d before the check", i)), operator); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			m, err := v.Add(vaulttest.Memory(vault.Internal, fmt.Sprintf("memory %d during the check", i)), operator)
			if err != nil {
				t.Error(err)
				return
			}
			if i%3 == 0 {
				if err := v.Delete(m.ID, operator); err != nil {
					t.Error(err)
					return
				}
			}
		}
	})
	for range 5 {
		r, err := v.Check(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Problems) > 0 {
			t.Errorf("Check while writing found %v", r.Problems)
		}
	}
	close(stop)
	wg.Wait()
}
