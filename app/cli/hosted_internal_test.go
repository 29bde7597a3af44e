package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestForwardedEnv: every ENGRAM_ variable the command line reads either
// reaches a forwarded command from the user's side (forwardedEnv) or is
// read only where it is, for a stated reason; none is forgotten, so a
// forwarded command reads the same environment as offline.
func TestForwardedEnv(t *testing.T) {
	local := map[string]string{
		"ENGRAM_HOME":           "names the vault: the user's side resolves it and sends the vault's path",
		"ENGRAM_TOKEN":          "read by engram mcp, which runs in its own process",
		"ENGRAM_NEW_PASSPHRASE": "read by engram passphrase change, which runs in its own process",
	}
	name := regexp.MustCompile(`^ENGRAM_[A-Z_]+$`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && name.MatchString(s) {
				seen[s] = true
				if !slices.Contains(forwardedEnv, s) && local[s] == "" {
					t.Errorf("%s: %s is read but neither forwarded nor said to be local", fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
	}
	for _, v := range forwardedEnv {
		if !seen[v] {
			t.Errorf("%s is forwarded but never read", v)
		}
	}
}
