package decay

import (
	"errors"
	"math"
	"testing"
	"time"
)

// t0 is the fixed creation time most tests count from.
var t0 = time.Date(2025, time.March, 1, 12, 0, 0, 0, time.UTC)

func days(n float64) time.Duration { return time.Duration(n * float64(day)) }

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestIsAgentField(t *testing.T) {
	for _, f := range []string{"learnings", "preferences", "gotchas", "conventions", "decisions"} {
		if !IsAgentField(f) {
			t.Errorf("IsAgentField(%q) = false, want true", f)
		}
	}
	for _, f := range []string{"", "notes", "Learnings", "learnings ", "identity"} {
		if IsAgentField(f) {
			t.Errorf("IsAgentField(%q) = true, want false", f)
		}
	}
}

// TestConfidenceProfiles checks every kind's half-life and floor from an
// initial confidence of 1.
func TestConfidenceProfiles(t *testing.T) {
	tests := []struct {
		kind     Kind
		halfLife float64 // days
		floor    float64
	}{
		{Fact, 365, 0.3},
		{Preference, 90, 0.2},
		{Event, 180, 0.1},
		{Pattern, 60, 0.3},
		{Knowledge, 730, 0.4},
	}
	for _, tc := range tests {
		t.Run(string(tc.kind), func(t *testing.T) {
			r := Record{Kind: tc.kind, Initial: 1, Created: t0}
			for _, step := range []struct {
				at   float64 // days after creation
				want float64
			}{
				{0, 1},
				{tc.halfLife / 2, max(math.Sqrt(0.5), tc.floor)},
				{tc.halfLife, max(0.5, tc.floor)},
				{2 * tc.halfLife, max(0.25, tc.floor)},
				{10 * tc.halfLife, tc.floor},
			} {
				if got := Confidence(r, t0.Add(days(step.at))); !approx(got, step.want) {
					t.Errorf("Confidence(%v at %v days) = %v, want %v", tc.kind, step.at, got, step.want)
				}
			}
			// Past the ~292 years a Duration holds, Sub saturates: still the floor.
			if got := Confidence(r, t0.AddDate(400, 0, 0)); !approx(got, tc.floor) {
				t.Errorf("Confidence(%v at 400 years) = %v, want %v", tc.kind, got, tc.floor)
			}
		})
	}
}

// TestConfidenceWorkedExample is the example from the issue.
func TestConfidenceWorkedExample(t *testing.T) {
	r := Record{Kind: Preference, Initial: 0.95, Created: t0} // a user's memory
	tests := []struct {
		name string
		at   time.Duration
		want float64
	}{
		{"created", 0, 0.95},
		{"90 days", 90 * day, 0.475},
		{"180 days", 180 * day, 0.2375},
		{"270 days hits the floor", 270 * day, 0.2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Confidence(r, t0.Add(tc.at)); !approx(got, tc.want) {
				t.Errorf("Confidence(%v) = %v, want %v", tc.at, got, tc.want)
			}
		})
	}
}

func TestConfidence(t *testing.T) {
	pref := Record{Kind: Preference, Initial: 0.95, Created: t0}
	with := func(f func(*Record)) Record { r := pref; f(&r); return r }
	tests := []struct {
		name string
		r    Record
		now  time.Time
		want float64
	}{
		{"verification adds 0.1", with(func(r *Record) { r.Verifications = 1 }), t0.Add(90 * day), 0.575},
		{"observation adds 0.05", with(func(r *Record) { r.Observations = 1 }), t0.Add(90 * day), 0.525},
		{"boosts add up", with(func(r *Record) { r.Verifications, r.Observations = 2, 3 }), t0.Add(90 * day), 0.825},
		{"boosts cap at 1", with(func(r *Record) { r.Verifications = 1 }), t0, 1},
		{"boost on the floor", with(func(r *Record) { r.Observations = 1 }), t0.Add(1000 * day), 0.25},
		{"negative counts ignored", with(func(r *Record) { r.Verifications, r.Observations = -5, -1 }), t0.Add(90 * day), 0.475},
		{"counted from confirmation", with(func(r *Record) { r.Confirmed = t0.Add(90 * day) }), t0.Add(180 * day), 0.475},
		{"confirmation before creation ignored", with(func(r *Record) { r.Confirmed = t0.Add(-90 * day) }), t0.Add(90 * day), 0.475},
		{"access does not refresh", with(func(r *Record) { r.Accessed = t0.Add(89 * day) }), t0.Add(90 * day), 0.475},
		{"clock moved backwards", pref, t0.Add(-1000 * day), 0.95},
		{"clock before confirmation", with(func(r *Record) { r.Confirmed = t0.Add(10 * day) }), t0.Add(5 * day), 0.95},
		{"below floor stays put", with(func(r *Record) { r.Initial = 0.05 }), t0.Add(1000 * day), 0.05},
		{"unknown kind does not decay", with(func(r *Record) { r.Kind = "rumour" }), t0.Add(1000 * day), 0.95},
		{"no timestamps does not decay", Record{Kind: Fact, Initial: 0.7}, t0, 0.7},
		{"zero now", pref, time.Time{}, 0.95},
		{"NaN initial reads as unknown", with(func(r *Record) { r.Initial = math.NaN() }), t0, 0.5},
		{"+Inf initial clamps to 1", with(func(r *Record) { r.Initial = math.Inf(1) }), t0, 1},
		{"-Inf initial clamps to 0", with(func(r *Record) { r.Initial = math.Inf(-1) }), t0.Add(1000 * day), 0},
		{"initial above 1 clamps", with(func(r *Record) { r.Initial = 7 }), t0.Add(90 * day), 0.5},
		{"huge counts cap", with(func(r *Record) { r.Verifications = math.MaxInt }), t0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Confidence(tc.r, tc.now)
			if !approx(got, tc.want) {
				t.Errorf("Confidence(%+v, %v) = %v, want %v", tc.r, tc.now, got, tc.want)
			}
		})
	}
}

func TestReconfirm(t *testing.T) {
	r := Record{Kind: Preference, Tier: Episodic, Initial: 0.95, Created: t0, Verifications: 1, Observations: 2}
	now := t0.Add(180 * day)
	if got := Confidence(r, now); approx(got, 0.95) {
		t.Fatalf("Confidence before Reconfirm = %v, want decayed", got)
	}
	c := Reconfirm(r, now)
	if got := Confidence(c, now); !approx(got, 0.95) {
		t.Errorf("Confidence(Reconfirm(r, now), now) = %v, want 0.95", got)
	}
	if got := Confidence(c, now.Add(90*day)); !approx(got, 0.475) {
		t.Errorf("Confidence(Reconfirm(r, now), now+90d) = %v, want 0.475", got)
	}
	if !c.Confirmed.Equal(now) || !c.Accessed.Equal(now) {
		t.Errorf("Reconfirm: Confirmed, Accessed = %v, %v, want both %v", c.Confirmed, c.Accessed, now)
	}
	if !r.Confirmed.IsZero() || r.Verifications != 1 {
		t.Errorf("Reconfirm modified its argument: %+v", r)
	}
}

func TestRecordValidate(t *testing.T) {
	ok := Record{Kind: Fact, Tier: Semantic, Initial: 0.95, Created: t0}
	with := func(f func(*Record)) Record { r := ok; f(&r); return r }
	tests := []struct {
		name    string
		r       Record
		wantErr bool
	}{
		{"ok", ok, false},
		{"archived ok", with(func(r *Record) { r.Archived, r.ArchivedAt = true, t0 }), false},
		{"unknown kind", with(func(r *Record) { r.Kind = "" }), true},
		{"unknown tier", with(func(r *Record) { r.Tier = "working" }), true},
		{"NaN initial", with(func(r *Record) { r.Initial = math.NaN() }), true},
		{"initial over 1", with(func(r *Record) { r.Initial = 1.01 }), true},
		{"negative initial", with(func(r *Record) { r.Initial = -0.1 }), true},
		{"no creation time", with(func(r *Record) { r.Created = time.Time{} }), true},
		{"negative count", with(func(r *Record) { r.Observations = -1 }), true},
		{"negative TTL", with(func(r *Record) { r.TTL = -time.Second }), true},
		{"archived without time", with(func(r *Record) { r.Archived = true }), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.Validate()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Validate(%+v) = %v, want error %v", tc.r, err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalidRecord) {
				t.Errorf("Validate(%+v) = %v, want it to wrap ErrInvalidRecord", tc.r, err)
			}
		})
	}
}
