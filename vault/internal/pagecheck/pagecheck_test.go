package pagecheck

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// sample builds a real bbolt file with nested, inline and large buckets.
func sample(t testing.TB) []byte {
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		big, _ := tx.CreateBucket([]byte("big"))
		for i := 0; i < 600; i++ {
			big.Put([]byte{byte(i >> 8), byte(i)}, make([]byte, 100))
		}
		big.Put([]byte("large"), make([]byte, 20000)) // an overflow page
		vers, _ := tx.CreateBucket([]byte("versions"))
		for i := 0; i < 20; i++ {
			sub, _ := vers.CreateBucket([]byte{byte(i)}) // inline buckets
			sub.Put([]byte("1"), []byte("v"))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSoundFile(t *testing.T) {
	if err := Check(sample(t)); err != nil {
		t.Fatalf("Check(sound file) = %v", err)
	}
}

func TestDamage(t *testing.T) {
	data := sample(t)
	ps := 4096
	tests := []struct {
		name string
		edit func(d []byte)
	}{
		{"truncated", func(d []byte) {}},
		{"meta page 0 damaged", func(d []byte) { d[40] ^= 1 }},
		{"both meta pages damaged", func(d []byte) { d[40] ^= 1; d[ps+40] ^= 1 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := append([]byte(nil), data...)
			if tc.name == "truncated" {
				d = d[:len(d)/2]
			}
			tc.edit(d)
			if err := Check(d); !errors.Is(err, ErrDamaged) {
				t.Fatalf("Check = %v, want ErrDamaged", err)
			}
		})
	}
}

// FuzzCheck: whatever the bytes, Check returns (no panic, no hang).
func FuzzCheck(f *testing.F) {
	data := sample(f)
	f.Add(data[:8192], 100, byte(1))
	f.Add(data, 9000, byte(0x80))
	f.Add(data, 4096*3+20, byte(0x02))
	f.Fuzz(func(t *testing.T, d []byte, off int, x byte) {
		if off >= 0 && off < len(d) {
			d[off] ^= x
		}
		_ = Check(d)
	})
}
