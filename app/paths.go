package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// VaultFile is the vault's file name inside the data directory.
const VaultFile = "vault.db"

// DataDir is where Engram keeps its vault: $ENGRAM_HOME, else
// $XDG_DATA_HOME/engram, else ~/.local/share/engram (on macOS and Windows,
// the OS's per-user config directory).
func DataDir(getenv func(string) string) (string, error) {
	if d := getenv("ENGRAM_HOME"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "engram"), nil
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "share", "engram"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", errors.New("cannot find a data directory: set ENGRAM_HOME")
	}
	return filepath.Join(d, "engram"), nil
}

// RuntimeDir holds the running server's address file, admin token and
// Unix socket: $XDG_RUNTIME_DIR/engram, else the data directory.
func RuntimeDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "engram"), nil
	}
	return DataDir(getenv)
}

// SecureDir makes sure the data directory dir, when it exists, is not open
// to other users, as ssh does with ~/.ssh: a directory that others may
// read, write or enter (mode 0777, say) could let them swap the vault file
// or read the runtime files. It tightens it to 0700 and says so in
// warning, or fails with what to do when it cannot (another user owns it).
// A missing directory is left for whoever creates it (0700).
func SecureDir(dir string) (warning string, err error) {
	if runtime.GOOS == "windows" {
		return "", nil // permissions are ACLs there, not mode bits
	}
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return "", nil
	}
	if err := os.Chmod(dir, perm&^0o077); err != nil {
		return "", fmt.Errorf("%s is open to other users (mode %#o) and could not be made private (%v); run chmod 700 %s", dir, perm, err, dir)
	}
	return fmt.Sprintf("%s was open to other users (mode %#o); its mode is now %#o", dir, perm, perm&^0o077), nil
}
