package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/engram-app/engram/app/cli"
)

// openPTY opens a pseudo-terminal: the side a program writes to (a
// terminal to it) and the side that reads what it wrote.
func openPTY(t *testing.T) (tty, reader *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty, ptmx
}

// importWith runs `engram init` and `engram import --from claude` of a
// file of n entries in a new home, with stderr as given, and returns
// what the import printed on stdout.
func importWith(t *testing.T, stderr io.Writer, n int) string {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"ENGRAM_HOME": filepath.Join(home, "engram"), "HOME": home, "ENGRAM_PASSPHRASE": "correct horse battery staple", "ENGRAM_NO_KEYRING": "1"}
	o := testOptions()
	o.Getenv = func(k string) string { return env[k] }
	o.Stderr = stderr
	var out bytes.Buffer
	o.Stdout = &out
	if code := cli.Run(context.Background(), []string{"init"}, o); code != 0 {
		t.Fatalf("init: exit %d: %s", code, out.String())
	}
	var file strings.Builder
	file.WriteString("# Rules\n\n")
	for i := range n {
		fmt.Fprintf(&file, "- Rule %d: the build of module %d runs its own tests first.\n", i, i)
	}
	path := filepath.Join(home, "CLAUDE.md")
	if err := os.WriteFile(path, []byte(file.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := cli.Run(context.Background(), []string{"import", "--from", "claude", path}, o); code != 0 {
		t.Fatalf("import: exit %d: %s", code, out.String())
	}
	return out.String()
}

// TestImportProgressOnTerminal: with standard error a terminal, `engram
// import` shows how many entries are done of how many, with a bar, and
// clears the line before the summary; the summary on standard output is
// the same as without a terminal.
func TestImportProgressOnTerminal(t *testing.T) {
	tty, reader := openPTY(t)
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(reader) // until the terminal side closes
		read <- string(b)
	}()
	out := importWith(t, tty, 300)
	tty.Close()
	shown := <-read
	for _, want := range []string{"importing 256 of 300 [" + strings.Repeat("#", 25), "importing 300 of 300 [" + strings.Repeat("#", 30) + "] 100%", "\r\033[K"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the terminal shows %q; want it to hold %q", shown, want)
		}
	}
	if !strings.HasSuffix(shown, "\r\033[K") {
		t.Errorf("the progress line is not cleared at the end: %q", shown)
	}
	if !strings.Contains(out, "300 entries from") {
		t.Errorf("stdout: %s", out)
	}
}

// TestImportNoProgressOffTerminal: with standard error a pipe or a file,
// nothing is written there.
func TestImportNoProgressOffTerminal(t *testing.T) {
	var stderr bytes.Buffer
	importWith(t, &stderr, 300)
	if strings.Contains(stderr.String(), "importing") || strings.Contains(stderr.String(), "\r") {
		t.Errorf("stderr, not a terminal, holds progress: %q", stderr.String())
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	importWith(t, f, 300)
	f.Close()
	b, _ := os.ReadFile(f.Name())
	if strings.Contains(string(b), "importing") || strings.Contains(string(b), "\r") {
		t.Errorf("stderr, a file, holds progress: %q", b)
	}
}
