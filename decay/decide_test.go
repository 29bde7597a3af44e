package decay

import (
	"testing"
	"time"
)

func TestExpiresAt(t *testing.T) {
	def := DefaultPolicy()
	ep := Record{Kind: Event, Tier: Episodic, Initial: 0.95, Created: t0}
	with := func(base Record, f func(*Record)) Record { f(&base); return base }
	tests := []struct {
		name   string
		r      Record
		p      Policy
		want   time.Time
		wantOK bool
	}{
		{"episodic default", ep, def, t0.Add(90 * day), true},
		{"episodic zero policy", ep, Policy{}, t0.Add(90 * day), true},
		{"episodic 365", ep, Policy{EpisodicTTL: 365 * day}, t0.Add(365 * day), true},
		{"episodic over 365 capped", ep, Policy{EpisodicTTL: 1000 * day}, t0.Add(365 * day), true},
		{"episodic from confirmation", with(ep, func(r *Record) { r.Confirmed = t0.Add(10 * day) }), def, t0.Add(100 * day), true},
		{"access does not extend", with(ep, func(r *Record) { r.Accessed = t0.Add(10 * day) }), def, t0.Add(90 * day), true},
		{"episodic user-saved", with(ep, func(r *Record) { r.UserSaved = true }), def, t0.Add(90 * day), true},
		{"pinned", with(ep, func(r *Record) { r.Pinned = true }), def, time.Time{}, false},
		{"pinned beats explicit TTL", with(ep, func(r *Record) { r.Pinned, r.TTL = true, day }), def, time.Time{}, false},
		{"explicit TTL", with(ep, func(r *Record) { r.TTL = 2 * day }), def, t0.Add(2 * day), true},
		{"explicit TTL on user semantic", Record{Tier: Semantic, UserSaved: true, Created: t0, TTL: day}, def, t0.Add(day), true},
		{"negative TTL ignored", with(ep, func(r *Record) { r.TTL = -day }), def, t0.Add(90 * day), true},
		{"semantic user-saved", Record{Tier: Semantic, UserSaved: true, Created: t0}, def, time.Time{}, false},
		{"semantic user-saved in agent field", Record{Tier: Semantic, UserSaved: true, AgentWritten: true, Field: "learnings", Created: t0}, def, time.Time{}, false},
		{"agent field semantic", Record{Tier: Semantic, AgentWritten: true, Field: "gotchas", Created: t0}, def, t0.Add(30 * day), true},
		{"agent field episodic", with(ep, func(r *Record) { r.AgentWritten, r.Field = true, "decisions" }), def, t0.Add(30 * day), true},
		{"agent field custom TTL", Record{Tier: Semantic, AgentWritten: true, Field: "conventions", Created: t0}, Policy{AgentFieldTTL: 7 * day}, t0.Add(7 * day), true},
		{"agent other field episodic", with(ep, func(r *Record) { r.AgentWritten, r.Field = true, "notes" }), def, t0.Add(90 * day), true},
		{"agent other field semantic", Record{Tier: Semantic, AgentWritten: true, Field: "notes", Created: t0}, def, time.Time{}, false},
		{"user field not agent-written", Record{Tier: Semantic, Field: "preferences", Created: t0}, def, time.Time{}, false},
		{"unknown tier", Record{Tier: "working", Created: t0}, def, time.Time{}, false},
		{"no timestamps", Record{Tier: Episodic}, def, time.Time{}, false},
		{"only confirmation", Record{Tier: Episodic, Confirmed: t0}, def, t0.Add(90 * day), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ExpiresAt(tc.r, tc.p)
			if ok != tc.wantOK || !got.Equal(tc.want) {
				t.Errorf("ExpiresAt(%+v) = %v, %v, want %v, %v", tc.r, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestDecideTTLBoundaries checks each TTL one second before, at and one
// second after the expiry.
func TestDecideTTLBoundaries(t *testing.T) {
	ep := Record{Kind: Fact, Tier: Episodic, Initial: 0.95, Created: t0}
	tests := []struct {
		name   string
		r      Record
		p      Policy
		expiry time.Time
		due    Decision // at and after the expiry
	}{
		{"episodic 90 days", ep, DefaultPolicy(), t0.Add(90 * day),
			Decision{Action: Archive, Reason: ReasonExpired}},
		{"episodic 365 days", ep, Policy{EpisodicTTL: 365 * day}, t0.Add(365 * day),
			Decision{Action: Archive, Reason: ReasonExpired}},
		{"episodic 7 days", ep, Policy{EpisodicTTL: 7 * day}, t0.Add(7 * day),
			Decision{Action: Archive, Reason: ReasonExpired}},
		{"agent field 30 days", Record{Kind: Preference, Tier: Semantic, AgentWritten: true, Field: "preferences", Initial: 0.7, Created: t0},
			DefaultPolicy(), t0.Add(30 * day), Decision{Action: Archive, Reason: ReasonExpired}},
		{"reconfirmed episodic", Reconfirm(ep, t0.Add(60*day)), DefaultPolicy(), t0.Add(150 * day),
			Decision{Action: Archive, Reason: ReasonExpired}},
		{"sensitive purges", Record{Kind: Fact, Tier: Semantic, Sensitive: true, TTL: day, Initial: 0.95, Created: t0},
			DefaultPolicy(), t0.Add(day), Decision{Action: Purge, Reason: ReasonSensitiveExpired}},
		{"sensitive episodic purges", func() Record { r := ep; r.Sensitive = true; return r }(),
			DefaultPolicy(), t0.Add(90 * day), Decision{Action: Purge, Reason: ReasonSensitiveExpired}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := ExpiresAt(tc.r, tc.p); !ok || !got.Equal(tc.expiry) {
				t.Fatalf("ExpiresAt = %v, %v, want %v, true", got, ok, tc.expiry)
			}
			before := tc.expiry.Add(-time.Second)
			if d := Decide(tc.r, before, tc.p); d != (Decision{}) {
				t.Errorf("Decide(1s before expiry) = %+v, want Keep", d)
			}
			want := tc.due
			want.When = tc.expiry
			for _, now := range []time.Time{tc.expiry, tc.expiry.Add(time.Second)} {
				if d := Decide(tc.r, now, tc.p); d != want {
					t.Errorf("Decide(%v after expiry) = %+v, want %+v", now.Sub(tc.expiry), d, want)
				}
			}
		})
	}
}

func TestDecide(t *testing.T) {
	def := DefaultPolicy()
	// A semantic fact saved by the user and recalled recently: no TTL.
	live := Record{Kind: Fact, Tier: Semantic, UserSaved: true, Initial: 0.95, Created: t0, Accessed: t0.Add(300 * day)}
	with := func(f func(*Record)) Record { r := live; f(&r); return r }
	now := t0.Add(400 * day)
	tests := []struct {
		name string
		r    Record
		now  time.Time
		p    Policy
		want Decision
	}{
		{"live", live, now, def, Decision{}},
		{"refuted", with(func(r *Record) { r.Refuted = true }), now, def,
			Decision{Action: Archive, Reason: ReasonRefuted, When: now, Note: "refuted"}},
		{"refuted with note", with(func(r *Record) { r.Refuted, r.RefutedNote = true, "moved to Lyon in 2024" }), now, def,
			Decision{Action: Archive, Reason: ReasonRefuted, When: now, Note: "refuted: moved to Lyon in 2024"}},
		{"refuted beats expired", with(func(r *Record) { r.Refuted, r.TTL = true, day }), now, def,
			Decision{Action: Archive, Reason: ReasonRefuted, When: now, Note: "refuted"}},
		{"refuted sensitive expired purges", with(func(r *Record) { r.Refuted, r.Sensitive, r.TTL = true, true, day }), now, def,
			Decision{Action: Purge, Reason: ReasonSensitiveExpired, When: t0.Add(day)}},
		{"sensitive not expired", with(func(r *Record) { r.Sensitive = true }), now, def, Decision{}},
		{"low confidence", with(func(r *Record) { r.Initial = 0.05 }), now, def,
			Decision{Action: Archive, Reason: ReasonLowConfidence, When: now}},
		{"low confidence rescued by observation", with(func(r *Record) { r.Initial, r.Observations = 0.06, 1 }), now, def, Decision{}},
		{"decayed below a stricter minimum", with(func(r *Record) { r.Kind = Event }), now, Policy{MinConfidence: 0.5},
			Decision{Action: Archive, Reason: ReasonLowConfidence, When: now}},
		{"floor above a stricter minimum", live, now, Policy{MinConfidence: 0.3}, Decision{}},
		{"unused", with(func(r *Record) { r.Accessed, r.UserSaved = time.Time{}, false }), now, def,
			Decision{Action: Archive, Reason: ReasonUnused, When: t0.Add(365 * day)}},
		{"user-saved semantic is never unused", with(func(r *Record) { r.Accessed = time.Time{} }), now, def, Decision{}},
		{"unused one second early", with(func(r *Record) { r.Accessed, r.UserSaved = time.Time{}, false }), t0.Add(365*day - time.Second), def, Decision{}},
		{"confirmation counts as use", with(func(r *Record) { r.Accessed, r.Confirmed = time.Time{}, t0.Add(100*day) }), now, def, Decision{}},
		{"unused custom", with(func(r *Record) { r.UserSaved = false }), now, Policy{UnusedAfter: 30 * day},
			Decision{Action: Archive, Reason: ReasonUnused, When: t0.Add(330 * day)}},
		{"expired beats low confidence", with(func(r *Record) { r.Initial, r.TTL = 0.01, day }), now, def,
			Decision{Action: Archive, Reason: ReasonExpired, When: t0.Add(day)}},
		{"no timestamps", Record{Kind: Fact, Tier: Episodic, Initial: 0.95}, now, def, Decision{}},
		{"zero record has confidence 0", Record{}, now, def,
			Decision{Action: Archive, Reason: ReasonLowConfidence, When: now}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decide(tc.r, tc.now, tc.p); got != tc.want {
				t.Errorf("Decide(%+v, %v) = %+v, want %+v", tc.r, tc.now, got, tc.want)
			}
		})
	}
}

func TestDecideArchived(t *testing.T) {
	def := DefaultPolicy()
	expiry := t0.Add(90 * day)
	expired := Record{Kind: Event, Tier: Episodic, Initial: 0.95, Created: t0,
		Archived: true, ArchivedAt: expiry.Add(time.Hour), ArchiveReason: ReasonExpired}
	with := func(f func(*Record)) Record { r := expired; f(&r); return r }
	tests := []struct {
		name string
		r    Record
		due  time.Time // purge due; zero for never
	}{
		{"expired, archived on time", expired, expired.ArchivedAt.Add(180 * day)},
		{"expired, archived at expiry", with(func(r *Record) { r.ArchivedAt = expiry }), expiry.Add(180 * day)},
		{"expired, archived late", with(func(r *Record) { r.ArchivedAt = expiry.Add(400 * day) }), expiry.Add(580 * day)},
		{"expired, archive time before expiry", with(func(r *Record) { r.ArchivedAt = expiry.Add(-10 * day) }), expiry.Add(180 * day)},
		{"expired, no longer expires", with(func(r *Record) { r.Tier = Semantic; r.UserSaved = true }), expired.ArchivedAt.Add(180 * day)},
		{"refuted", with(func(r *Record) { r.ArchiveReason, r.Refuted = ReasonRefuted, true }), expired.ArchivedAt.Add(365 * day)},
		{"unused", with(func(r *Record) { r.ArchiveReason = ReasonUnused }), expired.ArchivedAt.Add(365 * day)},
		{"low confidence", with(func(r *Record) { r.ArchiveReason = ReasonLowConfidence }), expired.ArchivedAt.Add(365 * day)},
		{"archived by hand", with(func(r *Record) { r.ArchiveReason = "user" }), expired.ArchivedAt.Add(365 * day)},
		{"no archive time", with(func(r *Record) { r.ArchivedAt = time.Time{} }), time.Time{}},
		{"pinned", with(func(r *Record) { r.Pinned = true }), time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.due.IsZero() {
				for _, years := range []int{1, 10, 100} {
					if d := Decide(tc.r, t0.AddDate(years, 0, 0), def); d != (Decision{}) {
						t.Errorf("Decide(%d years on) = %+v, want Keep", years, d)
					}
				}
				return
			}
			if d := Decide(tc.r, tc.due.Add(-time.Second), def); d != (Decision{}) {
				t.Errorf("Decide(1s before purge due) = %+v, want Keep", d)
			}
			want := Decision{Action: Purge, Reason: ReasonArchiveRetention, When: tc.due}
			for _, now := range []time.Time{tc.due, tc.due.Add(time.Second)} {
				if d := Decide(tc.r, now, def); d != want {
					t.Errorf("Decide(%v after due) = %+v, want %+v", now.Sub(tc.due), d, want)
				}
			}
		})
	}
}

func TestDecideArchivedSensitive(t *testing.T) {
	r := Record{Kind: Fact, Tier: Semantic, Sensitive: true, TTL: 10 * day, Initial: 0.95, Created: t0,
		Refuted: true, Archived: true, ArchivedAt: t0.Add(day), ArchiveReason: ReasonRefuted}
	if d := Decide(r, t0.Add(10*day-time.Second), DefaultPolicy()); d != (Decision{}) {
		t.Errorf("Decide(archived sensitive before expiry) = %+v, want Keep", d)
	}
	want := Decision{Action: Purge, Reason: ReasonSensitiveExpired, When: t0.Add(10 * day)}
	if d := Decide(r, t0.Add(10*day), DefaultPolicy()); d != want {
		t.Errorf("Decide(archived sensitive at expiry) = %+v, want %+v", d, want)
	}
}

// TestDecidePinned: pinned memories survive any rule, a year and more ahead.
func TestDecidePinned(t *testing.T) {
	tests := []struct {
		name string
		r    Record
	}{
		{"episodic", Record{Kind: Event, Tier: Episodic, Initial: 0.7, Created: t0}},
		{"agent field", Record{Kind: Pattern, Tier: Semantic, AgentWritten: true, Field: "gotchas", Initial: 0.7, Created: t0}},
		{"sensitive with TTL", Record{Kind: Fact, Tier: Semantic, Sensitive: true, TTL: day, Initial: 0.95, Created: t0}},
		{"refuted", Record{Kind: Fact, Tier: Semantic, Refuted: true, Initial: 0.95, Created: t0}},
		{"low confidence", Record{Kind: Fact, Tier: Semantic, Initial: 0.01, Created: t0}},
		{"archived", Record{Kind: Fact, Tier: Episodic, Initial: 0.95, Created: t0, Archived: true, ArchivedAt: t0, ArchiveReason: ReasonExpired}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.r.Pinned = true
			for _, after := range []time.Duration{0, 366 * day, 2 * 365 * day, 10 * 365 * day} {
				if d := Decide(tc.r, t0.Add(after), DefaultPolicy()); d != (Decision{}) {
					t.Errorf("Decide(pinned, +%v) = %+v, want Keep", after, d)
				}
			}
			if d := Decide(tc.r, t0.AddDate(300, 0, 0), Policy{EpisodicTTL: time.Second, UnusedAfter: time.Second, MinConfidence: 1}); d != (Decision{}) {
				t.Errorf("Decide(pinned, +300 years, harsh policy) = %+v, want Keep", d)
			}
		})
	}
}

// TestDecideUserSavedSemantic: user-saved semantic memories never expire,
// though they still leave recall when unused for a year.
func TestDecideUserSavedSemantic(t *testing.T) {
	for _, kind := range []Kind{Fact, Preference, Event, Pattern, Knowledge} {
		t.Run(string(kind), func(t *testing.T) {
			r := Record{Kind: kind, Tier: Semantic, UserSaved: true, Initial: 0.95, Created: t0}
			if at, ok := ExpiresAt(r, DefaultPolicy()); ok {
				t.Fatalf("ExpiresAt(user-saved semantic %v) = %v, true, want no expiry", kind, at)
			}
			for _, years := range []int{1, 5, 50} {
				now := t0.AddDate(years, 0, 0)
				r.Accessed = now.Add(-day)
				if d := Decide(r, now, DefaultPolicy()); d != (Decision{}) {
					t.Errorf("Decide(+%d years, recalled yesterday) = %+v, want Keep", years, d)
				}
			}
		})
	}
}

// TestDecideReconfirm: re-confirmation resets the TTL and the confidence.
func TestDecideReconfirm(t *testing.T) {
	p := Policy{MinConfidence: 0.5}
	r := Record{Kind: Preference, Tier: Episodic, Initial: 0.95, Created: t0}
	at := t0.Add(89 * day)
	if c := Confidence(r, at); c >= 0.5 {
		t.Fatalf("Confidence(89 days) = %v, want below 0.5", c)
	}
	if d := Decide(r, at, p); d.Reason != ReasonLowConfidence {
		t.Fatalf("Decide(89 days, min 0.5) = %+v, want low confidence", d)
	}
	r = Reconfirm(r, at)
	if c := Confidence(r, at); c != 0.95 {
		t.Errorf("Confidence(just reconfirmed) = %v, want 0.95", c)
	}
	for _, tc := range []struct {
		now  time.Time
		want Decision
	}{
		{at, Decision{}},
		{t0.Add(90 * day), Decision{}}, // the old expiry
		{at.Add(80 * day), Decision{}}, // 0.95 * 0.5^(80/90) = 0.513
		{at.Add(84 * day), Decision{Action: Archive, Reason: ReasonLowConfidence, When: at.Add(84 * day)}}, // 0.498
		{at.Add(90 * day), Decision{Action: Archive, Reason: ReasonExpired, When: at.Add(90 * day)}},
		{at.Add(-time.Second), Decision{}}, // clock before the reconfirmation
	} {
		if d := Decide(r, tc.now, p); d != tc.want {
			t.Errorf("Decide(reconfirmed, %v) = %+v, want %+v", tc.now.Sub(at), d, tc.want)
		}
	}
	r2 := Reconfirm(Record{Kind: Fact, Tier: Episodic, Initial: 0.95, Created: t0}, at)
	want := Decision{Action: Archive, Reason: ReasonExpired, When: at.Add(90 * day)}
	if d := Decide(r2, at.Add(90*day-time.Second), DefaultPolicy()); d != (Decision{}) {
		t.Errorf("Decide(reconfirmed, 1s before new expiry) = %+v, want Keep", d)
	}
	if d := Decide(r2, at.Add(90*day), DefaultPolicy()); d != want {
		t.Errorf("Decide(reconfirmed, at new expiry) = %+v, want %+v", d, want)
	}
}

// TestDecideClockBackwards: with now before the record's timestamps nothing
// is archived or purged early.
func TestDecideClockBackwards(t *testing.T) {
	future := t0.Add(1000 * day)
	tests := []struct {
		name string
		r    Record
		want Decision
	}{
		{"episodic", Record{Kind: Event, Tier: Episodic, Initial: 0.95, Created: future}, Decision{}},
		{"sensitive", Record{Kind: Event, Tier: Episodic, Sensitive: true, TTL: time.Second, Initial: 0.95, Created: future}, Decision{}},
		{"confirmed in the future", Record{Kind: Event, Tier: Episodic, Initial: 0.95, Created: t0.Add(-400 * day), Confirmed: future}, Decision{}},
		{"archived in the future", Record{Kind: Event, Tier: Episodic, Initial: 0.95, Created: future, Archived: true, ArchivedAt: future, ArchiveReason: ReasonUnused}, Decision{}},
		{"archived expired in the future", Record{Kind: Event, Tier: Episodic, Initial: 0.95, Created: t0.Add(-1000 * day), Archived: true, ArchivedAt: future, ArchiveReason: ReasonExpired}, Decision{}},
		{"accessed in the future", Record{Kind: Fact, Tier: Semantic, UserSaved: true, Initial: 0.95, Created: t0.Add(-1000 * day), Accessed: future}, Decision{}},
		{"refuted still archives", Record{Kind: Fact, Tier: Semantic, Initial: 0.95, Created: future, Refuted: true},
			Decision{Action: Archive, Reason: ReasonRefuted, When: t0, Note: "refuted"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, now := range []time.Time{t0, {}, future.Add(-time.Second)} {
				want := tc.want
				if want.When.Equal(t0) {
					want.When = now
				}
				if d := Decide(tc.r, now, DefaultPolicy()); d != want {
					t.Errorf("Decide(now=%v) = %+v, want %+v", now, d, want)
				}
				if c := Confidence(tc.r, now); tc.r.start().After(now) && c != tc.r.initial() {
					t.Errorf("Confidence(now=%v) = %v, want the initial %v", now, c, tc.r.initial())
				}
			}
		})
	}
}

func TestActionString(t *testing.T) {
	for a, want := range map[Action]string{Keep: "keep", Archive: "archive", Purge: "purge", 9: "unknown"} {
		if got := a.String(); got != want {
			t.Errorf("Action(%d).String() = %q, want %q", a, got, want)
		}
	}
}

func TestUserSavedSemanticNeverUnused(t *testing.T) {
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := created.AddDate(3, 0, 0)
	tests := []struct {
		name string
		r    Record
		want Action
	}{
		{"user-saved semantic", Record{Kind: Preference, Tier: Semantic, UserSaved: true, Initial: 0.95, Created: created}, Keep},
		{"agent semantic", Record{Kind: Preference, Tier: Semantic, AgentWritten: true, Field: "other", Initial: 0.95, Created: created}, Archive},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := Decide(tc.r, now, DefaultPolicy()); d.Action != tc.want {
				t.Fatalf("Decide(%+v) = %v (%s), want %v", tc.r, d.Action, d.Reason, tc.want)
			}
		})
	}
}
