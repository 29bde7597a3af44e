package partitions

import (
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name        string
		f           Facts
		want        Level
		wantBucket  string
		wantIgnored bool
	}{
		{"default", Facts{}, Operational, BucketInternal, false},
		{"product", Facts{Product: "engram"}, ProductInternal, BucketInternal, false},
		{"blank product", Facts{Product: "  "}, Operational, BucketInternal, false},
		{"pii", Facts{HasPII: true}, Sensitive, BucketSensitive, false},
		{"pii beats product", Facts{HasPII: true, Product: "engram"}, Sensitive, BucketSensitive, false},
		{"request raises", Facts{Requested: Sensitive, HasRequested: true}, Sensitive, BucketSensitive, false},
		{"request equal", Facts{Product: "x", Requested: ProductInternal, HasRequested: true}, ProductInternal, BucketInternal, false},
		{"request public below the automatic level ignored", Facts{Requested: Public, HasRequested: true}, Operational, BucketInternal, true},
		{"user's public honoured", Facts{Requested: Public, HasRequested: true, UserChoice: true}, Public, BucketPublic, false},
		{"user's public with product ignored", Facts{Product: "x", Requested: Public, HasRequested: true, UserChoice: true}, ProductInternal, BucketInternal, true},
		{"user's public with pii ignored", Facts{HasPII: true, Requested: Public, HasRequested: true, UserChoice: true}, Sensitive, BucketSensitive, true},
		{"request public with product ignored", Facts{Product: "x", Requested: Public, HasRequested: true}, ProductInternal, BucketInternal, true},
		{"request below product ignored", Facts{Product: "x", Requested: Operational, HasRequested: true}, ProductInternal, BucketInternal, true},
		{"request below pii ignored", Facts{HasPII: true, Requested: Public, HasRequested: true}, Sensitive, BucketSensitive, true},
		{"invalid request ignored", Facts{Requested: Level(7), HasRequested: true}, Operational, BucketInternal, true},
		{"zero request without flag", Facts{Requested: Public}, Operational, BucketInternal, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Classify(tc.f)
			if d.Level != tc.want || d.Bucket != tc.wantBucket || d.RequestIgnored != tc.wantIgnored {
				t.Errorf("Classify(%+v) = {%v %q ignored=%v}, want {%v %q ignored=%v}", tc.f, d.Level, d.Bucket, d.RequestIgnored, tc.want, tc.wantBucket, tc.wantIgnored)
			}
			if d.Level < Floor(tc.f) {
				t.Errorf("Classify(%+v) = %v, below the floor %v", tc.f, d.Level, Floor(tc.f))
			}
			if len(d.Reasons) == 0 {
				t.Errorf("Classify(%+v) gave no reasons", tc.f)
			}
		})
	}
}

func TestBucket(t *testing.T) {
	tests := []struct {
		l    Level
		want string
	}{
		{Public, "public"}, {Operational, "internal"}, {ProductInternal, "internal"}, {Sensitive, "sensitive"}, {Level(-1), "sensitive"}, {Level(9), "sensitive"},
	}
	for _, tc := range tests {
		if got := tc.l.Bucket(); got != tc.want {
			t.Errorf("Level(%d).Bucket() = %q, want %q", int(tc.l), got, tc.want)
		}
	}
}

func TestString(t *testing.T) {
	for l, want := range map[Level]string{Public: "L0", Sensitive: "L3", Level(5): "L?"} {
		if got := l.String(); got != want {
			t.Errorf("Level(%d).String() = %q, want %q", int(l), got, want)
		}
	}
}

func TestCanRead(t *testing.T) {
	mem := func(l Level) Memory { return Memory{Level: l, OwnerGroup: "team-a", Product: "engram"} }
	var (
		stranger = Reader{Agent: "x", Group: "team-b", Product: "other"}
		sameGrp  = Reader{Agent: "a", Group: "team-a", Product: "other"}
		samePrd  = Reader{Agent: "p", Group: "team-b", Product: "engram"}
		granted  = Reader{Agent: "g", Group: "team-b", Product: "other", SensitiveGrant: true}
		operator = Reader{Operator: true}
		empty    = Reader{}
	)
	tests := []struct {
		name string
		r    Reader
		m    Memory
		want bool
	}{
		{"L0 stranger", stranger, mem(Public), true},
		{"L0 anonymous", empty, mem(Public), true},
		{"L1 stranger", stranger, mem(Operational), false},
		{"L1 same group", sameGrp, mem(Operational), true},
		{"L1 same product other group", samePrd, mem(Operational), false},
		{"L1 empty group never matches", empty, Memory{Level: Operational}, false},
		{"L2 same product", samePrd, mem(ProductInternal), true},
		{"L2 same group other product", sameGrp, mem(ProductInternal), false},
		{"L2 empty product never matches", empty, Memory{Level: ProductInternal}, false},
		{"L3 stranger", stranger, mem(Sensitive), false},
		{"L3 same group", sameGrp, mem(Sensitive), false},
		{"L3 same product", samePrd, mem(Sensitive), false},
		{"L3 granted", granted, mem(Sensitive), true},
		{"L3 operator", operator, mem(Sensitive), true},
		{"L1 operator", operator, mem(Operational), true},
		{"invalid level denied", granted, Memory{Level: Level(9)}, false},
		{"invalid level operator", operator, Memory{Level: Level(9)}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CanRead(tc.r, tc.m); got != tc.want {
				t.Errorf("CanRead(%+v, %+v) = %v, want %v", tc.r, tc.m, got, tc.want)
			}
		})
	}
}
