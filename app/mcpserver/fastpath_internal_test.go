package mcpserver

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestMarkSessionless(t *testing.T) {
	info := `{"name":"engram","title":"Engram memory vault","version":"` + Version + `"}`
	for _, tc := range []struct{ in, want string }{
		{`{"content":[],"isError":true}`, `{"_meta":{"io.modelcontextprotocol/serverInfo":` + info + `},"resultType":"complete","content":[],"isError":true}`},
		{`{}`, `{"_meta":{"io.modelcontextprotocol/serverInfo":` + info + `},"resultType":"complete"}`},
		{`{"_meta":{"trace":"t"},"content":[]}`, `{"_meta":{"io.modelcontextprotocol/serverInfo":` + info + `,"trace":"t"},"content":[],"resultType":"complete"}`},
		{`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x"}},"resultType":"input_required"}`, `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x"}},"resultType":"complete"}`},
		{`not json`, `not json`},
	} {
		got := markSessionless(json.RawMessage(tc.in))
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal([]byte(tc.want), &w) != nil {
			if string(got) != tc.want {
				t.Errorf("markSessionless(%s) = %s; want %s", tc.in, got, tc.want)
			}
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("markSessionless(%s) = %s; want %s", tc.in, got, tc.want)
		}
	}
}

func TestIDKey(t *testing.T) {
	for _, tc := range []struct {
		id   string
		key  string
		isID bool
	}{
		{`7`, "n7", true},
		{`-3`, "n-3", true},
		{`"7"`, "s7", true},
		{`"a\"b"`, `sa"b`, true},
		{`1.5`, "", false},
		{`null`, "", false},
		{`true`, "", false},
		{`{}`, "", false},
	} {
		key, ok := idKey(json.RawMessage(tc.id))
		if ok != tc.isID || ok && key != tc.key {
			t.Errorf("idKey(%s) = %q, %v; want %q, %v", tc.id, key, ok, tc.key, tc.isID)
		}
	}
}
