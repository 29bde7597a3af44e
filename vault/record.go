package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	jsonv2 "encoding/json/v2"
	"errors"
	"fmt"

	"github.com/engram-app/engram/vault/internal/seal"
)

// Record envelope (see DESIGN.md):
//
//	plain:  0x01 || JSON
//	sealed: 0x02 || version (uint64, big-endian) || seal.Seal(JSON, aad)
//
// aad = "engram/record/v1" 0x00 bucket 0x00 id 0x00 version (uint64 BE).
// The version in clear lets the reader build the aad before decrypting; it
// is authenticated through the aad.
const (
	recordPlain  byte = 0x01
	recordSealed byte = 0x02
)

func recordAAD(bucket, id string, version uint64) []byte {
	var b bytes.Buffer
	b.WriteString("engram/record/v1\x00")
	b.WriteString(bucket)
	b.WriteByte(0)
	b.WriteString(id)
	b.WriteByte(0)
	_ = binary.Write(&b, binary.BigEndian, version)
	return b.Bytes()
}

// encodeRecord wraps a JSON value in the envelope. key is nil for plain records.
func encodeRecord(v any, key []byte, bucket, id string, version uint64) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if key == nil {
		return append([]byte{recordPlain}, body...), nil
	}
	ct, err := seal.Seal(key, body, recordAAD(bucket, id, version))
	if err != nil {
		return nil, err
	}
	out := make([]byte, 9, 9+len(ct))
	out[0] = recordSealed
	binary.BigEndian.PutUint64(out[1:], version)
	return append(out, ct...), nil
}

// recordSealedVersion reports whether raw is sealed, and its clear version.
func isSealedRecord(raw []byte) bool { return len(raw) > 0 && raw[0] == recordSealed }

// decodeRecord opens an envelope into v. It needs key only for sealed
// records, and returns ErrLocked when one is sealed and key is nil. Any
// authentication failure is ErrAuth naming the record.
func decodeRecord(raw []byte, key []byte, bucket, id string, v any) (version uint64, err error) {
	if len(raw) == 0 {
		return 0, fmt.Errorf("record %s/%s: %w: empty", bucket, id, ErrCorrupt)
	}
	var body []byte
	switch raw[0] {
	case recordPlain:
		body = raw[1:]
	case recordSealed:
		if len(raw) < 9 {
			return 0, fmt.Errorf("record %s/%s: %w: truncated", bucket, id, ErrCorrupt)
		}
		if key == nil {
			return 0, ErrLocked
		}
		version = binary.BigEndian.Uint64(raw[1:9])
		pt, err := seal.Open(key, raw[9:], recordAAD(bucket, id, version))
		switch {
		case errors.Is(err, seal.ErrAuth), errors.Is(err, seal.ErrTruncated):
			return 0, fmt.Errorf("record %s/%s: %w", bucket, id, ErrAuth)
		case errors.Is(err, seal.ErrVersion):
			return 0, fmt.Errorf("record %s/%s: %w: sealed record version", bucket, id, ErrFormat)
		case err != nil:
			return 0, fmt.Errorf("record %s/%s: %w", bucket, id, err)
		}
		body = pt
	default:
		return 0, fmt.Errorf("record %s/%s: %w: envelope byte %#x", bucket, id, ErrFormat, raw[0])
	}
	// json/v2's own semantics, unknown fields refused: decoding is most of
	// the cost of listing a large vault, and v2's exact-case names take
	// about a fifth less time than v1's options. Records are written by
	// encoding/json, whose output is always valid UTF-8 with exact-case,
	// unique names, so what v2 refuses beyond v1 (invalid UTF-8, duplicate
	// names) only ever comes from a damaged or forged record.
	if err := jsonv2.Unmarshal(body, v, jsonv2.RejectUnknownMembers(true)); err != nil {
		return 0, fmt.Errorf("record %s/%s: %w: %v", bucket, id, ErrCorrupt, err)
	}
	return version, nil
}

// checkMemory checks a memory record decoded from bucket under key id, as
// every read does: it must be stored under its own id and partition, and
// its content must match its content hash. A sealed record's AES-GCM tag
// already covers its bytes; this is what catches damage to a plain one
// (a flipped byte in its text), so that altered text is never served.
// What it does not catch is in DESIGN.md ("Damage is never served").
func checkMemory(m *Memory, bucket, id string) error {
	if m.ID != id || string(m.Partition) != bucket {
		return fmt.Errorf("record %s/%s: %w: stored under the wrong key", bucket, id, ErrCorrupt)
	}
	sum := sha256.Sum256([]byte(m.Content))
	var stored [sha256.Size]byte
	if n, err := hex.Decode(stored[:], []byte(m.ContentHash)); err != nil || n != len(stored) || stored != sum {
		return fmt.Errorf("record %s/%s: %w: the content does not match its hash", bucket, id, ErrCorrupt)
	}
	return nil
}
