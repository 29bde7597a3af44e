package app

import (
	"fmt"
	"os"
	"syscall"
	"testing"
)

func TestStatusOfDiskFull(t *testing.T) {
	err := fmt.Errorf("add memory: %w", &os.PathError{Op: "write", Path: "vault.db", Err: syscall.ENOSPC})
	if r := statusOf(err); r.Status != StatusUnavailable || r.Message != "the disk is full: nothing was changed; free some space and try again" {
		t.Fatalf("statusOf(ENOSPC) = %+v", r)
	}
}
