package importer_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/engram-app/engram/app/importer"
)

// write creates the file at path (and its folders) holding text.
func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// mkfifo makes a named pipe at path, and a writer that waits for a reader,
// writes text into it and closes it: the pipe reads as a small file. When
// the test ends, the writer is let go (by opening the pipe for reading
// without waiting) if nothing read it, so no goroutine is left behind.
func mkfifo(t *testing.T, path, text string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no named pipes in the file system")
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.WriteString(text)
		w.Close()
	}()
	t.Cleanup(func() {
		if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			<-done
			r.Close()
		}
		<-done
	})
}

// TestFolderStaysInside: importing a folder reads only the files inside
// it. A link that leads out of it (to a file, a folder or a device), a
// link loop, a broken link and a named pipe are skipped and listed, with
// why; the folder's own files are imported, and a link to one of them is
// followed.
func TestFolderStaysInside(t *testing.T) {
	tests := []struct {
		name string
		// make adds the problem to the project folder dir; out is a folder
		// outside it with a rule file (secret.mdc) and a folder of rules
		// (shared/).
		make func(t *testing.T, dir, out string)
		link string // the skipped path, relative to dir
		why  string // in the skip's reason
	}{
		{"absolute link to a file outside", func(t *testing.T, dir, out string) {
			symlink(t, filepath.Join(out, "secret.mdc"), filepath.Join(dir, ".cursor/rules/evil.mdc"))
		}, ".cursor/rules/evil.mdc", "a link to a file outside"},
		{"relative link to a file outside", func(t *testing.T, dir, out string) {
			symlink(t, "../../../out/secret.mdc", filepath.Join(dir, ".cursor/rules/evil.mdc"))
		}, ".cursor/rules/evil.mdc", "a link to a file outside"},
		{"link to a folder outside", func(t *testing.T, dir, out string) {
			symlink(t, filepath.Join(out, "shared"), filepath.Join(dir, ".cursor/rules/shared"))
		}, ".cursor/rules/shared", "a link to a folder outside"},
		{"link to a folder outside named like a rule", func(t *testing.T, dir, out string) {
			symlink(t, filepath.Join(out, "shared"), filepath.Join(dir, ".cursor/rules/shared.mdc"))
		}, ".cursor/rules/shared.mdc", "a link to a folder outside"},
		{"link to a device", func(t *testing.T, dir, out string) {
			if _, err := os.Stat("/dev/zero"); err != nil {
				t.Skip("no /dev/zero")
			}
			symlink(t, "/dev/zero", filepath.Join(dir, ".cursor/rules/zero.mdc"))
		}, ".cursor/rules/zero.mdc", "a link to a device outside"},
		{"link loop", func(t *testing.T, dir, out string) {
			symlink(t, "b.mdc", filepath.Join(dir, ".cursor/rules/a.mdc"))
			symlink(t, "a.mdc", filepath.Join(dir, ".cursor/rules/b.mdc"))
		}, ".cursor/rules/a.mdc", "a link loop"},
		{"broken link", func(t *testing.T, dir, out string) {
			symlink(t, "gone.mdc", filepath.Join(dir, ".cursor/rules/broken.mdc"))
		}, ".cursor/rules/broken.mdc", "a link to nothing"},
		{"named pipe", func(t *testing.T, dir, out string) {
			mkfifo(t, filepath.Join(dir, ".cursor/rules/pipe.mdc"), "- Read from the pipe.\n")
		}, ".cursor/rules/pipe.mdc", "a named pipe"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir, out := filepath.Join(base, "project"), filepath.Join(base, "out")
			write(t, filepath.Join(out, "secret.mdc"), "- The secret rule from outside.\n")
			write(t, filepath.Join(out, "shared/other.mdc"), "- The shared rule from outside.\n")
			write(t, filepath.Join(dir, ".cursor/rules/ok.mdc"), "- Keep functions short.\n")
			// A link inside the folder to one of its own files is followed.
			symlink(t, "ok.mdc", filepath.Join(dir, ".cursor/rules/same.mdc"))
			tc.make(t, dir, out)

			got, skips, err := importer.Read(importer.Cursor, dir)
			if err != nil {
				t.Fatalf("Read = %v, want the folder's own rules and the link skipped", err)
			}
			var texts []string
			for _, e := range got {
				texts = append(texts, e.Text)
			}
			if strings.Join(texts, "|") != "Keep functions short.|Keep functions short." {
				t.Errorf("entries = %q, want the folder's rule twice (ok.mdc and the link same.mdc to it)", texts)
			}
			want := filepath.Join(dir, filepath.FromSlash(tc.link))
			found := false
			for _, s := range skips {
				if s.File == want && s.Line == 0 && strings.Contains(s.Why, tc.why) {
					found = true
				}
			}
			if !found {
				t.Errorf("skips = %+v, want %s skipped as %q", skips, want, tc.why)
			}
		})
	}
}

// TestFolderOnlySkips: a folder whose only rule files are skipped links
// says so in its error.
func TestFolderOnlySkips(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "project")
	write(t, filepath.Join(base, "secret.mdc"), "- The secret rule from outside.\n")
	symlink(t, filepath.Join(base, "secret.mdc"), filepath.Join(dir, "evil.mdc"))
	got, _, err := importer.Read(importer.Cursor, dir)
	if err == nil || !strings.Contains(err.Error(), "no cursor files in") || !strings.Contains(err.Error(), "evil.mdc: a link to a file outside") {
		t.Fatalf("Read = %d entries, %v; want no files, naming the skipped link", len(got), err)
	}
}

// TestNamedPath: a path named on the command line may be a link (the
// user named it), but it must lead to a regular file: a named pipe or a
// device is refused before anything is read from it.
func TestNamedPath(t *testing.T) {
	base := t.TempDir()
	write(t, filepath.Join(base, "elsewhere/rules.mdc"), "- Named through a link.\n")
	symlink(t, filepath.Join(base, "elsewhere/rules.mdc"), filepath.Join(base, "link.mdc"))
	got, _, err := importer.Read(importer.Cursor, filepath.Join(base, "link.mdc"))
	if err != nil || len(got) != 1 || got[0].Text != "Named through a link." {
		t.Errorf("Read(a link named by the user) = %+v, %v; want its file's rule", got, err)
	}

	pipe := filepath.Join(base, "pipe.mdc")
	mkfifo(t, pipe, "- Read from the pipe.\n")
	paths := []string{pipe}
	if _, err := os.Stat("/dev/zero"); err == nil {
		symlink(t, "/dev/zero", filepath.Join(base, "zero.mdc"))
		paths = append(paths, "/dev/zero", filepath.Join(base, "zero.mdc"))
	}
	for _, p := range paths {
		got, _, err := importer.Read(importer.Cursor, p)
		if !errors.Is(err, importer.ErrNotRegular) || got != nil {
			t.Errorf("Read(%s) = %d entries, %v; want ErrNotRegular", p, len(got), err)
		}
	}
}

// TestTooLarge: a file over MaxFileSize is refused. The file is sparse:
// it takes no room on disk.
func TestTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "AGENTS.md")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(importer.MaxFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, _, err := importer.Read(importer.Agents, path); !errors.Is(err, importer.ErrTooLarge) || !strings.Contains(err.Error(), "32 MiB") {
		t.Errorf("Read(a file of 32 MiB and a byte) = %v, want ErrTooLarge naming the cap", err)
	}
}
