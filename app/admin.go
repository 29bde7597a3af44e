package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/engram-app/engram/vault"
)

// ExportResponse reports a backup.
type ExportResponse struct {
	Response
	Memories int `json:"memories"`
}

// Export writes an encrypted backup to path atomically. Operator only.
func (s *Service) Export(ctx context.Context, req Request, path string, passphrase []byte, workFactor int) ExportResponse {
	if r, ok := s.operatorGate(req); !ok {
		return ExportResponse{Response: r}
	}
	if dir := filepath.Dir(path); dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return ExportResponse{Response: Response{StatusInvalid, fmt.Sprintf("cannot write the backup: the folder %s does not exist", dir)}}
		}
	}
	n, err := s.v.ExportFile(ctx, path, passphrase, vault.BackupOptions{WorkFactor: workFactor}, req.actor())
	if err != nil {
		return ExportResponse{Response: s.fail("export", err)}
	}
	return ExportResponse{Response: Response{Status: StatusOK}, Memories: n}
}

// RestoreResponse reports a backup restored.
type RestoreResponse struct {
	Response
	vault.ImportStats
}

// RestoreBackup merges a backup into the vault after checking all of it
// (it restores a backup; ImportEntries reads other tools' files). Operator only.
// Memories this vault deleted or forgot are left out (counted in
// Forgotten).
func (s *Service) RestoreBackup(ctx context.Context, req Request, path string, passphrase []byte) RestoreResponse {
	return s.RestoreBackupWith(ctx, req, path, passphrase, vault.ImportOptions{})
}

// RestoreBackupWith is RestoreBackup with options (IncludeForgotten).
// Operator only.
func (s *Service) RestoreBackupWith(ctx context.Context, req Request, path string, passphrase []byte, o vault.ImportOptions) RestoreResponse {
	if r, ok := s.operatorGate(req); !ok {
		return RestoreResponse{Response: r}
	}
	st, err := s.v.ImportFile(ctx, path, passphrase, req.actor(), o)
	if err != nil {
		return RestoreResponse{Response: s.fail("import", err)}
	}
	if err := s.idx.Rebuild(ctx); err != nil {
		s.log.Error("recall: reindex after import", "err", err)
	}
	return RestoreResponse{Response: Response{Status: StatusOK}, ImportStats: st}
}

// DefaultAuditRetention is how long audit entries are kept.
const DefaultAuditRetention = 90 * 24 * time.Hour

// DefaultSensitiveAuditRetention is how long the audit entries about the
// sensitive partition (L3 access records) are kept at least, whatever the
// retention of the rest (Options.SensitiveAuditRetention changes it).
const DefaultSensitiveAuditRetention = 365 * 24 * time.Hour

// sensitiveCutoff is the time before which L3 access records may go,
// when the rest goes before now-retention.
func (l *lifecycle) sensitiveCutoff(now time.Time, retention time.Duration) time.Time {
	return now.Add(-max(retention, l.sensitiveRetention))
}

// PruneResponse reports an audit prune.
type PruneResponse struct {
	Response
	Pruned int `json:"pruned"`
}

// PruneAudit removes audit entries older than retention (keeping the chain
// verifiable through its checkpoint). L3 access records (entries about the
// sensitive partition) are kept until the user approves their removal
// (PruneL3): the chain can only be cut at its start, so pruning stops at
// the first of them. Operator only.
func (s *Service) PruneAudit(ctx context.Context, req Request, now time.Time, retention time.Duration) PruneResponse {
	return s.life.PruneAudit(ctx, req, now, retention)
}

// PruneAudit is Service.PruneAudit's work.
func (l *lifecycle) PruneAudit(ctx context.Context, req Request, now time.Time, retention time.Duration) PruneResponse {
	return l.pruneAudit(req, now, retention, false)
}

// PruneL3 is the user's approval of the removal the sweep proposes
// (SweepResponse.L3Proposed): it prunes as PruneAudit does, and L3 access
// records too once past the sensitive retention (a year by default).
// Operator only.
func (s *Service) PruneL3(ctx context.Context, req Request, now time.Time, retention time.Duration) PruneResponse {
	return s.life.PruneL3(ctx, req, now, retention)
}

// PruneL3 is Service.PruneL3's work.
func (l *lifecycle) PruneL3(ctx context.Context, req Request, now time.Time, retention time.Duration) PruneResponse {
	return l.pruneAudit(req, now, retention, true)
}

func (l *lifecycle) pruneAudit(req Request, now time.Time, retention time.Duration, l3 bool) PruneResponse {
	if r, ok := l.operatorGate(req); !ok {
		return PruneResponse{Response: r}
	}
	if retention <= 0 {
		return PruneResponse{Response: Response{StatusInvalid, "the retention must be positive"}}
	}
	var sensitive time.Time // zero: no L3 record goes
	if l3 {
		sensitive = l.sensitiveCutoff(now, retention)
	}
	n, err := l.v.PruneAudit(now.Add(-retention), sensitive)
	if err != nil {
		return PruneResponse{Response: l.fail("prune audit", err)}
	}
	return PruneResponse{Response: Response{Status: StatusOK}, Pruned: n}
}

// l3Due counts the L3 access records past the sensitive retention: their
// removal waits for the user's approval (PruneL3).
func (l *lifecycle) l3Due(now time.Time, retention time.Duration) (int, error) {
	es, err := l.v.AuditLog(vault.AuditFilter{})
	if err != nil {
		return 0, err
	}
	cut, n := l.sensitiveCutoff(now, retention), 0
	for _, e := range es {
		if e.Partition == vault.Sensitive && e.Time.Before(cut) {
			n++
		}
	}
	return n, nil
}

// AuditReport is the result of verifying the audit chain.
type AuditReport = vault.AuditReport

// VerifyAudit checks the audit log's hash chain. Operator only.
func (s *Service) VerifyAudit(ctx context.Context, req Request) (AuditReport, Response) {
	if r, ok := s.operatorGate(req); !ok {
		return AuditReport{}, r
	}
	rep, err := s.v.VerifyAudit()
	if err != nil {
		return rep, s.fail("audit verify", err)
	}
	return rep, Response{Status: StatusOK}
}

// L3DueResponse is the removal of L3 access records that the sweep
// proposes: Due records (entries about the sensitive partition) were
// written before Before, past their retention, and stay until the user
// approves their removal (PruneL3 with the same now and retention).
type L3DueResponse struct {
	Response
	Due    int       `json:"due"`
	Before time.Time `json:"before"`
}

// L3Due reports the L3 access records past their retention as of now,
// for the audit retention retention (the larger of it and the sensitive
// retention applies, as in PruneL3). It counts what the sweep proposes
// (SweepResponse.L3Proposed) and changes nothing. Operator only.
func (s *Service) L3Due(ctx context.Context, req Request, now time.Time, retention time.Duration) L3DueResponse {
	return s.life.L3Due(ctx, req, now, retention)
}

// L3Due is Service.L3Due's work.
func (l *lifecycle) L3Due(ctx context.Context, req Request, now time.Time, retention time.Duration) L3DueResponse {
	if r, ok := l.operatorGate(req); !ok {
		return L3DueResponse{Response: r}
	}
	n, err := l.l3Due(now, retention)
	if err != nil {
		return L3DueResponse{Response: l.fail("l3 due", err)}
	}
	return L3DueResponse{Response: Response{Status: StatusOK}, Due: n, Before: l.sensitiveCutoff(now, retention)}
}
