package app_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestAuthFailuresAreSummed: failed authentications write nothing when
// they happen; one summary per AuthFailPeriod with failures holds their
// count by reason, none is written for a quiet period, and Close writes
// the failures since the last summary and ends the flush goroutine (the
// bubble would report it blocked otherwise).
func TestAuthFailuresAreSummed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		v, _ := vaulttest.New(t)
		s, err := app.New(v, app.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fails := func() []vault.AuditEntry {
			t.Helper()
			e, err := v.AuditLog(vault.AuditFilter{Action: vault.ActionAuthFail})
			if err != nil {
				t.Fatal(err)
			}
			return e
		}
		for i := range 1000 {
			tok := "engram_no-such-token"
			if i%4 == 0 {
				tok = "Basic abc"
			}
			if _, r := s.Authenticate(ctx, tok, ""); r.Status != app.StatusUnauthorized {
				t.Fatalf("Authenticate(bad token) = %+v", r)
			}
		}
		if n := len(fails()); n != 0 {
			t.Fatalf("1000 failures wrote %d entries at once, want 0 before the period ends", n)
		}
		time.Sleep(app.AuthFailPeriod) // the bubble's clock: the flush timer fires
		synctest.Wait()
		got := fails()
		if len(got) != 1 || got[0].Count != 1000 || got[0].Result != vault.ResultDenied ||
			!strings.Contains(got[0].Reason, "750 unknown or revoked token, 250 missing or malformed token") ||
			!strings.Contains(got[0].Reason, "a process the OS did not name (1000)") {
			t.Fatalf("after a period: %+v, want one summary of 1000 failures by reason", got)
		}
		time.Sleep(3 * app.AuthFailPeriod)
		synctest.Wait()
		if n := len(fails()); n != 1 {
			t.Errorf("quiet periods wrote %d summaries in all, want still 1", n)
		}
		for range 7 {
			s.Authenticate(ctx, "engram_another-wrong-one", "")
		}
		s.Close()
		got = fails()
		if len(got) != 2 || got[1].Count != 7 {
			t.Fatalf("after Close: %+v, want a second summary counting 7", got)
		}
		s.Authenticate(ctx, "engram_after-close", "")
		time.Sleep(2 * app.AuthFailPeriod)
		synctest.Wait()
		if n := len(fails()); n != 2 {
			t.Errorf("a failure after Close wrote a summary (%d in all), want none", n)
		}
	})
}
