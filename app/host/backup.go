package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// backupKeyID names the backup passphrase in the keyring, beside the
// vault's own key.
func (h *Host) backupKeyID() string { return "backup:" + h.v.ID() }

// BackupPassphrase returns the passphrase for exports: from
// $ENGRAM_BACKUP_PASSPHRASE, else the OS keyring. It fails with
// ErrNoBackupPassphrase when neither has one; the UI then asks.
func (h *Host) BackupPassphrase() ([]byte, error) {
	if p := h.cfg.Getenv("ENGRAM_BACKUP_PASSPHRASE"); p != "" {
		return []byte(p), nil
	}
	p, err := h.cfg.KeyStore.Get(h.backupKeyID())
	if err == nil && len(p) > 0 {
		return p, nil
	}
	if err != nil && !errors.Is(err, app.ErrNoKey) {
		return nil, fmt.Errorf("%w (the OS keyring: %v)", ErrNoBackupPassphrase, err)
	}
	return nil, ErrNoBackupPassphrase
}

// RememberBackupPassphrase keeps p in the OS keyring for later exports.
func (h *Host) RememberBackupPassphrase(p []byte) error {
	return h.cfg.KeyStore.Set(h.backupKeyID(), p)
}

// ExportBackup writes an encrypted backup (an age file under pass) into
// the backup folder, atomically, and returns its path and the number of
// memories in it. The file name carries the time, so earlier backups stay.
func (h *Host) ExportBackup(ctx context.Context, pass []byte) (string, int, error) {
	if len(pass) == 0 {
		return "", 0, ErrNoBackupPassphrase
	}
	dir := h.Settings().BackupDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", 0, fmt.Errorf("backup folder: %w", err)
	}
	name := "engram-" + h.cfg.Now().UTC().Format("20060102-150405") + ".age"
	path := filepath.Join(dir, name)
	r := h.svc.Export(ctx, h.Operator(), path, pass, h.cfg.BackupWorkFactor)
	if !r.OK() {
		return "", 0, fmt.Errorf("export: %s", r.Message)
	}
	return path, r.Memories, nil
}

// PauseAgents pauses every active agent (pause set) or resumes every
// paused one, and returns how many changed.
func (h *Host) PauseAgents(ctx context.Context, pause bool) (int, error) {
	list := h.svc.Agents(ctx, h.Operator())
	if !list.OK() {
		return 0, errors.New(list.Message)
	}
	from, to := vault.AgentActive, vault.AgentPaused
	if !pause {
		from, to = to, from
	}
	n := 0
	for _, a := range list.Agents {
		if a.Status != from {
			continue
		}
		if r := h.svc.SetAgentStatus(ctx, h.Operator(), a.Name, to); !r.OK() {
			return n, errors.New(r.Message)
		}
		n++
	}
	return n, nil
}
