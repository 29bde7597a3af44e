package vault

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

var keySettings = []byte("settings")

// maxSettings bounds the stored settings document.
const maxSettings = 64 << 10

// Settings returns the application's settings document, a JSON object the
// vault stores but does not interpret, or nil when none was saved. Settings
// live in the vault file so that a backup of the file carries them and a
// second file cannot drift from it.
func (v *Vault) Settings() ([]byte, error) {
	var out []byte
	err := v.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketMeta).Get(keySettings); b != nil {
			out = append([]byte(nil), b...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("settings: %w", mapBoltErr(err))
	}
	return out, nil
}

// SetSettings replaces the settings document. doc must be a JSON object of
// at most 64 KiB; anything else fails with ErrInvalid and changes nothing.
// The change is audited (without the document).
func (v *Vault) SetSettings(doc []byte, a Actor) error {
	var obj map[string]json.RawMessage
	if len(doc) > maxSettings {
		return fmt.Errorf("settings: %w: %d bytes, at most %d", ErrInvalid, len(doc), maxSettings)
	}
	if err := json.Unmarshal(doc, &obj); err != nil || obj == nil {
		return fmt.Errorf("settings: %w: not a JSON object", ErrInvalid)
	}
	err := v.update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketMeta).Put(keySettings, append([]byte(nil), doc...)); err != nil {
			return err
		}
		return appendAuditTx(tx, v.now(), AuditEntry{Action: ActionSettings, Agent: a.agent(), Session: a.Session, Result: ResultOK, Reason: a.Reason})
	})
	if err != nil {
		return fmt.Errorf("settings: %w", mapBoltErr(err))
	}
	return nil
}
