package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out")
	os.WriteFile(path, []byte("old"), 0o644)
	boom := errors.New("boom")
	tests := []struct {
		name    string
		fill    func(w io.Writer) error
		wantErr error
		want    string
	}{
		{"failed fill keeps the old file", func(w io.Writer) error { io.WriteString(w, "half"); return boom }, boom, "old"},
		{"success replaces it", func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }, nil, "new"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(path, 0o600, tc.fill)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Write = %v, want %v", err, tc.wantErr)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.want {
				t.Fatalf("file = %q, want %q", got, tc.want)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Fatalf("directory holds %d entries, want 1 (no temp files left)", len(entries))
			}
		})
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, want 0600", fi.Mode().Perm())
	}
}

func TestWriteIntoMissingDir(t *testing.T) {
	err := Write(filepath.Join(t.TempDir(), "no", "such", "dir", "f"), 0o600, func(io.Writer) error { return nil })
	if err == nil {
		t.Fatal("Write into a missing directory succeeded")
	}
}

// TestTempFile: while fill runs, the only new entry in the directory is a
// hidden temporary file named after TempPrefix, already of mode perm.
func TestTempFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secret")
	err := Write(path, 0o600, func(w io.Writer) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), TempPrefix+"secret-") {
			t.Errorf("while writing, the directory holds %v, want one %s%s-* file", entries, TempPrefix, "secret")
			return nil
		}
		fi, err := entries[0].Info()
		if err != nil {
			return err
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("the temporary file has mode %v before any byte is in it, want 0600", fi.Mode().Perm())
		}
		_, err = io.WriteString(w, "x")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	for _, want := range []string{"first", "second, longer", ""} {
		if err := WriteFile(path, []byte(want), 0o640); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("WriteFile(%q): file = %q, %v", want, got, err)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(entries))
	}
}
