package importer

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"testing"
	"time"
)

// endless is an open file that says it is a regular, empty file and goes
// on, as a kernel file or a file growing while it is read may: it counts
// the bytes taken from it, and ends after 64 MiB so that a reader
// without a cap fails the test instead of running out of memory.
type endless struct{ read int64 }

func (e *endless) Stat() (fs.FileInfo, error) { return endlessInfo{}, nil }
func (e *endless) Close() error               { return nil }
func (e *endless) Read(p []byte) (int, error) {
	if e.read >= 1<<26 {
		return 0, io.EOF
	}
	p = p[:min(len(p), 1<<26-int(e.read))]
	for i := range p {
		p[i] = '-'
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
// says its size is.
func TestReadCapped(t *testing.T) {
	const limit = 1 << 16
	f := &endless{}
	data, err := readCapped(f, "endless", limit)
	if !errors.Is(err, ErrTooLarge) || data != nil {
		t.Fatalf("readCapped(an endless file) = %d bytes, %v; want ErrTooLarge", len(data), err)
	}
	if f.read > limit+1 {
		t.Errorf("read %d bytes of an endless file with a cap of %d, want at most %d", f.read, limit, limit+1)
	}

	// A real file that says it is empty: /proc/self/status.
	if p, err := os.Open("/proc/self/status"); err == nil {
		defer p.Close()
		if fi, err := p.Stat(); err == nil && fi.Size() == 0 {
			if _, err := readCapped(p, "status", 64); !errors.Is(err, ErrTooLarge) {
				t.Errorf("readCapped(/proc/self/status, 64) = %v, want ErrTooLarge", err)
			}
		}
	}

	// At the cap, a file is read whole; a byte more and it is refused.
	dir := t.TempDir()
	for _, tc := range []struct {
		size int
		ok   bool
	}{{limit, true}, {limit + 1, false}, {0, true}} {
		path := dir + "/f"
		if err := os.WriteFile(path, make([]byte, tc.size), 0o600); err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		data, err := readCapped(file, path, limit)
		file.Close()
		if ok := err == nil && len(data) == tc.size; ok != tc.ok {
			t.Errorf("readCapped(a file of %d bytes, cap %d) = %d bytes, %v; want ok %v", tc.size, limit, len(data), err, tc.ok)
		}
	}
}
