// Package segment is the file format of the sync between devices: a
// sealed, signed segment of one device's changes (vault/DESIGN.md, "Sync
// across devices", "A segment file"). It knows bytes and keys, not
// memories: the payload is whatever the caller gives it.
package segment

import (
	"bytes"
	"compress/flate"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/google/uuid"
)

// Magic begins every segment file.
const Magic = "ENGSEG1\n"

// Sizes of the parts of a segment file.
const (
	idSize    = 16
	seqSize   = 8
	nonceSize = 12
	tagSize   = 16
	headSize  = len(Magic) + idSize + seqSize + nonceSize
	// Overhead is what a segment adds to its deflated payload.
	Overhead = headSize + tagSize + ed25519.SignatureSize
)

// MaxFile is the largest segment file read; MaxPayload the most a
// payload may inflate to. Both bound what a damaged or hostile file
// makes a reader allocate.
const (
	MaxFile    = 256 << 20
	MaxPayload = 256 << 20
)

// Errors. Any failure to authenticate (a flipped byte, a file moved to
// another device's directory or number, another vault's file, a wrong
// signature) is the one opaque ErrAuth.
var (
	ErrFormat   = errors.New("not a segment file")
	ErrAuth     = errors.New("segment authentication failed")
	ErrTooLarge = errors.New("segment too large")
)

// KeySize is the size of the segment key (AES-256).
const KeySize = 32

// aad is the additional data binding a segment to its vault, device and
// number.
func aad(vaultID, device [idSize]byte, seq uint64) []byte {
	b := make([]byte, 0, 64)
	b = append(b, "engram/sync/segment/v1\x00"...)
	b = append(b, vaultID[:]...)
	b = append(b, device[:]...)
	return binary.BigEndian.AppendUint64(b, seq)
}

// signed is what the device's signature covers: the file up to the
// signature, bound to the vault.
func signed(vaultID [idSize]byte, body []byte) []byte {
	b := make([]byte, 0, 64+len(body))
	b = append(b, "engram/sync/sig/v1\x00"...)
	b = append(b, vaultID[:]...)
	return append(b, body...)
}

func parseID(what, s string) ([idSize]byte, error) {
	u, err := uuid.Parse(s)
	if err != nil {
		return [idSize]byte{}, fmt.Errorf("%s %q is not a UUID", what, s)
	}
	return u, nil
}

// Seal returns the segment file of payload: deflated, sealed under key
// with AES-256-GCM (a random 96-bit nonce; a device writes far fewer than
// 2^32 segments under one key) and signed with the device's key.
func Seal(key []byte, vaultID, device string, seq uint64, payload []byte, priv ed25519.PrivateKey) ([]byte, error) {
	vid, err := parseID("vault id", vaultID)
	if err != nil {
		return nil, err
	}
	did, err := parseID("device id", device)
	if err != nil {
		return nil, err
	}
	if len(priv) != ed25519.PrivateKeySize {
		return nil, errors.New("seal segment: bad signing key")
	}
	if len(payload) > MaxPayload {
		return nil, ErrTooLarge
	}
	var z bytes.Buffer
	fw, err := flate.NewWriter(&z, flate.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := fw.Write(payload); err != nil {
		return nil, err
	}
	if err := fw.Close(); err != nil {
		return nil, err
	}
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, Overhead+z.Len())
	out = append(out, Magic...)
	out = append(out, did[:]...)
	out = binary.BigEndian.AppendUint64(out, seq)
	nonce := make([]byte, nonceSize)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	out = append(out, nonce...)
	out = gcm.Seal(out, nonce, z.Bytes(), aad(vid, did, seq))
	sig := ed25519.Sign(priv, signed(vid, out))
	if len(out)+len(sig) > MaxFile {
		return nil, ErrTooLarge
	}
	return append(out, sig...), nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	if len(key) != KeySize {
		return nil, errors.New("segment key: want 32 bytes")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// Head is what a segment says in clear: which device wrote it, and its
// number. Nothing in it is authenticated until Open succeeds.
type Head struct {
	Device string
	Seq    uint64
}

// ReadHead parses a segment's clear header. ErrFormat when raw is not a
// segment file or is too short to hold one.
func ReadHead(raw []byte) (Head, error) {
	if len(raw) < Overhead || string(raw[:len(Magic)]) != Magic {
		return Head{}, ErrFormat
	}
	if len(raw) > MaxFile {
		return Head{}, ErrTooLarge
	}
	var did uuid.UUID
	copy(did[:], raw[len(Magic):])
	seq := binary.BigEndian.Uint64(raw[len(Magic)+idSize:])
	return Head{Device: did.String(), Seq: seq}, nil
}

// Open authenticates a segment file and returns its payload. It checks,
// in this order, that raw is a segment (ErrFormat), that it was signed by
// pub (ErrAuth; pub nil skips this, for a device's first segment, whose
// payload carries the key: the caller then calls Verify with it), and
// that it opens under key for this vault and the device and number its
// header names (ErrAuth). The caller checks that the header's device and
// number are the ones it expects.
func Open(raw, key []byte, vaultID string, pub ed25519.PublicKey) ([]byte, error) {
	h, err := ReadHead(raw)
	if err != nil {
		return nil, err
	}
	vid, err := parseID("vault id", vaultID)
	if err != nil {
		return nil, err
	}
	if pub != nil {
		if err := Verify(raw, vaultID, pub); err != nil {
			return nil, err
		}
	}
	did, _ := uuid.Parse(h.Device)
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	body := raw[:len(raw)-ed25519.SignatureSize]
	nonce := body[len(Magic)+idSize+seqSize : headSize]
	z, err := gcm.Open(nil, nonce, body[headSize:], aad(vid, did, h.Seq))
	if err != nil {
		return nil, ErrAuth
	}
	fr := flate.NewReader(bytes.NewReader(z))
	defer fr.Close()
	payload, err := io.ReadAll(io.LimitReader(fr, MaxPayload+1))
	if err != nil {
		// Authenticated yet not deflate: written by something other than
		// Seal with the key.
		return nil, fmt.Errorf("%w: payload: %v", ErrFormat, err)
	}
	if len(payload) > MaxPayload {
		return nil, ErrTooLarge
	}
	return payload, nil
}

// Verify checks a segment file's signature against pub (ErrAuth).
func Verify(raw []byte, vaultID string, pub ed25519.PublicKey) error {
	if _, err := ReadHead(raw); err != nil {
		return err
	}
	vid, err := parseID("vault id", vaultID)
	if err != nil {
		return err
	}
	if len(pub) != ed25519.PublicKeySize {
		return ErrAuth
	}
	n := len(raw) - ed25519.SignatureSize
	if !ed25519.Verify(pub, signed(vid, raw[:n]), raw[n:]) {
		return ErrAuth
	}
	return nil
}
