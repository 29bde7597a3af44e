package hooks_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/connect"
	"github.com/engram-app/engram/app/hooks"
	"github.com/engram-app/engram/app/server"
)

// jsonFields maps a struct type's JSON names to their Go kinds, embedded
// structs flattened.
func jsonFields(t reflect.Type) map[string]reflect.Kind {
	out := map[string]reflect.Kind{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = f.Type.Kind()
		}
	}
	return out
}

// TestWireMatchesApp: every field the hook sends or reads is a field of
// app's type of the same operation, of the same kind (the hook does not
// link app: see wire.go).
func TestWireMatchesApp(t *testing.T) {
	for _, tc := range []struct{ mine, theirs any }{
		{hooks.BriefingInput{}, app.BriefingInput{}},
		{hooks.BriefingResponse{}, app.BriefingResponse{}},
		{hooks.RecallInput{}, app.RecallInput{}},
		{hooks.RecallResponse{}, app.RecallResponse{}},
		{hooks.Result{}, app.RecallResult{}},
		{hooks.StoreInput{}, app.StoreInput{}},
		{hooks.Source{}, app.Source{}},
		{hooks.StoreResponse{}, app.MemoryResponse{}},
	} {
		mine, theirs := jsonFields(reflect.TypeOf(tc.mine)), jsonFields(reflect.TypeOf(tc.theirs))
		if _, ok := tc.mine.(hooks.StoreResponse); ok {
			theirs["id"] = reflect.String // the server's storeReply adds the stored memory's id
		}
		for name, kind := range mine {
			if k, ok := theirs[name]; !ok || k != kind {
				t.Errorf("%T.%s (%v): %T has %v", tc.mine, name, kind, tc.theirs, k)
			}
		}
	}
	for _, s := range []hooks.Status{hooks.StatusOK, hooks.StatusQuarantined, hooks.StatusRejected, hooks.StatusConfirmationRequired, hooks.StatusPaused, hooks.StatusUnauthorized} {
		found := false
		for _, a := range []app.Status{app.StatusOK, app.StatusQuarantined, app.StatusRejected, app.StatusConfirmationRequired, app.StatusPaused, app.StatusUnauthorized} {
			found = found || string(a) == string(s)
		}
		if !found {
			t.Errorf("status %q is not app's", s)
		}
	}
	if hooks.DefaultAddr != server.DefaultAddr {
		t.Errorf("DefaultAddr = %s, server's %s", hooks.DefaultAddr, server.DefaultAddr)
	}
}

// TestDataDirMatchesApp: the hook finds the data directory app does.
func TestDataDirMatchesApp(t *testing.T) {
	for _, env := range []map[string]string{
		{"ENGRAM_HOME": "/e", "XDG_DATA_HOME": "/x", "HOME": "/h"},
		{"XDG_DATA_HOME": "/x", "HOME": "/h"},
		{"HOME": "/h"},
	} {
		getenv := func(k string) string { return env[k] }
		want, _ := app.DataDir(getenv)
		if got := hooks.DataDir(getenv); got != want {
			t.Errorf("DataDir(%v) = %s, app's %s", env, got, want)
		}
	}
}

// TestStoredToken: engram-hook reads the token engram connect kept, from
// the 0600 file where there is no keyring, and from the OS keyring where
// there is one (inside .ci/with-keyring).
func TestStoredToken(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"ENGRAM_HOME": dir, "ENGRAM_NO_KEYRING": "1"}
	getenv := func(k string) string { return env[k] }
	tk := connect.Tokens{Keyring: noKeyring{}, DataDir: dir}
	if _, err := tk.Save("claude-code", "engram_file_token"); err != nil {
		t.Fatal(err)
	}
	if got, err := hooks.StoredToken(getenv)("claude-code"); err != nil || got != "engram_file_token" {
		t.Errorf("StoredToken from the file = %q, %v", got, err)
	}
	if _, err := hooks.StoredToken(getenv)("nobody"); err == nil {
		t.Error("StoredToken of an agent without a token succeeded")
	}
	if _, err := hooks.StoredToken(getenv)("../x"); err == nil {
		t.Error("StoredToken of a path succeeded")
	}
	if os.Getenv("ENGRAM_TEST_KEYRING") != "1" {
		t.Skip("the OS keyring half runs inside .ci/with-keyring")
	}
	kdir := t.TempDir()
	ktk := connect.Tokens{Keyring: app.OSSecrets{}, DataDir: kdir}
	if st, err := ktk.Save("claude-code", "engram_keyring_token"); err != nil || st.File != "" {
		t.Fatalf("Save into the keyring = %+v, %v", st, err)
	}
	t.Cleanup(func() { ktk.Delete("claude-code") })
	env = map[string]string{"ENGRAM_HOME": kdir, "DBUS_SESSION_BUS_ADDRESS": os.Getenv("DBUS_SESSION_BUS_ADDRESS"), "XDG_RUNTIME_DIR": os.Getenv("XDG_RUNTIME_DIR")}
	if got, err := hooks.StoredToken(getenv)("claude-code"); err != nil || got != "engram_keyring_token" {
		t.Errorf("StoredToken from the keyring = %q, %v", got, err)
	}
}

type noKeyring struct{}

func (noKeyring) Get(string) (string, error) { return "", app.ErrKeyringUnavailable }
func (noKeyring) Set(string, string) error   { return app.ErrKeyringUnavailable }
func (noKeyring) Delete(string) error        { return nil }
