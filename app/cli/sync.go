package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/devsync"
	"github.com/engram-app/engram/vault"
)

// syncCmd runs engram sync: one vault on several devices through a
// synced folder (vault/DESIGN.md, "Sync across devices").
func (c *cmd) syncCmd(args []string) error {
	if len(args) == 0 {
		return usage("sync takes setup FOLDER, join FOLDER, now, status, devices or revoke DEVICE")
	}
	switch args[0] {
	case "setup":
		return c.syncSetup(args[1:])
	case "join":
		return c.syncJoin(args[1:])
	case "now":
		return c.syncNow(args[1:])
	case "status", "devices":
		return c.syncStatus(args[0], args[1:])
	case "revoke":
		return c.syncRevoke(args[1:])
	}
	return usage("unknown sync command %q", args[0])
}

// syncer opens and unlocks the vault (a sync needs its key) and returns
// its syncer, which keeps the service's recall index current.
func (c *cmd) syncer(passFile string) (*devsync.Syncer, error) {
	if err := c.openAndUnlock(unlockRequired, passFile); err != nil {
		return nil, err
	}
	hooks := devsync.Hooks{}
	if c.svc != nil {
		hooks.Changed = func(ids []string) { c.svc.SyncApplied(ids, nil) }
		hooks.Removed = func(ids []string) { c.svc.SyncApplied(nil, ids) }
	}
	return devsync.New(c.v, devsync.Options{Now: c.o.Now, Hooks: hooks}), nil
}

func deviceName(flagged string) string {
	if flagged != "" {
		return flagged
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "device"
}

func (c *cmd) syncSetup(args []string) error {
	fs := newFlags("sync setup")
	name := fs.String("name", "", "this device's name for the others (default: the host name)")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	pos, err := parse(fs, args, 1, 1, "the folder to sync through")
	if err != nil {
		return err
	}
	folder, err := c.userPath(pos[0])
	if err != nil {
		return err
	}
	s, err := c.syncer(*passFile)
	if err != nil {
		return err
	}
	r, err := s.Setup(c.ctx, folder, deviceName(*name))
	if err != nil {
		return syncErr(err)
	}
	st, err := s.Status()
	if err != nil {
		return err
	}
	fmt.Fprintf(c.out, "this vault syncs through %s as device %s (%s): %d memories and tombstones sent\n", st.Folder, st.Device, st.Name, r.Sent)
	return printLine(c.out, "on each other device: engram sync join FOLDER (with this vault's passphrase)")
}

func (c *cmd) syncJoin(args []string) error {
	fs := newFlags("sync join")
	name := fs.String("name", "", "this device's name for the others (default: the host name)")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	noKeyring := fs.Bool("no-keyring", false, "do not remember the key in the OS keyring")
	pos, err := parse(fs, args, 1, 1, "the folder to sync through")
	if err != nil {
		return err
	}
	path, err := c.vaultPath()
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil {
		return fail(exitFailed, "a vault already exists at %s: joining makes a new one (set ENGRAM_HOME to another folder, or move it aside)", path)
	}
	pass, err := c.pass.get(*passFile, "ENGRAM_PASSPHRASE", "the vault's passphrase: ")
	if err != nil {
		return err
	}
	defer clear(pass)
	v, r, err := devsync.Join(c.ctx, pos[0], path, pass, deviceName(*name), devsync.Options{Now: c.o.Now})
	if v != nil {
		c.v = v // closed (and scrubbed) by Run
	}
	if err != nil {
		return syncErr(err)
	}
	fmt.Fprintf(c.out, "created vault %s from %s: %d memories from %d segments\n", path, pos[0], r.Changed, r.Applied)
	if len(r.Refused) > 0 {
		fmt.Fprintf(c.o.Stderr, "engram: %d segments were refused: engram sync status says which\n", len(r.Refused))
	}
	if *noKeyring || c.o.Getenv("ENGRAM_NO_KEYRING") != "" {
		return printLine(c.out, "the key is not kept in the OS keyring: commands will ask for the passphrase")
	}
	if err := app.Remember(v, c.keyStore()); err != nil {
		fmt.Fprintf(c.o.Stderr, "engram: the key could not be kept in the OS keyring (%v); commands will ask for the passphrase\n", err)
	}
	return nil
}

func (c *cmd) syncNow(args []string) error {
	fs := newFlags("sync now")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	jsonOut := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0, "no arguments"); err != nil {
		return err
	}
	s, err := c.syncer(*passFile)
	if err != nil {
		return err
	}
	r, err := s.Now(c.ctx)
	if err != nil {
		return syncErr(err)
	}
	if *jsonOut {
		return printJSON(c.out, r)
	}
	fmt.Fprintf(c.out, "sent %d changes; applied %d segments: %d memories changed, %d removed, %d conflicts to review, %d changes to removed memories dropped\n",
		r.Sent, r.Applied, r.Changed, r.Removed, r.Conflicts, r.Dropped)
	for _, why := range r.Refused {
		fmt.Fprintf(c.o.Stderr, "engram: refused %s\n", why)
	}
	return nil
}

func (c *cmd) syncStatus(which string, args []string) error {
	fs := newFlags("sync " + which)
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	jsonOut := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0, "no arguments"); err != nil {
		return err
	}
	s, err := c.syncer(*passFile)
	if err != nil {
		return err
	}
	st, err := s.Status()
	if err != nil {
		return syncErr(err)
	}
	if *jsonOut {
		if which == "devices" {
			return printJSON(c.out, st.Devices)
		}
		return printJSON(c.out, st)
	}
	if which == "status" {
		last := "never"
		if !st.LastSync.IsZero() {
			last = st.LastSync.Local().Format(time.DateTime)
		}
		fmt.Fprintf(c.out, "folder %s\nthis device %s (%s): %d segments written, last exchange %s\n%d memories changed here wait for the next segment; %d conflicts wait in the quarantine\n",
			st.Folder, st.Device, st.Name, st.Seq, last, st.Pending, st.Conflicts)
		if st.Revoked {
			fmt.Fprintln(c.out, "this device was revoked on another device: it no longer syncs")
		}
	}
	for _, d := range st.Devices {
		seen := "never"
		if !d.LastSeen.IsZero() {
			seen = d.LastSeen.Local().Format(time.DateTime)
		}
		fmt.Fprintf(c.out, "%s  %-16s applied %d of %d, last %s, %d refused: %s\n", d.Device, d.Name, d.Applied, d.Available, seen, d.Refused, d.State())
	}
	if len(st.Devices) == 0 {
		fmt.Fprintln(c.out, "no other device has joined yet")
	}
	return nil
}

func (c *cmd) syncRevoke(args []string) error {
	fs := newFlags("sync revoke")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	pos, err := parse(fs, args, 1, 1, "the device (its id, an id prefix, or its name)")
	if err != nil {
		return err
	}
	s, err := c.syncer(*passFile)
	if err != nil {
		return err
	}
	if _, err := s.Revoke(c.ctx, pos[0]); err != nil {
		return syncErr(err)
	}
	return printLine(c.out, "revoked: its later segments are not applied here, and the other devices stop at the same segment once they read this device's")
}

// syncErr maps the sync's expected failures to one-sentence errors.
func syncErr(err error) error {
	switch {
	case errors.Is(err, devsync.ErrNotSetUp):
		return fail(exitFailed, "%v: run 'engram sync setup FOLDER' (first device) or 'engram sync join FOLDER'", err)
	case errors.Is(err, vault.ErrWrongPassphrase), errors.Is(err, vault.ErrLocked):
		return err
	case errors.Is(err, devsync.ErrAlreadySetUp), errors.Is(err, devsync.ErrOtherVault), errors.Is(err, devsync.ErrNoFolderVault),
		errors.Is(err, devsync.ErrRevoked), errors.Is(err, devsync.ErrUnknownDevice):
		return fail(exitFailed, "%v", err)
	}
	return err
}
