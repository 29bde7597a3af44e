package app_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/engram-app/engram"

// allowed lists, for each layer, which of our folders its non-test code
// may import (see ../shared/STYLE.md). A layer is a top-level folder, or
// a folder below one that is named here; its own subfolders are always
// allowed.
var allowed = map[string][]string{
	"vault":      {},
	"decay":      {},
	"partitions": {"vault"},
	"quarantine": {"vault"},
	// app/ is the memory service and its transports; the parts below
	// it that are named here are layers of their own, each importing
	// only what is listed, so the direction inside app/ holds too.
	"app": {"vault", "partitions", "quarantine", "decay", "app/policy", "app/agents", "app/upkeep", "app/recall", "app/embed", "app/importer"},
	// The write policy: pure decisions over the guard's findings.
	"app/policy": {"vault", "partitions", "quarantine"},
	// What the service knows of agents between requests.
	"app/agents": {"vault", "app/policy"},
	// Recall upkeep: the index kept current, vectors, access times, scrubbing.
	"app/upkeep": {"vault", "app/recall", "app/embed"},
	// Libraries: search, embedding, reading other tools' files.
	"app/recall":   {"vault", "decay"},
	"app/embed":    {},
	"app/importer": {"vault"},
	"ui":           {"app", "assets"}, // assets: the window and tray icon
	"cmd":          {"app", "ui", "app/recall", "app/embed"},
	"assets":       {},
	// The bench tool is not the product: it measures each layer on its
	// own (the vault's latencies, the guard against gitleaks).
	"cmd/engram-bench": {"app", "vault", "quarantine", "app/recall", "app/embed"},
}

// testAllowed lists what a layer's tests (TestImports and XTestImports)
// may import besides what its code may, each for a reason. Fixtures of a
// layer the code may import (vault/vaulttest in app, app/apptest in ui)
// need no entry.
var testAllowed = map[string][]string{
	// cmd/engram's idle-memory measurement of the desktop app fills its
	// vault with vault.Add, which through the service would take minutes,
	// and vaulttest makes it.
	"cmd": {module + "/vault", module + "/vault/vaulttest"},
	// The guard's vector classifier is trained and checked on the real
	// embedding model, which app/embed loads.
	"quarantine": {module + "/app/embed"},
	// Recall's quality tests run on the real model and measure CPU time.
	"app/recall": {module + "/app/embed", module + "/app/internal/cputime"},
	// ui's 100,000-memory benchmark fills its vault with vault.Add, as
	// cmd's does; the import dialog's tests read fixtures with the importer.
	"ui": {module + "/vault", module + "/vault/vaulttest", module + "/app/importer"},
}

// only these folders (or layers) may import these outside packages, in
// tests too.
var restricted = map[string][]string{
	"go.etcd.io/bbolt":              {"vault"},
	"golang.org/x/crypto/argon2":    {"vault"},
	"crypto/aes":                    {"vault"},
	"crypto/cipher":                 {"vault"},
	"filippo.io/age":                {"vault"},
	"fyne.io/fyne/v2":               {"ui", "cmd", "assets"},
	"github.com/zalando/go-keyring": {"app"},
	// gitleaks brings zerolog, viper and fifty more modules: the bench
	// tool compares the guard with it, the product never links it.
	"github.com/zricethezav/gitleaks/v8": {"cmd/engram-bench"},
}

// layer is the layer of one of our packages (see allowed).
func layer(pkg string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	for l := range allowed {
		if strings.Contains(l, "/") && (rest == l || strings.HasPrefix(rest, l+"/")) {
			return l
		}
	}
	return strings.SplitN(rest, "/", 2)[0]
}

// top is the top-level folder of one of our packages.
func top(pkg string) string {
	return strings.SplitN(strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/"), "/", 2)[0]
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
	n, tests := 0, 0
	for {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		from := layer(p.ImportPath)
		check := func(imp, what string, extra []string) {
			if contains(extra, imp) {
				return
			}
			if strings.HasPrefix(imp, module+"/") {
				if to := layer(imp); to != from && !contains(allowed[from], to) {
					t.Errorf("%s%s imports %s: %s/ may import only %v", p.ImportPath, what, imp, from, allowed[from])
				}
				return
			}
			for prefix, owners := range restricted {
				if (imp == prefix || strings.HasPrefix(imp, prefix+"/")) && !contains(owners, top(p.ImportPath)) && !contains(owners, from) {
					t.Errorf("%s%s imports %s, which only %v may use", p.ImportPath, what, imp, owners)
				}
			}
		}
		for _, imp := range p.Imports {
			check(imp, "", nil)
		}
		for _, imp := range append(p.TestImports, p.XTestImports...) {
			tests++
			check(imp, "'s tests", testAllowed[from])
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	if n < 5 || tests < 50 {
		t.Fatalf("go list found only %d packages, %d test imports", n, tests)
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
