package vault_test

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// mappedKB is how much of path this process has resident through its
// memory maps, in kB, from /proc/self/smaps.
func mappedKB(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	total, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && fields[len(fields)-1] == path
			continue
		}
		if in && fields[0] == "Rss:" {
			n, _ := strconv.Atoi(fields[1])
			total += n
		}
	}
	return total
}

// After ReleasePages the vault's map holds (almost) nothing resident, and
// every memory still reads back whole.
func TestReleasePages(t *testing.T) {
	v, _ := vaulttest.New(t, vaulttest.NoSync)
	want := map[string]string{}
	for i := range 2000 {
		text := fmt.Sprintf("note %d: %s", i, strings.Repeat("the deploy runs on friday ", 20))
		m := mustAdd(t, v, vault.Internal, text)
		want[m.ID] = text
	}
	read := func() {
		n := 0
		if _, err := v.Each(vault.ListFilter{}, func(m *vault.Memory) error {
			if want[m.ID] != m.Content {
				return fmt.Errorf("memory %s reads %q", m.ID, m.Content)
			}
			n++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n != len(want) {
			t.Fatalf("read %d memories, want %d", n, len(want))
		}
	}
	read()
	before := mappedKB(t, v.Path())
	if before < 1024 {
		t.Fatalf("only %d kB of the vault resident after reading it all: the measure is wrong", before)
	}
	if err := v.ReleasePages(); err != nil {
		t.Fatal(err)
	}
	after := mappedKB(t, v.Path())
	t.Logf("vault map resident: %d kB before, %d kB after", before, after)
	if after > before/10 {
		t.Fatalf("after ReleasePages %d kB of the vault's map stay resident (%d before)", after, before)
	}
	read()
	mustAdd(t, v, vault.Internal, "written after the release")
}
