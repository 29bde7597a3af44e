// Package kdf derives key-encryption keys from passphrases with Argon2id.
package kdf

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/crypto/argon2"
)

// KeySize is the size of a derived key.
const KeySize = 32

// Bounds on stored parameters. A header asking for more than this is treated
// as damaged rather than run (a tampered header must not make Engram allocate
// 1 TiB or spin for an hour).
const (
	MaxMemoryKiB = 4 << 20 // 4 GiB
	MaxTime      = 64
	SaltSize     = 16
)

// DefaultMinMemoryKiB is the least memory Calibrate will choose: 64 MiB.
const DefaultMinMemoryKiB = 64 << 10

// ErrParams is returned for parameters outside the accepted bounds.
var ErrParams = errors.New("invalid key derivation parameters")

// Params are Argon2id parameters. They are stored in the vault header.
type Params struct {
	Time      uint32 `json:"time"`
	MemoryKiB uint32 `json:"memory_kib"`
	Threads   uint8  `json:"threads"`
	Salt      []byte `json:"salt"`
}

// Validate reports whether p is within bounds.
func (p Params) Validate() error {
	switch {
	case p.Time < 1 || p.Time > MaxTime:
		return fmt.Errorf("%w: time %d", ErrParams, p.Time)
	case p.MemoryKiB < 8*uint32(max(p.Threads, 1)) || p.MemoryKiB > MaxMemoryKiB:
		return fmt.Errorf("%w: memory %d KiB", ErrParams, p.MemoryKiB)
	case p.Threads < 1:
		return fmt.Errorf("%w: threads %d", ErrParams, p.Threads)
	case len(p.Salt) != SaltSize:
		return fmt.Errorf("%w: salt of %d bytes", ErrParams, len(p.Salt))
	}
	return nil
}

// Derive returns the 32-byte key for passphrase under p. p must be valid.
func Derive(passphrase []byte, p Params) ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return argon2.IDKey(passphrase, p.Salt, p.Time, p.MemoryKiB, p.Threads, KeySize), nil
}

// NewSalt returns a fresh random salt.
func NewSalt() ([]byte, error) {
	s := make([]byte, SaltSize)
	if _, err := io.ReadFull(rand.Reader, s); err != nil {
		return nil, fmt.Errorf("kdf: salt: %w", err)
	}
	return s, nil
}

// Calibrate picks parameters that take about target on this machine, with at
// least minMemoryKiB of memory. It measures one derivation at the minimum
// memory and raises the time cost (then memory, for fast machines) until the
// estimate reaches target. It runs a handful of derivations; ctx stops it.
func Calibrate(ctx context.Context, target time.Duration, minMemoryKiB uint32) (Params, error) {
	salt, err := NewSalt()
	if err != nil {
		return Params{}, err
	}
	p := Params{Time: 1, MemoryKiB: minMemoryKiB, Threads: 2, Salt: salt}
	probe := []byte("engram calibration")
	for {
		if err := ctx.Err(); err != nil {
			return Params{}, err
		}
		start := time.Now()
		if _, err := Derive(probe, p); err != nil {
			return Params{}, err
		}
		took := time.Since(start)
		if took >= target/2 || p.Time >= MaxTime {
			// Scale time linearly toward the target; Argon2 cost is linear in it.
			if took < target && took > 0 {
				scaled := uint32(float64(p.Time) * float64(target) / float64(took))
				p.Time = min(max(scaled, p.Time), MaxTime)
			}
			return p, nil
		}
		p.Time *= 2
	}
}
