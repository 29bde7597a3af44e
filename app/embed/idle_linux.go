package embed

import "golang.org/x/sys/unix"

// idleThread moves the calling OS thread to SCHED_IDLE, the scheduling
// class Linux runs only when nothing else wants the CPU. Lowering a
// thread's class needs no privilege; raising it again does, so the caller
// must let its thread end rather than hand it back to the Go scheduler.
func idleThread() error {
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}
	return unix.SchedSetAttr(0, &attr, 0)
}
