package decay

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestPolicyValidate(t *testing.T) {
	with := func(f func(*Policy)) Policy { p := DefaultPolicy(); f(&p); return p }
	tests := []struct {
		name    string
		p       Policy
		wantErr bool
	}{
		{"default", DefaultPolicy(), false},
		{"zero means default", Policy{}, false},
		{"episodic 365 days", with(func(p *Policy) { p.EpisodicTTL = 365 * day }), false},
		{"episodic 365 days and a second", with(func(p *Policy) { p.EpisodicTTL = 365*day + time.Second }), true},
		{"negative episodic", with(func(p *Policy) { p.EpisodicTTL = -day }), true},
		{"negative agent field TTL", with(func(p *Policy) { p.AgentFieldTTL = -1 }), true},
		{"negative retention", with(func(p *Policy) { p.ArchiveRetention = -1 }), true},
		{"negative other retention", with(func(p *Policy) { p.OtherArchiveRetention = -1 }), true},
		{"negative unused", with(func(p *Policy) { p.UnusedAfter = -1 }), true},
		{"min confidence 1", with(func(p *Policy) { p.MinConfidence = 1 }), false},
		{"min confidence over 1", with(func(p *Policy) { p.MinConfidence = 1.5 }), true},
		{"negative min confidence", with(func(p *Policy) { p.MinConfidence = -0.1 }), true},
		{"NaN min confidence", with(func(p *Policy) { p.MinConfidence = math.NaN() }), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Validate(%+v) = %v, want error %v", tc.p, err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalidPolicy) {
				t.Errorf("Validate(%+v) = %v, want it to wrap ErrInvalidPolicy", tc.p, err)
			}
		})
	}
}

func TestPolicyNormalized(t *testing.T) {
	def := DefaultPolicy()
	tests := []struct {
		name string
		p    Policy
		want Policy
	}{
		{"zero", Policy{}, def},
		{"default", def, def},
		{"negative and NaN", Policy{EpisodicTTL: -1, AgentFieldTTL: -1, ArchiveRetention: -1,
			OtherArchiveRetention: -1, UnusedAfter: -1, MinConfidence: math.NaN()}, def},
		{"episodic capped", Policy{EpisodicTTL: 1000 * day}, func() Policy { p := def; p.EpisodicTTL = MaxEpisodicTTL; return p }()},
		{"custom kept", Policy{EpisodicTTL: 7 * day, MinConfidence: 0.5},
			func() Policy { p := def; p.EpisodicTTL, p.MinConfidence = 7*day, 0.5; return p }()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.normalized(); got != tc.want {
				t.Errorf("normalized(%+v) = %+v, want %+v", tc.p, got, tc.want)
			}
		})
	}
}

// TestDecideInvalidPolicy: a policy of zeros or garbage must not expire
// everything at once.
func TestDecideInvalidPolicy(t *testing.T) {
	r := Record{Kind: Event, Tier: Episodic, Initial: 0.95, Created: t0}
	now := t0.Add(day)
	for _, p := range []Policy{{}, {EpisodicTTL: -1, UnusedAfter: -1, MinConfidence: math.Inf(1)}} {
		if d := Decide(r, now, p); d.Action != Keep {
			t.Errorf("Decide(%+v, one day old) = %+v, want Keep", p, d)
		}
	}
}
