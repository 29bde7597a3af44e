package kdf

import (
	"context"
	"encoding/hex"
	"errors"
	"testing"
	"time"
)

func saltSeq() []byte {
	s := make([]byte, SaltSize)
	for i := range s {
		s[i] = byte(i)
	}
	return s
}

// The expected key was computed independently with Python's cryptography
// package (OpenSSL's Argon2id).
func TestDeriveKnownAnswer(t *testing.T) {
	p := Params{Time: 1, MemoryKiB: 64, Threads: 1, Salt: saltSeq()}
	got, err := Derive([]byte("correct horse"), p)
	if err != nil {
		t.Fatal(err)
	}
	const want = "25ce5233cc1e4d37e9bca31bfef41710e40446cd1cb575932791c5fd3780bd3c"
	if hex.EncodeToString(got) != want {
		t.Fatalf("Derive = %x, want %s", got, want)
	}
}

func TestValidate(t *testing.T) {
	good := Params{Time: 1, MemoryKiB: 64, Threads: 1, Salt: saltSeq()}
	tests := []struct {
		name string
		mod  func(p *Params)
		ok   bool
	}{
		{"good", func(*Params) {}, true},
		{"zero time", func(p *Params) { p.Time = 0 }, false},
		{"huge time", func(p *Params) { p.Time = MaxTime + 1 }, false},
		{"huge memory", func(p *Params) { p.MemoryKiB = MaxMemoryKiB + 1 }, false},
		{"memory below 8 per thread", func(p *Params) { p.Threads = 16; p.MemoryKiB = 64 }, false},
		{"zero threads", func(p *Params) { p.Threads = 0 }, false},
		{"short salt", func(p *Params) { p.Salt = p.Salt[:8] }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := good
			p.Salt = saltSeq()
			tc.mod(&p)
			err := p.Validate()
			if (err == nil) != tc.ok {
				t.Fatalf("Validate(%+v) = %v, want ok=%v", p, err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrParams) {
				t.Fatalf("Validate error %v does not wrap ErrParams", err)
			}
			if _, derr := Derive([]byte("x"), p); (derr == nil) != tc.ok {
				t.Fatalf("Derive with %+v = %v, want ok=%v", p, derr, tc.ok)
			}
		})
	}
}

func TestCalibrateRespectsMinimumMemory(t *testing.T) {
	// A tiny target keeps the test fast; the minimum memory must still hold.
	p, err := Calibrate(context.Background(), time.Millisecond, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if p.MemoryKiB < 1024 || p.Time < 1 || p.Validate() != nil {
		t.Fatalf("Calibrate = %+v, want valid params with at least 1024 KiB", p)
	}
}

func TestCalibrateStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Calibrate(ctx, time.Second, 1024); !errors.Is(err, context.Canceled) {
		t.Fatalf("Calibrate(cancelled) = %v, want context.Canceled", err)
	}
}
