package connect

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// endless is an open file that says it is a regular, empty file and goes
// on, as a kernel file or a file growing while it is read may: it counts
// the bytes taken from it, and ends after 64 MiB so that a reader without
// a cap fails the test instead of running out of memory.
type endless struct{ read int64 }

func (e *endless) Stat() (fs.FileInfo, error) { return endlessInfo{}, nil }
func (e *endless) Close() error               { return nil }
func (e *endless) Read(p []byte) (int, error) {
	if e.read >= 1<<26 {
		return 0, io.EOF
	}
	p = p[:min(len(p), 1<<26-int(e.read))]
	for i := range p {
		p[i] = ' '
	}
	e.read += int64(len(p))
	return len(p), nil
}

type endlessInfo struct{}

func (endlessInfo) Name() string       { return "endless" }
func (endlessInfo) Size() int64        { return 0 }
func (endlessInfo) Mode() fs.FileMode  { return 0o644 }
func (endlessInfo) ModTime() time.Time { return time.Time{} }
func (endlessInfo) IsDir() bool        { return false }
func (endlessInfo) Sys() any           { return nil }

// TestReadCapped: the cap holds on what is read, not on what the file
// says its size is; a file at the cap is read whole.
func TestReadCapped(t *testing.T) {
	const limit = 1 << 16
	f := &endless{}
	data, _, err := readCapped(f, "settings.json", limit)
	if !errors.Is(err, ErrTooLarge) || data != nil || !strings.Contains(err.Error(), "settings.json is larger than 65536 bytes; Engram does not edit it") {
		t.Fatalf("readCapped(an endless file) = %d bytes, %v; want ErrTooLarge", len(data), err)
	}
	if f.read > limit+1 {
		t.Errorf("read %d bytes of an endless file with a cap of %d, want at most %d", f.read, limit, limit+1)
	}

	dir := t.TempDir()
	for _, tc := range []struct {
		size int
		ok   bool
	}{{limit, true}, {limit + 1, false}, {0, true}} {
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, make([]byte, tc.size), 0o600); err != nil {
			t.Fatal(err)
		}
		data, _, err := readFile(path, path, limit)
		if ok := err == nil && len(data) == tc.size; ok != tc.ok {
			t.Errorf("readFile(a file of %d bytes, cap %d) = %d bytes, %v; want ok %v", tc.size, limit, len(data), err, tc.ok)
		}
	}
}
