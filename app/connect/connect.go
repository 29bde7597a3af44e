package connect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/engram-app/engram/vault/atomicfile"
)

// ServerName is the name of Engram's entry in every client's file.
const ServerName = "engram"

// BackupSuffix is appended to a client file's name for the copy kept of
// it before Engram changed it.
const BackupSuffix = ".engram-backup"

// Entry is what a client runs to reach Engram: `COMMAND mcp --agent NAME`.
// It never holds a token.
type Entry struct {
	Command string
	Args    []string
	// Env is extra environment for the command (ENGRAM_HOME when the
	// vault is not in the default place); never a secret.
	Env map[string]string
}

// NewEntry is the entry that starts `engram mcp --agent agent` with the
// engram program at command.
func NewEntry(command, agent string, env map[string]string) Entry {
	return Entry{Command: command, Args: []string{"mcp", "--agent", agent}, Env: env}
}

// jsonEntry is an Entry as the JSON clients read it, in this key order.
type jsonEntryValue struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// Edit returns the client file src with Engram's entry set to e. It changes
// nothing (returns src itself) when the entry already means e.
func (c Client) Edit(src []byte, e Entry) ([]byte, error) {
	lf, crlf := toLF(src)
	var out []byte
	var err error
	if c.Format == TOML {
		out, err = tomlEdit(lf, func(src []byte) ([]byte, error) { return tomlInstall(src, c.Container+"."+ServerName, e) })
	} else {
		v := jsonEntryValue{Type: c.Type, Command: e.Command, Args: e.Args, Env: e.Env}
		out, err = jsonInstall(lf, c.Container, ServerName, v)
	}
	if err != nil || bytes.Equal(out, lf) {
		return src, err
	}
	return fromLF(out, crlf), nil
}

// toLF turns a file whose every line ends in CRLF (Windows) into LF lines
// for editing; fromLF turns the result back. Files with LF or mixed line
// ends are edited as they are.
func toLF(src []byte) ([]byte, bool) {
	n := bytes.Count(src, []byte("\n"))
	if n == 0 || bytes.Count(src, []byte("\r\n")) != n {
		return src, false
	}
	return bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n")), true
}

func fromLF(src []byte, crlf bool) []byte {
	if !crlf {
		return src
	}
	return bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))
}

// Strip returns the client file src without Engram's entry, and whether
// it had one. The rest of the file is kept byte for byte: for a file that
// Edit changed, Strip gives back the file before it, except that a servers
// object or table left empty goes (one that was empty before Edit too).
func (c Client) Strip(src []byte) ([]byte, bool, error) {
	lf, crlf := toLF(src)
	var out []byte
	var had bool
	var err error
	if c.Format == TOML {
		out, err = tomlEdit(lf, func(src []byte) ([]byte, error) {
			out, h, err := tomlRemove(src, c.Container+"."+ServerName)
			had = h
			return out, err
		})
	} else {
		out, had, err = jsonRemove(lf, c.Container, ServerName)
	}
	if err != nil || !had {
		return src, had, err
	}
	return fromLF(out, crlf), true, nil
}

// Status is what a client's file says about Engram.
type Status struct {
	Client    Client
	Path      string
	Installed bool
	// Connected is true when the file has an entry named engram.
	Connected bool
	// Agent is the agent the entry starts `engram mcp` as, if any.
	Agent string
	// Err is why the file could not be read, if it could not.
	Err error
}

var agentArg = regexp.MustCompile(`--agent["']?\s*[,=]?\s*["']?([A-Za-z0-9][A-Za-z0-9._-]{0,63})`)

// StatusOf reads the client's file and reports whether Engram is in it.
func (c Client) StatusOf(e Env) Status {
	s := Status{Client: c, Path: c.ConfigPath(e), Installed: c.Installed(e)}
	src, _, err := readFile(s.Path, s.Path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return s
	}
	if err != nil {
		s.Err = err
		return s
	}
	var raw []byte
	if c.Format == TOML {
		if err = tomlCheck(src); err == nil {
			raw, err = tomlEntry(src, c.Container+"."+ServerName)
		}
	} else {
		raw, err = jsonEntry(src, c.Container, ServerName)
	}
	s.Err = err
	if raw != nil {
		s.Connected = true
		if m := agentArg.FindSubmatch(raw); m != nil {
			s.Agent = string(m[1])
		}
	}
	return s
}

// Action is what a Plan does to the file.
type Action string

const (
	// Unchanged: the file already says what it should.
	Unchanged Action = "unchanged"
	// Create: the file does not exist and is created.
	Create Action = "create"
	// Update: the file is rewritten.
	Update Action = "update"
	// Restore: the file is replaced by its backup, which is what it was
	// before Engram's entry was added.
	Restore Action = "restore"
	// Delete: Engram created the file and nothing else is in it.
	Delete Action = "delete"
)

// Plan is a change to one client's file, computed before anything is
// written: Diff shows it, Apply makes it.
type Plan struct {
	Client Client
	Path   string
	Action Action
	// Before is the file as read (nil when it does not exist), After what
	// Apply writes (nil for Delete).
	Before, After []byte
	existed       bool
	mode          fs.FileMode
	// ours is set when Before holds Engram's entry or hooks: the file
	// was changed by Engram before, and its backup is left as it is.
	ours bool
}

// BackupNote says, after p changed its file, where the copy of it is, as
// " (… in FILE.engram-backup)": the version p replaced, or (when Engram
// had changed the file before) the one from before Engram first changed
// it, which is kept; "" when there is none.
func (p Plan) BackupNote() string {
	backup := p.Path + BackupSuffix
	if p.WritesBackup() {
		return fmt.Sprintf(" (the previous version is in %s)", backup)
	}
	if _, err := os.Stat(backup); err == nil {
		return fmt.Sprintf(" (as it was before Engram, it is still in %s)", backup)
	}
	return ""
}

// WritesBackup reports whether Apply keeps the file as it is now in
// Path+BackupSuffix: when it changes a file that holds nothing of
// Engram's. A file that holds Engram's entry or hooks already has (or,
// when Engram created it, never had) its backup, the file as it was
// before Engram first changed it; Apply leaves that backup alone, so
// that a removal gives it back byte for byte however many times
// Engram's parts were changed in between.
func (p Plan) WritesBackup() bool {
	return p.existed && !p.ours && (p.Action == Update || p.Action == Create)
}

// Changes reports whether Apply would touch the file.
func (p Plan) Changes() bool { return p.Action != Unchanged }

// MaxFileSize bounds a client's file that Engram reads: 128 MiB. A client's
// settings take kilobytes, but Claude Code keeps its projects' history in
// ~/.claude.json, which users have reported at 15, 65 and 101 MB; the cap
// leaves such a file editable while bounding what a runaway or hostile
// file costs (an edit holds a few copies of the file at once).
const MaxFileSize = 128 << 20

// read reads path, following a symbolic link to the file it names so
// that Apply replaces that file and keeps the link.
func read(path string) (real string, src []byte, mode fs.FileMode, existed bool, err error) {
	real = path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		real = r
	}
	src, fi, err := readFile(real, path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return real, nil, 0o600, false, nil
	}
	if err != nil {
		return real, nil, 0, false, err
	}
	return real, src, fi.Mode().Perm(), true, nil
}

// readFile reads the regular file at path (name is how errors call it)
// of at most limit bytes. A missing file is an error wrapping
// fs.ErrNotExist.
func readFile(path, name string, limit int64) ([]byte, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	// Checked before opening: opening a named pipe waits for a writer.
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", name)
	}
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return readCapped(f, name, limit)
}

// readCapped reads an open regular file of at most limit bytes. It reads
// at most limit+1 bytes, so that a file whose size is not what it says
// (one growing while it is read, a kernel file that says 0) costs no more
// than limit.
func readCapped(f fs.File, name string, limit int64) ([]byte, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", name)
	}
	tooLarge := fmt.Errorf("%w: %s is larger than %s; Engram does not edit it", ErrTooLarge, name, sizeName(limit))
	if fi.Size() > limit {
		return nil, nil, tooLarge
	}
	var b bytes.Buffer
	b.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, nil, err
	}
	if int64(b.Len()) > limit {
		return nil, nil, tooLarge
	}
	return b.Bytes(), fi, nil
}

// sizeName is n bytes in words: "128 MiB", or "100 bytes".
func sizeName(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// PlanInstall computes adding Engram's entry e to the client's file.
func (c Client) PlanInstall(env Env, e Entry) (Plan, error) {
	real, src, mode, existed, err := read(c.ConfigPath(env))
	if err != nil {
		return Plan{}, err
	}
	return c.planInstall(real, src, existed, mode, e)
}

func (c Client) planInstall(path string, src []byte, existed bool, mode fs.FileMode, e Entry) (Plan, error) {
	return planWith(entryEditor{c, e}, c, path, src, existed, mode)
}

// editor edits one kind of entry in a client's file: the MCP server
// entry (entryEditor) or the hooks (hookEditor).
type editor interface {
	edit(src []byte) ([]byte, error)
	strip(src []byte) ([]byte, bool, error)
	// restores reports whether src is base with Engram's entry added and
	// nothing else changed, so that removing it gives base back.
	restores(base, src []byte) bool
}

type entryEditor struct {
	c Client
	e Entry
}

func (x entryEditor) edit(src []byte) ([]byte, error)        { return x.c.Edit(src, x.e) }
func (x entryEditor) strip(src []byte) ([]byte, bool, error) { return x.c.Strip(src) }

// restores compares what is not Engram's entry: the entry may have been
// written with another command, agent or environment than the removal
// knows (a later connect changed it).
func (x entryEditor) restores(base, src []byte) bool {
	again, err := x.c.Edit(base, x.e)
	if err != nil {
		return false
	}
	if bytes.Equal(again, src) {
		return true
	}
	a, _, err1 := x.c.Strip(src)
	b, _, err2 := x.c.Strip(again)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

func planWith(ed editor, c Client, path string, src []byte, existed bool, mode fs.FileMode) (Plan, error) {
	p := Plan{Client: c, Path: path, Before: src, existed: existed, mode: mode}
	after, err := ed.edit(src)
	if err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	p.After = after
	if existed {
		if _, p.ours, err = ed.strip(src); err != nil {
			return p, fmt.Errorf("%s: %w", path, err)
		}
	}
	switch {
	case existed && bytes.Equal(after, src):
		p.Action = Unchanged
	case existed:
		p.Action = Update
	default:
		p.Action = Create
	}
	return p, nil
}

// PlanRemove computes taking Engram's entry out of the client's file. When
// the file is exactly what installing e into its backup gives (nothing else
// changed since), the backup comes back byte for byte; when Engram created
// the file and it holds nothing else, the file goes. Otherwise only the
// entry's bytes are removed.
func (c Client) PlanRemove(env Env, e Entry) (Plan, error) {
	real, src, mode, existed, err := read(c.ConfigPath(env))
	if err != nil {
		return Plan{}, err
	}
	backup, _, berr := readFile(real+BackupSuffix, real+BackupSuffix, MaxFileSize)
	return c.planRemove(real, src, existed, mode, backup, berr == nil, e)
}

func (c Client) planRemove(path string, src []byte, existed bool, mode fs.FileMode, backup []byte, haveBackup bool, e Entry) (Plan, error) {
	return planRemoveWith(entryEditor{c, e}, c, path, src, existed, mode, backup, haveBackup)
}

func planRemoveWith(ed editor, c Client, path string, src []byte, existed bool, mode fs.FileMode, backup []byte, haveBackup bool) (Plan, error) {
	p := Plan{Client: c, Path: path, Before: src, existed: existed, mode: mode, Action: Unchanged, After: src}
	if !existed {
		return p, nil
	}
	stripped, had, err := ed.strip(src)
	if err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	if !had {
		return p, nil
	}
	if haveBackup {
		if _, inBackup, err := ed.strip(backup); err == nil && !inBackup && ed.restores(backup, src) {
			p.Action, p.After = Restore, backup
			return p, nil
		}
	} else if ed.restores(nil, src) {
		p.Action, p.After = Delete, nil
		return p, nil
	}
	p.Action, p.After, p.ours = Update, stripped, true
	return p, nil
}

// Apply makes the change: when the file holds nothing of Engram's yet, it
// keeps a copy of it as it was next to it (NAME.engram-backup, mode 0600;
// see WritesBackup), then writes the new content atomically
// (a temporary file in the same directory, fsync, rename, fsync of the
// directory) with the file's mode. It fails with ErrChanged, writing
// nothing, when the file no longer holds what the plan read.
func (p Plan) Apply() error {
	if !p.Changes() {
		return nil
	}
	_, now, _, existed, err := read(p.Path)
	if err != nil {
		return err
	}
	if existed != p.existed || !bytes.Equal(now, p.Before) {
		return fmt.Errorf("%s: %w; run the command again", p.Path, ErrChanged)
	}
	switch p.Action {
	case Delete:
		return os.Remove(p.Path)
	case Restore:
		if err := writeAtomic(p.Path, p.After, p.mode); err != nil {
			return err
		}
		return os.Remove(p.Path + BackupSuffix)
	}
	if p.WritesBackup() {
		if err := writeAtomic(p.Path+BackupSuffix, p.Before, 0o600); err != nil {
			return fmt.Errorf("keep a backup: %w", err)
		}
	} else if err := os.MkdirAll(filepath.Dir(p.Path), 0o700); err != nil {
		return err
	}
	return writeAtomic(p.Path, p.After, p.mode)
}

// writeAtomic replaces path with data of the given mode through
// atomicfile (a temporary file in the same directory, fsync, rename, fsync
// of the directory), so a crash leaves the old file or the new, never half.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	return atomicfile.WriteFile(path, data, mode)
}

// MarshalEntry shows e as the client's file holds it (for messages).
func (c Client) MarshalEntry(e Entry) string {
	if c.Format == TOML {
		return string(bytes.Join(toBytes(renderTOML(c.Container+"."+ServerName, e)), []byte("\n")))
	}
	b, _ := json.Marshal(jsonEntryValue{Type: c.Type, Command: e.Command, Args: e.Args, Env: e.Env})
	return string(b)
}

func toBytes(lines []string) [][]byte {
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = []byte(l)
	}
	return out
}
