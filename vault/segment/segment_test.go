package segment

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"testing"
)

const (
	vaultA  = "dc23bef1-42bc-4eb3-ad71-043f84a79d35"
	vaultB  = "0b6a3f7e-2a52-4c5e-9f1e-3c0d8a6e7b21"
	devOne  = "11111111-2222-4333-8444-555555555555"
	devTwo  = "66666666-7777-4888-9999-aaaaaaaaaaaa"
	payload = `{"device":"x","seq":7,"entries":[{"type":"put"}]}`
)

func fixedKeys(t testing.TB) ([]byte, ed25519.PrivateKey, ed25519.PrivateKey) {
	t.Helper()
	key := bytes.Repeat([]byte{7}, KeySize)
	one := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize))
	two := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, ed25519.SeedSize))
	return key, one, two
}

func TestRoundTrip(t *testing.T) {
	key, one, _ := fixedKeys(t)
	raw, err := Seal(key, vaultA, devOne, 7, []byte(payload), one)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("entries")) {
		t.Fatal("the payload is in clear in the file")
	}
	h, err := ReadHead(raw)
	if err != nil || h.Device != devOne || h.Seq != 7 {
		t.Fatalf("ReadHead = %+v, %v; want %s 7", h, err, devOne)
	}
	got, err := Open(raw, key, vaultA, one.Public().(ed25519.PublicKey))
	if err != nil || string(got) != payload {
		t.Fatalf("Open = %q, %v; want %q", got, err, payload)
	}
}

// TestRefused: every way a reader could be given a segment that is not
// the one its device sealed for this vault, number and device is refused.
func TestRefused(t *testing.T) {
	key, one, two := fixedKeys(t)
	pub := one.Public().(ed25519.PublicKey)
	raw, err := Seal(key, vaultA, devOne, 7, []byte(payload), one)
	if err != nil {
		t.Fatal(err)
	}
	withSeq := func(seq uint64) []byte {
		b := bytes.Clone(raw)
		binary.BigEndian.PutUint64(b[len(Magic)+idSize:], seq)
		return b
	}
	withDevice := func() []byte {
		b := bytes.Clone(raw)
		copy(b[len(Magic):], []byte{0x66, 0x66, 0x66, 0x66, 0x77, 0x77, 0x48, 0x88, 0x99, 0x99, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa})
		return b
	}
	otherVault, err := Seal(key, vaultB, devOne, 7, []byte(payload), one)
	if err != nil {
		t.Fatal(err)
	}
	byTwo, err := Seal(key, vaultA, devOne, 7, []byte(payload), two)
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := Seal(bytes.Repeat([]byte{8}, KeySize), vaultA, devOne, 7, []byte(payload), one)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		raw  []byte
		pub  ed25519.PublicKey
		want error
	}{
		{"renumbered, signature checked", withSeq(8), pub, ErrAuth},
		{"renumbered, first segment (no key yet)", withSeq(8), nil, ErrAuth},
		{"moved to another device", withDevice(), nil, ErrAuth},
		{"another vault's segment", otherVault, pub, ErrAuth},
		{"another vault's segment, unsigned check", otherVault, nil, ErrAuth},
		{"signed by another device", byTwo, pub, ErrAuth},
		{"sealed under another key", otherKey, nil, ErrAuth},
		{"truncated by one byte", raw[:len(raw)-1], pub, ErrAuth},
		{"truncated to the header", raw[:headSize], nil, ErrFormat},
		{"empty", nil, nil, ErrFormat},
		{"not a segment", append([]byte("ENGSEG2\n"), raw[len(Magic):]...), nil, ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Open(tc.raw, key, vaultA, tc.pub); !errors.Is(err, tc.want) {
				t.Fatalf("Open = %v, want %v", err, tc.want)
			}
		})
	}
	// Every single flipped bit anywhere in the file is refused.
	for i := range raw {
		b := bytes.Clone(raw)
		b[i] ^= 0x01
		got, err := Open(b, key, vaultA, pub)
		if err == nil {
			t.Fatalf("a flip at byte %d of %d opened: %q", i, len(raw), got)
		}
	}
}

func FuzzOpen(f *testing.F) {
	key, one, _ := fixedKeys(f)
	pub := one.Public().(ed25519.PublicKey)
	for _, p := range []string{payload, "", "{}"} {
		raw, err := Seal(key, vaultA, devOne, 1, []byte(p), one)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, raw []byte) {
		h, herr := ReadHead(raw)
		got, err := Open(raw, key, vaultA, pub)
		if err != nil {
			return
		}
		// Whatever opens was sealed by the key's holder: it must name a
		// header and re-seal to a file that opens to the same payload.
		if herr != nil {
			t.Fatalf("opened but ReadHead failed: %v", herr)
		}
		again, err := Seal(key, vaultA, h.Device, h.Seq, got, one)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Open(again, key, vaultA, pub)
		if err != nil || !bytes.Equal(back, got) {
			t.Fatalf("re-sealed payload: %q, %v; want %q", back, err, got)
		}
	})
}
