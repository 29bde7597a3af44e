// Package seal encrypts small records with AES-256-GCM.
//
// A sealed record is
//
//	version (1 byte, 0x01) || nonce (12 bytes) || ciphertext || tag (16 bytes)
//
// The caller supplies additional data that binds the record to where it is
// stored (record id, bucket, version), so a sealed record copied to another
// place fails to open.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
)

const (
	// KeySize is the size of an AES-256 key.
	KeySize = 32
	// NonceSize is the size of the GCM nonce stored in every record.
	NonceSize = 12
	// Overhead is the number of bytes Seal adds to a plaintext.
	Overhead = 1 + NonceSize + 16

	version1 byte = 0x01
)

var (
	// ErrAuth is returned for any record that fails to authenticate: wrong
	// key, flipped bit, wrong additional data. It is deliberately opaque.
	ErrAuth = errors.New("authentication failed")
	// ErrTruncated is returned for a record shorter than Overhead.
	ErrTruncated = errors.New("sealed record truncated")
	// ErrVersion is returned for a record whose first byte is not a known format.
	ErrVersion = errors.New("unknown sealed record version")
	// ErrKeySize is returned for a key that is not KeySize bytes.
	ErrKeySize = errors.New("key must be 32 bytes")
)

// Seal encrypts plaintext under key and binds aad to it.
//
// Nonce: 96 random bits per record from crypto/rand. A vault writes far fewer
// than 2^32 records under one key over its life, which keeps the chance of a
// repeated nonce negligible (NIST SP 800-38D, 8.3).
func Seal(key, plaintext, aad []byte) ([]byte, error) {
	var nonce [NonceSize]byte
	if _, err := io.ReadFull(rand.Reader, nonce[:]); err != nil {
		return nil, fmt.Errorf("seal: read nonce: %w", err)
	}
	return sealWithNonce(key, nonce[:], plaintext, aad)
}

// sealWithNonce is Seal with a caller-chosen nonce; only known-answer tests
// call it directly.
func sealWithNonce(key, nonce, plaintext, aad []byte) ([]byte, error) {
	aead, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 1+NonceSize, Overhead+len(plaintext))
	out[0] = version1
	copy(out[1:], nonce)
	return aead.Seal(out, nonce, plaintext, aad), nil
}

// Open authenticates and decrypts a record produced by Seal with the same aad.
// Any authentication failure returns exactly ErrAuth.
func Open(key, sealed, aad []byte) ([]byte, error) {
	if len(sealed) < Overhead {
		return nil, ErrTruncated
	}
	if sealed[0] != version1 {
		return nil, ErrVersion
	}
	aead, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	pt, err := aead.Open(nil, sealed[1:1+NonceSize], sealed[1+NonceSize:], aad)
	if err != nil {
		return nil, ErrAuth
	}
	return pt, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, ErrKeySize
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// NewKey returns a fresh random key.
func NewKey() ([]byte, error) {
	k := make([]byte, KeySize)
	if _, err := io.ReadFull(rand.Reader, k); err != nil {
		return nil, fmt.Errorf("seal: new key: %w", err)
	}
	return k, nil
}

// Wipe overwrites b with zeros. Go may have copied the bytes elsewhere; this
// is best effort, done so a key does not linger in the buffers we own.
func Wipe(b []byte) {
	clear(b)
}
