package embed

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestIdleThread checks that idleThread demotes exactly the calling
// thread, and that Embed under Idle leaves its caller's thread as it was.
func TestIdleThread(t *testing.T) {
	policy := func() uint32 {
		attr, err := unix.SchedGetAttr(0, 0)
		if err != nil {
			t.Errorf("sched_getattr: %v", err)
			return ^uint32(0)
		}
		return attr.Policy
	}
	got := make(chan uint32)
	go func() {
		runtime.LockOSThread() // never unlocked: the demoted thread ends with this goroutine
		if err := idleThread(); err != nil {
			t.Errorf("idleThread: %v", err)
		}
		got <- policy()
	}()
	if p := <-got; p != unix.SCHED_IDLE {
		t.Errorf("after idleThread the policy is %d, want SCHED_IDLE (%d)", p, unix.SCHED_IDLE)
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := policy()
	v, err := onIdleThread(func() ([][]float32, error) {
		return [][]float32{{float32(policy())}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if int(v[0][0]) != unix.SCHED_IDLE {
		t.Errorf("onIdleThread ran its function under policy %v, want SCHED_IDLE", v[0][0])
	}
	if after := policy(); after != before {
		t.Errorf("the caller's policy changed from %d to %d", before, after)
	}
}
