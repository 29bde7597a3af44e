package decay_test

import (
	"fmt"
	"time"

	"github.com/engram-app/engram/decay"
)

func Example() {
	created := time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)
	pref := decay.Record{
		Kind:      decay.Preference,
		Tier:      decay.Episodic,
		UserSaved: true,
		Initial:   0.95, // a user's memory (vault.InitialConfidence)
		Created:   created,
	}
	p := decay.DefaultPolicy()

	// The worked example: a user preference halves every 90 days down to 0.2.
	for _, days := range []int{0, 90, 180, 270} {
		fmt.Printf("day %3d: confidence %.4f\n", days, decay.Confidence(pref, created.AddDate(0, 0, days)))
	}

	// As an episodic memory it expires after 90 days.
	for _, days := range []int{89, 90} {
		d := decay.Decide(pref, created.AddDate(0, 0, days), p)
		fmt.Printf("day %3d: %v %q\n", days, d.Action, d.Reason)
	}

	// Re-confirmed by the user on day 89: full confidence, a fresh 90 days.
	at := created.AddDate(0, 0, 89)
	confirmed := decay.Reconfirm(pref, at)
	expires, _ := decay.ExpiresAt(confirmed, p)
	fmt.Printf("re-confirmed: confidence %.4f, expires %s\n", decay.Confidence(confirmed, at), expires.Format(time.DateOnly))
	// Output:
	// day   0: confidence 0.9500
	// day  90: confidence 0.4750
	// day 180: confidence 0.2375
	// day 270: confidence 0.2000
	// day  89: keep ""
	// day  90: archive "expired"
	// re-confirmed: confidence 0.9500, expires 2025-06-29
}

func ExampleDecide_archive() {
	created := time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)
	p := decay.DefaultPolicy()
	// An agent's note in an allowlisted field: 30 days, then the archive.
	r := decay.Record{
		Kind:         decay.Pattern,
		Tier:         decay.Semantic,
		Field:        "gotchas",
		AgentWritten: true,
		Initial:      0.70, // an agent's memory
		Created:      created,
	}
	now := created.AddDate(0, 0, 30)
	d := decay.Decide(r, now, p)
	fmt.Println(d.Action, d.Reason, d.When.Format(time.DateOnly))

	// The sweep archives it; 180 days after expiry it is purged.
	r.Archived, r.ArchivedAt, r.ArchiveReason = true, now, d.Reason
	d = decay.Decide(r, now.AddDate(0, 0, 180), p)
	fmt.Println(d.Action, d.Reason, d.When.Format(time.DateOnly))
	// Output:
	// archive expired 2025-01-31
	// purge archive_retention 2025-07-30
}
