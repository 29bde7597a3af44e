package vault

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

var fuzzKey = bytes.Repeat([]byte{7}, 32)

func FuzzDecodeRecord(f *testing.F) {
	m := Memory{ID: "6f1c1d2e-0000-4000-8000-000000000001", Content: "x", Version: 1}
	plain, _ := encodeRecord(&m, nil, "internal", m.ID, 1)
	sealed, _ := encodeRecord(&m, fuzzKey, "sensitive", m.ID, 1)
	f.Add(plain, "internal")
	f.Add(sealed, "sensitive")
	f.Add([]byte{0x02, 0, 0}, "sensitive")
	f.Add([]byte{}, "public")
	f.Fuzz(func(t *testing.T, raw []byte, bucket string) {
		var got Memory
		_, err := decodeRecord(raw, fuzzKey, bucket, m.ID, &got)
		if err == nil && isSealedRecord(raw) && bucket != "sensitive" {
			t.Fatalf("sealed record opened under bucket %q", bucket)
		}
	})
}

func FuzzDecodeHeader(f *testing.F) {
	good := []byte(`{"format":1,"vault_id":"v","created":"2026-01-01T00:00:00Z","kdf":{"time":1,"memory_kib":64,"threads":1,"salt":"AAECAwQFBgcICQoLDA0ODw=="},"kdf_alg":"argon2id","wrapped_key":"AQ=="}`)
	f.Add(good)
	f.Add([]byte(`{"format":99}`))
	f.Add([]byte(`{"kdf":{"memory_kib":4294967295}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		sum := sha256.Sum256(raw)
		h, err := decodeHeader(raw, sum[:])
		if err == nil && h.KDF.Validate() != nil {
			t.Fatalf("decodeHeader accepted out-of-bounds parameters %+v", h.KDF)
		}
	})
}

func FuzzDecodeBackup(f *testing.F) {
	f.Add([]byte("{\"engram_backup\":1,\"vault_id\":\"v\",\"created\":\"\",\"memories\":0}\n"))
	f.Add([]byte("{\"engram_backup\":1,\"memories\":1}\n{\"memory\":{},\"versions\":[]}\n"))
	f.Add([]byte("{\"engram_backup\":2}"))
	f.Fuzz(func(t *testing.T, plain []byte) {
		items, err := decodeBackup(plain)
		if err != nil {
			return
		}
		for _, it := range items {
			if err := checkItem(&it); err != nil {
				t.Fatalf("decodeBackup returned an item that fails its checks: %v", err)
			}
		}
	})
}
