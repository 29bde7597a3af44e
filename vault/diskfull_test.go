package vault_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestDiskFull fills a vault on a 3 MiB tmpfs until a write fails: the
// error must say the disk is full, every memory written before must still
// be there and check clean (also after reopening), and once space is
// freed the vault takes writes again. It needs root to mount the tmpfs.
func TestDiskFull(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root on Linux")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	path := filepath.Join(dir, "vault.db")
	ctx := context.Background()
	v, err := vault.Create(ctx, path, []byte(vaulttest.Passphrase), vault.CreateOptions{KDF: vaulttest.KDF, Options: vault.Options{Timeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var full error
	for i := range 100_000 {
		m, err := v.Add(vaulttest.Memory(vault.Internal, fmt.Sprintf("memory %d %s", i, strings.Repeat("padding ", 200))), operator)
		if err != nil {
			full = err
			break
		}
		ids = append(ids, m.ID)
	}
	if full == nil || len(ids) == 0 {
		t.Fatalf("3 MiB never filled up (%d memories)", len(ids))
	}
	if !errors.Is(full, syscall.ENOSPC) {
		t.Fatalf("the failed write says %v, want an error wrapping ENOSPC", full)
	}
	check := func(v *vault.Vault, when string) {
		t.Helper()
		all, _, err := v.List(vault.ListFilter{})
		if err != nil || len(all) != len(ids) {
			t.Fatalf("%s: %d memories, %v; want the %d written before the disk filled", when, len(all), err, len(ids))
		}
		if r, err := v.Check(ctx); err != nil || len(r.Problems) > 0 {
			t.Fatalf("%s: check = %v, %v", when, r.Problems, err)
		}
	}
	check(v, "after the failed write")
	v.Close()
	v, err = vault.Open(path, vault.Options{Timeout: time.Second})
	if err != nil {
		t.Fatalf("reopening a vault on a full disk: %v", err)
	}
	defer v.Close()
	check(v, "after reopening")
	if out, err := exec.Command("mount", "-o", "remount,size=16m", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount: %v %s", err, out)
	}
	if _, err := v.Add(vaulttest.Memory(vault.Internal, "written once there is room again"), operator); err != nil {
		t.Fatalf("write after freeing space: %v", err)
	}
}
