package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestNamedCommandsExist: every command that a user-facing text names in
// quotes ('engram X Y', `engram X Y`, (engram X Y) is one that engram help
// lists, so that no answer points the user to a command that does not
// exist (a confirmation request once named "engram review").
func TestNamedCommandsExist(t *testing.T) {
	// The commands and their subcommands, from the help text.
	subs := map[string][]string{"help": nil} // dispatch answers help
	for _, line := range strings.Split(helpText, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "engram" {
			continue
		}
		subs[f[1]] = append(subs[f[1]], f[1])
		for _, w := range f[2:] {
			subs[f[1]] = append(subs[f[1]], strings.FieldsFunc(w, func(r rune) bool { return r == '|' || r == '[' || r == ']' })...)
		}
	}
	// Commands whose second word is a subcommand (not a file or client).
	nested := []string{"memory", "agent", "quarantine", "audit", "passphrase"}
	named := regexp.MustCompile("['`(]engram ([a-z]+)(?: ([a-z][a-z-]*))?")
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if strings.HasSuffix(name, "_test.go") || !(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".md") || name == "openapi.json") {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range named.FindAllStringSubmatch(string(raw), -1) {
			cmd, sub := m[1], m[2]
			if _, ok := subs[cmd]; !ok {
				t.Errorf("%s names %q: engram has no command %q", path, strings.TrimLeft(m[0], "'`("), cmd)
				continue
			}
			if sub != "" && slices.Contains(nested, cmd) && !slices.Contains(subs[cmd], sub) {
				t.Errorf("%s names %q: engram %s has no subcommand %q", path, strings.TrimLeft(m[0], "'`("), cmd, sub)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(subs["memory"]) == 0 || !slices.Contains(subs["quarantine"], "approve") {
		t.Fatalf("commands read from the help text = %v", subs)
	}
}
