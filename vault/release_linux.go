package vault

import (
	"fmt"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// ReleasePages takes the vault file's pages out of this process's memory:
// bbolt reads the file through a shared, read-only memory map, and every
// page a read touched (all of them, once the recall index is built at
// start) stays counted in the process's resident memory although the
// kernel's page cache already holds it. The pages stay in the page cache,
// and the next read that needs one maps it again, so nothing is lost and
// nothing is written. It runs inside a read transaction, during which
// bbolt cannot remap the file.
func (v *Vault) ReleasePages() error {
	return v.view(func(tx *bolt.Tx) error {
		info := v.db.Info()
		if info.Data == 0 || tx.Size() == 0 {
			return nil
		}
		// The map begins at info.Data, page aligned, and holds at least
		// the tx.Size() bytes of the file this transaction sees.
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, info.Data, uintptr(tx.Size()), unix.MADV_DONTNEED); errno != 0 {
			return fmt.Errorf("release the vault's pages: %w", errno)
		}
		return nil
	})
}
