package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenTools is the file holding every tool definition as models see it.
var goldenTools = filepath.Join("testdata", "tools.golden.json")

// The tools the server lists (names, descriptions, annotations and input
// schemas after constrain, in the server's own bytes and property order)
// are exactly the golden file's: what agents read changes only when the
// file does, in the same commit. go test -run TestToolsGolden -update
// rewrites it.
func TestToolsGolden(t *testing.T) {
	s, err := newServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := toolsWriter{found: make(chan []byte, 1)}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, &mcp.LoggingTransport{Transport: st, Writer: &listed}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "golden", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, <-listed.found, "", "  "); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	if *update {
		if err := os.WriteFile(goldenTools, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenTools)
	if err != nil {
		t.Fatalf("%v (go test -run TestToolsGolden -update writes it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the tools as listed differ from %s (go test -run TestToolsGolden -update rewrites it after review):\n%s", goldenTools, got.Bytes())
	}
}

// toolsWriter receives the messages of a LoggingTransport on the server's
// side (one a Write) and sends the tools of the first tools/list answer
// the server wrote, its bytes as they are, on found.
type toolsWriter struct{ found chan []byte }

func (w *toolsWriter) Write(p []byte) (int, error) {
	msg, ok := strings.CutPrefix(string(p), "write: ")
	var m struct {
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if ok && json.Unmarshal([]byte(msg), &m) == nil && m.Result.Tools != nil {
		select {
		case w.found <- m.Result.Tools:
		default:
		}
	}
	return len(p), nil
}
