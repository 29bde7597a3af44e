package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/host"
	"github.com/engram-app/engram/app/importer"
	"github.com/engram-app/engram/app/server"
)

// While engram serve or the desktop app holds the vault, the user's
// commands run inside that process, on its vault and service, with this
// same code: Run sends the arguments over the running Engram's Unix socket
// (POST /v1/admin/run with the admin token, server.Forward), and the
// running Engram runs them with Commands, its output, prompts and
// standard input crossing the connection. What belongs to the user's side
// stays there: the working directory (relative paths are taken from it),
// the terminal, and the environment variables in forwardedEnv, sent only
// when the command reads them.

// forwardedEnv are the environment variables a forwarded command may
// read from the user's side; it reads no other.
var forwardedEnv = []string{"ENGRAM_PASSPHRASE", "ENGRAM_BACKUP_PASSPHRASE", "ENGRAM_NO_KEYRING", "ENGRAM_AUDIT_RETENTION_DAYS"}

// forwardable reports whether args name a command that runs inside the
// running Engram when that holds the vault. The agent commands and lock
// reach it through their own endpoints (forward.go), except agent review,
// which runs there to ask on the user's terminal; init, serve, mcp,
// connect, guard, passphrase and doctor --salvage run only in their own
// process.
func forwardable(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "memory", "quarantine", "audit", "export", "import", "sweep":
		return true
	case "doctor":
		return !hasFlag(args[1:], "salvage")
	case "agent":
		return len(args) > 1 && args[1] == "review"
	case "sync":
		return len(args) > 1 && args[1] != "join"
	}
	return false
}

// forwardedExit carries the exit code of a command the running Engram
// ran; its output has been written already.
type forwardedExit struct{ code int }

func (f *forwardedExit) Error() string { return fmt.Sprintf("exit %d", f.code) }

// forwardRun runs args in the running Engram when one holds this vault and
// answers on its socket, and returns the exit code. It reports false when
// none answers, or the one that answers holds another vault or is older
// than this command: the command then runs here.
func (c *cmd) forwardRun(args []string) (int, bool) {
	rt, err := c.runtimeDir()
	if err != nil {
		return 0, false
	}
	token, err := os.ReadFile(filepath.Join(rt, server.AdminTokenFile))
	if err != nil {
		return 0, false
	}
	conn, err := net.DialTimeout("unix", filepath.Join(rt, "engram.sock"), 2*time.Second)
	if err != nil {
		return 0, false
	}
	path, err := c.vaultPath()
	if err != nil {
		conn.Close()
		return 0, false
	}
	dir, err := os.Getwd()
	if err != nil {
		conn.Close()
		return 0, false
	}
	inv := server.Invocation{Args: args, Dir: dir, Vault: path, Secret: c.o.Prompt != nil, Line: c.o.ReadLine != nil}
	code, err := server.Forward(c.ctx, conn, strings.TrimSpace(string(token)), inv, c.terminal())
	refused, isRefused := errors.AsType[*server.RefusedError](err)
	switch {
	case err == nil:
		return code, true
	case isRefused && refused.Code == http.StatusServiceUnavailable:
		fmt.Fprintf(c.o.Stderr, "engram: %s\n", refused.Message)
		return exitInUse, true
	case isRefused, c.ctx.Err() == nil && errors.Is(err, server.ErrUnreachable):
		return 0, false
	}
	fmt.Fprintf(c.o.Stderr, "engram: %v\n", err)
	return exitFailed, true
}

// terminal is this side of a forwarded command: the streams, prompts and
// environment of this process.
func (c *cmd) terminal() server.Terminal {
	t := server.Terminal{Stdin: c.o.Stdin, Stdout: c.o.Stdout, Stderr: c.o.Stderr, Getenv: func(name string) string {
		if !slices.Contains(forwardedEnv, name) {
			return ""
		}
		return c.o.Getenv(name)
	}}
	if prompt := c.o.Prompt; prompt != nil {
		t.Secret = func(p string) ([]byte, error) {
			b, err := prompt(p)
			if errors.Is(err, app.ErrNoPassphrase) {
				err = server.ErrNoTerminal
			}
			return b, err
		}
	}
	if readLine := c.o.ReadLine; readLine != nil {
		t.Line = func(p string) (string, error) {
			s, err := readLine(p)
			if errors.Is(err, errNoTerminal) {
				err = server.ErrNoTerminal
			}
			return s, err
		}
	}
	return t
}

// Commands is what a running Engram (engram serve, the desktop app) runs
// for the commands forwarded to it (host.Config.Commands): the command
// line, on the host's vault and service, with the user's terminal t.
// o gives the rest (the clock, the backup work factor).
func Commands(o Options) host.Commands {
	return func(ctx context.Context, h *host.Host, inv server.Invocation, t server.Terminal) int {
		o := o
		o.Stdin, o.Stdout, o.Stderr = t.Stdin, t.Stdout, t.Stderr
		o.Getenv = func(name string) string {
			if !slices.Contains(forwardedEnv, name) {
				return ""
			}
			return t.Getenv(name)
		}
		o.Prompt, o.ReadLine = nil, nil
		if t.Secret != nil {
			o.Prompt = func(p string) ([]byte, error) {
				b, err := t.Secret(p)
				if errors.Is(err, server.ErrNoTerminal) {
					err = app.ErrNoPassphrase
				}
				return b, err
			}
		}
		if t.Line != nil {
			o.ReadLine = func(p string) (string, error) {
				s, err := t.Line(p)
				if errors.Is(err, server.ErrNoTerminal) {
					err = errNoTerminal
				}
				return s, err
			}
		}
		// Unlocking goes through the host (keyStore); nothing else here
		// may use the keyring.
		o.KeyStore = app.NoKeyring{Reason: "a forwarded command unlocks through the running Engram"}
		o.Secrets = nil
		c := newCmd(ctx, o.filled())
		c.v, c.svc, c.host, c.dir, c.settings = h.Vault(), h.Service(), h, inv.Dir, h.Settings()
		if !forwardable(inv.Args) {
			return c.exit(usage("this command runs in its own process, not inside the running Engram"))
		}
		return c.exit(c.dispatch(inv.Args))
	}
}

// userPath is where the file the user named as p is, for this process:
// p itself offline; in a running Engram a relative p is taken from the
// user's working directory, joined without cleaning so that messages
// quoting it read as offline once exit turns it back (unresolve). A path
// that names a file of the user's own process (/dev/stdin, /dev/fd/N,
// /proc/self/...) cannot be opened from the running Engram.
func (c *cmd) userPath(p string) (string, error) {
	if c.host == nil || p == "" {
		return p, nil
	}
	for _, own := range []string{"/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/", "/proc/thread-self/"} {
		if p == own || (strings.HasSuffix(own, "/") && strings.HasPrefix(p, own)) {
			return "", fail(exitUsage, "%s is a file of this terminal's process, which the running Engram cannot open; name a regular file", p)
		}
	}
	if filepath.IsAbs(p) {
		return p, nil
	}
	abs := strings.TrimSuffix(c.dir, string(filepath.Separator)) + string(filepath.Separator) + p
	if c.resolved == nil {
		c.resolved = map[string]string{}
	}
	c.resolved[abs] = p
	if d := filepath.Dir(p); d != "." {
		c.resolved[filepath.Dir(abs)] = d // "the folder missing/dir does not exist"
	}
	return abs, nil
}

// unresolve turns the paths userPath resolved back into how the user
// wrote them, in a message.
func (c *cmd) unresolve(msg string) string {
	abs := make([]string, 0, len(c.resolved))
	for a := range c.resolved {
		abs = append(abs, a)
	}
	slices.SortFunc(abs, func(a, b string) int { return len(b) - len(a) }) // the longest first
	for _, a := range abs {
		msg = strings.ReplaceAll(msg, a, c.resolved[a])
	}
	return msg
}

// maxPassFile bounds a passphrase file read from standard input.
const maxPassFile = 64 << 10

// readUserFile reads a file the user named (a passphrase file).
// /dev/stdin is the command's standard input, the user's in a running
// Engram too.
func (c *cmd) readUserFile(p string) ([]byte, error) {
	if p == "/dev/stdin" {
		return io.ReadAll(io.LimitReader(c.o.Stdin, maxPassFile))
	}
	path, err := c.userPath(p)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// readImport is importer.Read of the file or folder the user named. In a
// running Engram the entries name their files as offline (relative to the
// user's working directory when the user gave a relative path): an
// entry's provenance keeps the name.
func (c *cmd) readImport(f importer.Format, path string) ([]importer.Entry, []importer.Skip, error) {
	p, err := c.userPath(path)
	if err != nil {
		return nil, nil, err
	}
	entries, skips, err := importer.Read(f, p)
	if p == path {
		return entries, skips, err
	}
	name := func(file string) string {
		if file == p {
			return path
		}
		if rel, err := filepath.Rel(c.dir, file); err == nil {
			return rel
		}
		return file
	}
	for i := range entries {
		entries[i].File = name(entries[i].File)
	}
	for i := range skips {
		skips[i].File = name(skips[i].File)
	}
	if se, ok := errors.AsType[*importer.SyntaxError](err); ok {
		se.File = name(se.File)
	}
	return entries, skips, err
}
