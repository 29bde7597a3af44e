package cli

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/engram-app/engram/app"
	"golang.org/x/term"
)

// parseArgs parses flags anywhere among the positional arguments, so
// `engram memory get ID --json` works; everything after "--" is positional.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var tail []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, tail = args[:i], args[i+1:]
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, tail...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// passphrases reads passphrases from, in order: a file named by a flag, an
// environment variable, the terminal.
type passphrases struct {
	getenv func(string) string
	tty    func(prompt string) ([]byte, error)
	// read reads the file the user named; nil means os.ReadFile.
	read func(path string) ([]byte, error)
}

// readPassFile reads a passphrase file: its first line, without the newline.
func (p passphrases) readPassFile(path string) ([]byte, error) {
	read := p.read
	if read == nil {
		read = os.ReadFile
	}
	b, err := read(path)
	if err != nil {
		return nil, fmt.Errorf("read passphrase file: %w", err)
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 {
		return nil, fmt.Errorf("passphrase file %s is empty", path)
	}
	return b, nil
}

// get returns the passphrase from file, env var or terminal.
func (p passphrases) get(file, env, prompt string) ([]byte, error) {
	if file != "" {
		return p.readPassFile(file)
	}
	if s := p.getenv(env); s != "" {
		return []byte(s), nil
	}
	if p.tty == nil {
		return nil, fmt.Errorf("%w: set %s, pass a passphrase file, or run in a terminal", app.ErrNoPassphrase, env)
	}
	b, err := p.tty(prompt)
	if errors.Is(err, app.ErrNoPassphrase) {
		return nil, fmt.Errorf("%w: no terminal to ask on; set %s or pass a passphrase file", app.ErrNoPassphrase, env)
	}
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, errors.New("empty passphrase")
	}
	return b, nil
}

// getNew returns a new passphrase, asking twice on a terminal.
func (p passphrases) getNew(file, env, what string) ([]byte, error) {
	if file != "" || p.getenv(env) != "" || p.tty == nil {
		return p.get(file, env, "")
	}
	a, err := p.get("", env, "New "+what+": ")
	if err != nil {
		return nil, err
	}
	b, err := p.get("", env, "Repeat the "+what+": ")
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(a, b) {
		return nil, errors.New("the passphrases do not match")
	}
	return a, nil
}

// terminalPrompt reads a passphrase from the controlling terminal without
// echo. It fails with ErrNoPassphrase when there is no terminal.
func terminalPrompt(prompt string) ([]byte, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, app.ErrNoPassphrase
	}
	defer tty.Close()
	if !term.IsTerminal(int(tty.Fd())) {
		return nil, app.ErrNoPassphrase
	}
	fmt.Fprint(tty, prompt)
	b, err := term.ReadPassword(int(tty.Fd()))
	fmt.Fprintln(tty)
	if err != nil {
		return nil, fmt.Errorf("read passphrase: %w", err)
	}
	return b, nil
}

// errNoTerminal says there is no terminal to read a line from.
var errNoTerminal = errors.New("no terminal")

// terminalLine reads a line from the controlling terminal, echoed, after
// printing prompt there. It fails with errNoTerminal when there is none.
func terminalLine(prompt string) (string, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return "", errNoTerminal
	}
	defer tty.Close()
	fmt.Fprint(tty, prompt)
	line, _ := bufio.NewReader(tty).ReadString('\n') // an unreadable answer confirms nothing
	return strings.TrimRight(line, "\r\n"), nil
}
