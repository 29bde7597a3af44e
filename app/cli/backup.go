package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

// export writes an encrypted backup of the vault to a file, or with
// --format a readable copy (export.go).
func (c *cmd) export(args []string) error {
	if hasFlag(args, "format") {
		return c.exportReadable(args)
	}
	file, err := c.backupArgsWith("export", args, func(fs *flag.FlagSet) {
		fs.String("format", "", "markdown or jsonl: write a readable copy instead of a backup ('engram export --format F --help' lists its flags)")
	})
	if err != nil {
		return err
	}
	bp, err := c.pass.getNew("", "ENGRAM_BACKUP_PASSPHRASE", "backup passphrase")
	if err != nil {
		return err
	}
	defer clear(bp)
	path, err := c.userPath(file)
	if err != nil {
		return err
	}
	r := c.svc.Export(c.ctx, operator, path, bp, c.o.BackupWorkFactor)
	if err := fromResponse(r.Response); err != nil {
		return err
	}
	return printf(c.out, "exported %d memories to %s\n", r.Memories, file)
}

// importBackup restores an encrypted backup, or with --from reads another
// tool's memory or rules file (import.go).
func (c *cmd) importBackup(args []string) error {
	if hasFlag(args, "from") {
		return c.importFrom(args)
	}
	var includeForgotten *bool
	file, err := c.backupArgsWith("import", args, func(fs *flag.FlagSet) {
		includeForgotten = fs.Bool("include-forgotten", false, "import memories this vault deleted or forgot too")
		fs.String("from", "", "read another tool's memory or rules file instead of a backup: "+formatNames()+" ('engram import --from F --help' lists its flags)")
	})
	if err != nil {
		return err
	}
	bp, err := c.pass.get("", "ENGRAM_BACKUP_PASSPHRASE", "Backup passphrase: ")
	if err != nil {
		return err
	}
	defer clear(bp)
	path, err := c.userPath(file)
	if err != nil {
		return err
	}
	r := c.svc.RestoreBackupWith(c.ctx, operator, path, bp, vault.ImportOptions{IncludeForgotten: *includeForgotten})
	switch r.Status {
	case app.StatusUnauthorized:
		return fail(exitAuth, "wrong backup passphrase (or the backup's header is damaged); the vault was not changed")
	case app.StatusDamaged:
		return fail(exitDamaged, "the backup is damaged or truncated (%s); the vault was not changed", r.Message)
	}
	if err := fromResponse(r.Response); err != nil {
		return err
	}
	if err := printf(c.out, "imported %d memories from %s (%d already present, skipped)\n", r.Added, file, r.Skipped); err != nil {
		return err
	}
	if r.Forgotten > 0 {
		if err := printf(c.out, "left out %d memories this vault deleted or forgot (--include-forgotten imports them)\n", r.Forgotten); err != nil {
			return err
		}
	}
	if r.AuditVaultID != "" {
		return printf(c.out, "kept the backup's audit log (%d entries of vault %s, its chain intact) apart from this vault's log: never merged into it\n", r.AuditEntries, r.AuditVaultID)
	}
	return nil
}

// backupArgsWith parses `export|import FILE` with the flags more
// defines, then opens and unlocks the vault: a backup holds every
// partition.
func (c *cmd) backupArgsWith(name string, args []string, more func(*flag.FlagSet)) (string, error) {
	fs := newFlags(name)
	passFile := fs.String("passphrase-file", "", "read the vault passphrase from this file")
	if more != nil {
		more(fs)
	}
	pos, err := parse(fs, args, 1, 1, "one FILE argument")
	if err != nil {
		return "", err
	}
	return pos[0], c.openAndUnlock(unlockRequired, *passFile)
}

// isDamage reports whether err says the vault's bytes are damaged.
func isDamage(err error) bool {
	return errors.Is(err, vault.ErrCorrupt) || errors.Is(err, vault.ErrAuth) || errors.Is(err, vault.ErrFormat)
}

// salvage is `engram doctor --salvage FILE`: read the vault file without
// opening it through bbolt and without writing to it, and write every
// memory that can be recovered to FILE as a backup for 'engram import'.
func (c *cmd) salvage(out, passFile string) error {
	path, err := c.vaultPath()
	if err != nil {
		return err
	}
	s, err := vault.OpenSalvage(path, vault.Options{Now: c.o.Now})
	if errors.Is(err, vault.ErrNotFound) {
		return fail(exitFailed, "no vault at %s", path)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(c.out, "salvaging %s (read-only: the file is not changed)\n", path)
	if s.Sealed() > 0 {
		if err := c.unlockSalvage(s, passFile); err != nil {
			if !errors.Is(err, app.ErrNoPassphrase) && !errors.Is(err, vault.ErrCorrupt) {
				return err
			}
			fmt.Fprintf(c.o.Stderr, "engram: %v; sensitive memories are not recovered\n", err)
		}
	}
	bp, err := c.pass.getNew("", "ENGRAM_BACKUP_PASSPHRASE", "backup passphrase")
	if err != nil {
		return err
	}
	defer clear(bp)
	r, err := s.ExportFile(c.ctx, out, bp, vault.BackupOptions{WorkFactor: c.o.BackupWorkFactor})
	if err != nil {
		return err
	}
	if r.Total() == 0 && r.Lost() {
		_ = os.Remove(out) // an empty backup would only mislead
		printSalvage(c, r, "")
		return fail(exitDamaged, "nothing could be recovered from %s; restore from a backup with 'engram import FILE' into a new vault", path)
	}
	printSalvage(c, r, out)
	switch {
	case r.Lost():
		fmt.Fprintf(c.out, "next: move the damaged vault aside (mv %s %s.damaged), run 'engram init', then 'engram import %s'.\n", path, path, out)
		fmt.Fprintln(c.out, "      Keep the damaged file: an older backup may hold what is missing ('engram import' skips memories already present).")
		fmt.Fprintln(c.out, "      Backups hold memories and their versions only: register agents again; the audit log starts anew.")
		return fail(exitDamaged, "salvaged %d memories to %s; what could not be recovered is listed above", r.Total(), out)
	case r.Locked > 0:
		return fail(exitAuth, "salvaged %d memories to %s; %d sealed memories need the vault passphrase", r.Total(), out, r.Locked)
	}
	return printf(c.out, "the vault file is sound: %s holds all %d memories ('engram export' does the same for a healthy vault)\n", out, r.Total())
}

// unlockSalvage tries the OS keyring's key, then the passphrase.
func (c *cmd) unlockSalvage(s *vault.Salvage, passFile string) error {
	if id := s.ID(); id != "" {
		if key, err := c.keyStore().Get(id); err == nil {
			err := s.UnlockWithKey(key)
			clear(key)
			if err == nil {
				return nil
			}
		}
	}
	pass, err := c.pass.get(passFile, "ENGRAM_PASSPHRASE", "Passphrase for the Engram vault: ")
	if err != nil {
		return err
	}
	defer clear(pass)
	return s.Unlock(c.ctx, pass)
}

func printSalvage(c *cmd, r *vault.SalvageReport, out string) {
	for _, p := range r.FileProblems {
		fmt.Fprintf(c.out, "FILE %s\n", p)
	}
	var parts []string
	for _, p := range vault.AllPartitions {
		parts = append(parts, fmt.Sprintf("%s %d", p, r.Recovered[p]))
	}
	fmt.Fprintf(c.out, "recovered %d memories (%s) with %d versions", r.Total(), strings.Join(parts, ", "), r.Versions)
	if r.OutsideTree > 0 || r.VersionsRebuilt > 0 {
		fmt.Fprintf(c.out, "; %d from pages cut off by the damage, %d newest versions rebuilt", r.OutsideTree, r.VersionsRebuilt)
	}
	fmt.Fprintln(c.out)
	for _, d := range r.DamagedIDs {
		fmt.Fprintf(c.out, "DAMAGED %s\n", d)
	}
	for _, m := range r.Missing {
		fmt.Fprintf(c.out, "MISSING %s (in the audit log, not found in the file)\n", m)
	}
	if r.Locked > 0 {
		fmt.Fprintf(c.out, "LOCKED %d sealed memories (no key)\n", r.Locked)
	}
	if r.Unidentified > 0 {
		fmt.Fprintf(c.out, "UNREADABLE %d records on cut-off pages could not be decoded or authenticated\n", r.Unidentified)
	}
	if out != "" {
		fmt.Fprintf(c.out, "wrote %s (an encrypted backup, readable with the backup passphrase)\n", out)
	}
}
