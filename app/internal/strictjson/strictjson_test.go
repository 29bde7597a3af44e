package strictjson_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/engram-app/engram/app/internal/strictjson"
)

type source struct {
	Type string `json:"type"`
	Tool string `json:"tool"`
}

type input struct {
	Content string            `json:"content"`
	Tags    []string          `json:"tags"`
	Source  source            `json:"source"`
	Extra   map[string]string `json:"extra"`
	N       float64           `json:"n"`
	Raw     json.RawMessage   `json:"raw"`
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, data string
		want       error  // errors.Is
		msg        string // the error's text, when want is not nil
	}{
		{"plain", `{"content":"the build uses make","tags":["a","b"],"source":{"type":"tool_output"}}`, nil, ""},
		{"escapes and a surrogate pair", `{"content":"tab\t quote\" slash\\ \u00e9 \ud83d\ude00 \\ud800"}`, nil, ""},
		{"a real U+FFFD", `{"content":"\ufffd and �"}`, nil, ""},
		{"same key in two objects", `{"content":"x","source":{"type":"a"},"extra":{"type":"b"}}`, nil, ""},
		{"keys of a map differ in case", `{"extra":{"a":"1","b":"2"}}`, nil, ""},
		{"space around", " \n{\"content\":\"x\"}\n ", nil, ""},
		{"huge number in raw JSON", `{"raw":1e999}`, nil, ""},
		{"empty", " \n", strictjson.ErrEmpty, "empty"},
		{"invalid UTF-8", "{\"content\":\"caf\xe9\"}", strictjson.ErrNotUTF8, "not valid UTF-8"},
		{"overlong encoding", "{\"content\":\"\xc0\xaf\"}", strictjson.ErrNotUTF8, "not valid UTF-8"},
		{"trailing object", `{"content":"a"}{"content":"b"}`, strictjson.ErrTrailing, "trailing data after the JSON value"},
		{"trailing brace", `{"content":"a"}}`, strictjson.ErrTrailing, "trailing data after the JSON value"},
		{"duplicate key", `{"content":"a","content":"b"}`, strictjson.ErrDuplicateKey, `duplicate key "content"`},
		{"duplicate key in another case", `{"content":"a","CONTENT":"b"}`, strictjson.ErrDuplicateKey, `duplicate key "CONTENT"`},
		{"duplicate key by Unicode folding", `{"ſource":{"type":"a"}, "source":{}}`, strictjson.ErrDuplicateKey, `duplicate key "source"`}, // encoding/json reads "ſource" as source
		{"duplicate nested key", `{"source":{"type":"a","tool":"t","type":"b"}}`, strictjson.ErrDuplicateKey, `duplicate key "source.type"`},
		{"duplicate key in a map", `{"extra":{"k":"1","k":"2"}}`, strictjson.ErrDuplicateKey, `duplicate key "extra.k"`},
		{"NUL", `{"content":"a\u0000b"}`, strictjson.ErrNUL, `NUL character in "content"`},
		{"NUL in a tag", `{"tags":["a","\u0000"]}`, strictjson.ErrNUL, `NUL character in "tags[1]"`},
		{"NUL in a nested value", `{"source":{"tool":"\u0000"}}`, strictjson.ErrNUL, `NUL character in "source.tool"`},
		{"NUL in a key", `{"extra":{"a\u0000":"x"}}`, strictjson.ErrNUL, `NUL character in "extra.a\x00"`},
		{"NUL in raw JSON", `{"raw":{"x":["\u0000"]}}`, strictjson.ErrNUL, `NUL character in "raw.x[0]"`},
		{"lone high surrogate", `{"content":"a\ud800b"}`, strictjson.ErrSurrogate, `unpaired UTF-16 surrogate in "content"`},
		{"lone high surrogate at the end", `{"content":"\uD800"}`, strictjson.ErrSurrogate, `unpaired UTF-16 surrogate in "content"`},
		{"high surrogate and a letter escape", `{"content":"\ud800\u0041"}`, strictjson.ErrSurrogate, `unpaired UTF-16 surrogate in "content"`},
		{"lone low surrogate", `{"tags":["ok","\udc00"]}`, strictjson.ErrSurrogate, `unpaired UTF-16 surrogate in "tags[1]"`},
		{"two high surrogates", `{"content":"\ud83d\ud83d"}`, strictjson.ErrSurrogate, `unpaired UTF-16 surrogate in "content"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v input
			err := strictjson.Decode([]byte(tc.data), &v)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Decode(%q) = %v, want nil", tc.data, err)
				}
				return
			}
			if !errors.Is(err, tc.want) || err.Error() != tc.msg {
				t.Fatalf("Decode(%q) = %v, want %v (%q)", tc.data, err, tc.want, tc.msg)
			}
		})
	}
}

// TestDecodeKeepsEncodingJSONErrors: what encoding/json refuses is
// refused with its own error, which callers report as before.
func TestDecodeKeepsEncodingJSONErrors(t *testing.T) {
	var v input
	var syn *json.SyntaxError
	if err := strictjson.Decode([]byte(`{"content":"x",}`), &v); !errors.As(err, &syn) {
		t.Errorf("malformed JSON = %v, want a *json.SyntaxError", err)
	}
	var typ *json.UnmarshalTypeError
	if err := strictjson.Decode([]byte(`{"content":7}`), &v); !errors.As(err, &typ) || typ.Field != "content" {
		t.Errorf("wrong type = %v, want a *json.UnmarshalTypeError for content", err)
	}
	if err := strictjson.Decode([]byte(`{"agent":"root"}`), &v); err == nil || !strings.Contains(err.Error(), `unknown field "agent"`) {
		t.Errorf("unknown field = %v", err)
	}
}

// FuzzDecode: whatever the bytes, Decode does not panic, and what it
// accepts is valid UTF-8 without NUL, and decodes with encoding/json to
// the same value.
//
//	go test ./app/internal/strictjson -run '^$' -fuzz FuzzDecode -fuzztime 30s
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"content":"x","tags":["a"],"source":{"type":"t"}}`, `{"content":"a","content":"b"}`, `{"content":"\u0000"}`,
		`{"content":"\ud800"}`, `{"content":"\ud83d\ude00"}`, "{\"content\":\"\xff\"}", `{"extra":{"k":"1","K":"2"}}`,
		`{"raw":[1,{"a":null}]}`, `{}`, `[]`, `null`, ``, `{"n":1e400}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got any
		if err := strictjson.Decode(data, &got); err != nil {
			return
		}
		if !utf8.Valid(data) {
			t.Fatalf("accepted invalid UTF-8: %q", data)
		}
		var want any
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", data, err)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			t.Fatalf("Decode(%q) = %s, encoding/json %s", data, a, b)
		}
		if strings.Contains(string(a), `\u0000`) {
			t.Fatalf("accepted a NUL: %q", data)
		}
	})
}
