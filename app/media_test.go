package app_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestNoMediaInMemories: a data: URI, a base64-encoded image or audio
// blob and binary content are refused with the reason, from the user and
// agents alike (counted as an agent's refused write), on store and update; a link to an image, prose about
// data and a base64 value that is no media stay.
func TestNoMediaInMemories(t *testing.T) {
	v, clock := vaulttest.New(t)
	s, err := app.New(v, app.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	writer := register(t, s, app.AgentSpec{Name: "writer"})
	blob := func(header string) string {
		b := append([]byte(header), []byte(strings.Repeat("pixels and samples ", 8))...)
		return base64.StdEncoding.EncodeToString(b)
	}
	binary := "log dump: " + strings.Repeat("\x01\x02\x7f\x1b\ufffd", 6) + " end"
	for i, tc := range []struct {
		name, content, why string
	}{
		{"data URI", "The logo is data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk", "data: URI"},
		{"data URI of audio", "Alert sound: data:audio/wav,RIFF....", "data: URI"},
		{"base64 PNG", "Screenshot of the dashboard: " + blob("\x89PNG\r\n\x1a\n"), "base64-encoded PNG image"},
		{"base64 JPEG, URL-safe", "photo " + strings.NewReplacer("+", "-", "/", "_").Replace(blob("\xFF\xD8\xFF\xE0")), "base64-encoded JPEG image"},
		{"base64 MP3", blob("ID3\x04\x00"), "base64-encoded MP3 audio"},
		{"base64 M4A", blob("\x00\x00\x00\x20ftypM4A "), "base64-encoded MP4, M4A or HEIC media"},
		{"binary", binary, "binary content"},
	} {
		// An agent's media write counts as a refused write, as other
		// invalid ones do: a fresh agent for each.
		agent := register(t, s, app.AgentSpec{Name: fmt.Sprintf("agent%d", i)})
		for _, req := range []app.Request{operator, agent} {
			r := s.Store(ctx, req, app.StoreInput{Content: tc.content})
			if r.Status != app.StatusInvalid || !strings.Contains(r.Message, tc.why) {
				t.Errorf("%s by %s: Store = %+v; want invalid saying %q", tc.name, req.Caller.Name(), r.Response, tc.why)
			}
		}
	}
	kept := []string{
		"The architecture diagram is at https://wiki.example.com/img/arch.png ![arch](https://wiki.example.com/img/arch.png)",
		"data: the nightly export lands in s3://exports/nightly",
		"The CI cache key is base64 of the lockfile hash: " + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("lockfile hash v2 ", 4))),
		"Columns are separated by tabs:\tname\tsize\r\nand lines end in CRLF",
	}
	for _, c := range kept {
		r := s.Store(ctx, operator, app.StoreInput{Content: c})
		if !r.OK() {
			t.Errorf("Store(%q) = %+v; want it kept", c, r.Response)
		}
	}
	m := mustStore(t, s, writer, app.StoreInput{Content: "The logo lives in assets/logo.png"})
	inline := "The logo: data:image/svg+xml;utf8,<svg/>"
	if r := s.Update(ctx, writer, m.ID, app.UpdateInput{Content: &inline}); r.Status != app.StatusInvalid || !strings.Contains(r.Message, "data: URI") {
		t.Errorf("Update to a data: URI = %+v; want invalid", r.Response)
	}
}
