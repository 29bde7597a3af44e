package app_test

import (
	"bytes"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestRunningServiceScrubsAfterDelete: while Engram runs (the service
// open, the vault never closed), an agent's delete leaves no byte of the
// memory in the vault file within a minute, and other writes go on.
func TestRunningServiceScrubsAfterDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v, _ := vaulttest.New(t)
		s, err := app.New(v, app.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		r := s.Store(ctx, claude, app.StoreInput{Content: "the build cache lives on bittern-5521"})
		if !r.OK() {
			t.Fatalf("Store = %+v", r.Response)
		}
		for _, c := range []string{"the build cache moved to bittern-5522", "the build cache moved to bittern-5523"} {
			if u := s.Update(ctx, claude, r.Memory.ID, app.UpdateInput{Content: &c}); !u.OK() {
				t.Fatalf("Update = %+v", u.Response)
			}
		}
		if d := s.Delete(ctx, claude, r.Memory.ID); !d.OK() {
			t.Fatalf("Delete = %+v", d)
		}
		time.Sleep(time.Minute) // the bubble's clock: the scrubber's ticks
		synctest.Wait()
		data, err := os.ReadFile(v.Path())
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(data, []byte("bittern-552")); n != 0 {
			t.Errorf("a minute after the delete, with the vault still open, the file holds %d copies of the deleted text, want 0", n)
		}
	})
}
