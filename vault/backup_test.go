package vault_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

var cheapBackup = vault.BackupOptions{WorkFactor: 10}

func TestExportImportRoundTrip(t *testing.T) {
	src, _ := vaulttest.New(t)
	var ids []string
	for _, p := range vault.LivePartitions {
		m := mustAdd(t, src, p, "backup me from "+string(p))
		src.Update(m.ID, vault.OpUpdate, operator, func(m *vault.Memory) error { m.Content += " (edited)"; return nil })
		ids = append(ids, m.ID)
	}
	path := filepath.Join(t.TempDir(), "backup.age")
	n, err := src.ExportFile(ctx, path, []byte("backup pw"), cheapBackup, operator)
	if err != nil || n != 3 {
		t.Fatalf("ExportFile = %d, %v; want 3", n, err)
	}
	raw, _ := os.ReadFile(path)
	if bytes.Contains(raw, []byte("backup me")) || !bytes.HasPrefix(raw, []byte("age-encryption.org/v1\n")) {
		t.Fatal("backup is not an encrypted age file")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode = %v, want 0600", fi.Mode().Perm())
	}

	dst, _ := vaulttest.New(t)
	mustAdd(t, dst, vault.Public, "already here")
	st, err := dst.ImportFile(ctx, path, []byte("backup pw"), operator, vault.ImportOptions{})
	if err != nil || st.Added != 3 || st.Skipped != 0 {
		t.Fatalf("ImportFile = %+v, %v; want 3 added", st, err)
	}
	for _, id := range ids {
		want, _ := src.Get(id, operator)
		got, err := dst.Get(id, operator)
		if err != nil || got.Content != want.Content || got.Version != 2 || got.StateHash() != want.StateHash() {
			t.Fatalf("imported %s = %+v, %v; want %+v", id, got, err, want)
		}
		if hist, err := dst.History(id, operator); err != nil || len(hist) != 2 {
			t.Fatalf("imported history = %d versions, %v; want 2", len(hist), err)
		}
	}
	st, err = dst.ImportFile(ctx, path, []byte("backup pw"), operator, vault.ImportOptions{})
	if err != nil || st.Added != 0 || st.Skipped != 3 {
		t.Fatalf("second ImportFile = %+v, %v; want 3 skipped", st, err)
	}
}

func TestImportRefusesBadBackups(t *testing.T) {
	src, _ := vaulttest.New(t)
	mustAdd(t, src, vault.Sensitive, "sensitive backup content")
	mustAdd(t, src, vault.Public, "public backup content")
	var buf bytes.Buffer
	if _, err := src.Export(ctx, &buf, []byte("pw"), cheapBackup, operator); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	flip := func(i int) []byte { b := bytes.Clone(good); b[i] ^= 1; return b }
	tests := []struct {
		name string
		data []byte
		pass string
		want error
	}{
		{"wrong passphrase", good, "other", vault.ErrWrongPassphrase},
		{"flipped payload byte", flip(len(good) - 30), "pw", vault.ErrBackup},
		{"flipped header MAC byte", flip(bytes.Index(good, []byte("\n--- ")) + 8), "pw", vault.ErrBackup},
		// A flipped salt derives another key: indistinguishable from a wrong passphrase.
		{"changed scrypt salt character", resalt(good), "pw", vault.ErrWrongPassphrase},
		{"truncated", good[:len(good)-17], "pw", vault.ErrBackup},
		{"empty file", nil, "pw", vault.ErrBackup},
		{"not age", []byte("hello\n"), "pw", vault.ErrBackup},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst, _ := vaulttest.New(t)
			before, _, _ := dst.List(vault.ListFilter{})
			_, err := dst.Import(ctx, bytes.NewReader(tc.data), []byte(tc.pass), operator, vault.ImportOptions{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Import = %v, want %v", err, tc.want)
			}
			after, _, _ := dst.List(vault.ListFilter{})
			if len(after) != len(before) {
				t.Fatalf("Import failed but changed the vault: %d -> %d memories", len(before), len(after))
			}
		})
	}
}

func TestExportNeedsUnlock(t *testing.T) {
	v, _ := vaulttest.New(t)
	v.Lock()
	var buf bytes.Buffer
	if _, err := v.Export(ctx, &buf, []byte("pw"), cheapBackup, operator); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("Export while locked = %v, want ErrLocked", err)
	}
}

func TestExportFileKeepsOldBackupOnFailure(t *testing.T) {
	v, _ := vaulttest.New(t)
	mustAdd(t, v, vault.Public, "x")
	path := filepath.Join(t.TempDir(), "b.age")
	os.WriteFile(path, []byte("previous backup"), 0o600)
	v.Lock() // export fails: locked
	if _, err := v.ExportFile(ctx, path, []byte("pw"), cheapBackup, operator); !errors.Is(err, vault.ErrLocked) {
		t.Fatalf("ExportFile = %v, want ErrLocked", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "previous backup" {
		t.Fatalf("previous backup replaced by %q", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

// resalt changes one character of the scrypt stanza's salt to another
// valid base64 character.
func resalt(b []byte) []byte {
	b = bytes.Clone(b)
	i := bytes.Index(b, []byte("scrypt ")) + len("scrypt ") + 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return b
}
