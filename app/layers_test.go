package app_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/engram-app/engram"

// allowed lists, for each top-level folder, which of our folders its
// non-test code may import (see ../shared/STYLE.md). Its own subfolders are
// always allowed.
var allowed = map[string][]string{
	"vault":      {},
	"decay":      {},
	"partitions": {"vault"},
	"quarantine": {"vault"},
	"app":        {"vault", "partitions", "quarantine", "decay"},
	"ui":         {"app", "assets"}, // assets: the window and tray icon
	"cmd":        {"app", "ui"},
	"assets":     {},
}

// only these folders may import these outside packages.
var restricted = map[string][]string{
	"go.etcd.io/bbolt":              {"vault"},
	"golang.org/x/crypto/argon2":    {"vault"},
	"crypto/aes":                    {"vault"},
	"crypto/cipher":                 {"vault"},
	"filippo.io/age":                {"vault"},
	"fyne.io/fyne/v2":               {"ui", "cmd", "assets"},
	"github.com/zalando/go-keyring": {"app"},
}

func top(pkg string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	return strings.SplitN(rest, "/", 2)[0]
}

func TestLayering(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = ".."
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(out)
	n := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		from := top(p.ImportPath)
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/") {
				to := top(imp)
				if to != from && !contains(allowed[from], to) {
					t.Errorf("%s imports %s: %s/ may import only %v", p.ImportPath, imp, from, allowed[from])
				}
				continue
			}
			for prefix, owners := range restricted {
				if (imp == prefix || strings.HasPrefix(imp, prefix+"/")) && !contains(owners, from) {
					t.Errorf("%s imports %s, which only %v may use", p.ImportPath, imp, owners)
				}
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	if n < 5 {
		t.Fatalf("go list found only %d packages", n)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
