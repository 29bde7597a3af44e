package vault

import "slices"

// MaxVerifications is how many verifications by agents a memory's
// provenance keeps, and, apart from them, how many by the user: agents'
// verdicts never push the user's out (see addVerification).
const MaxVerifications = 100

// addVerification returns vs with v added, as Verify keeps them:
//
//   - A verdict that its agent already gave since the user's last
//     confirmation replaces that entry: the earlier one is removed and v
//     appended, so the list stays in time order and an agent confirming
//     (or refuting, or observing) the same memory again and again does not
//     grow it. The lifecycle rules count such a repeat once anyway (each
//     agent's confirmation counts once since the user's last one); after
//     the user's confirmation the agent's verdict counts again, so it is
//     kept again.
//   - Agents' entries and the user's are bounded apart, MaxVerifications
//     each, the oldest of that side going first: agents' entries never
//     push the user's verdict out.
//
// vs is not modified.
func addVerification(vs []Verification, v Verification) []Verification {
	out := slices.Clone(vs)
	since := 0 // the first entry after the user's last confirmation
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Agent == AgentOperator && out[i].Verdict == Confirmed {
			since = i + 1
			break
		}
	}
	kept := out[:since] // filtered in place: out is a copy

	for _, e := range out[since:] {
		if e.Agent != v.Agent || e.Verdict != v.Verdict {
			kept = append(kept, e)
		}
	}
	out = append(kept, v)
	user := v.Agent == AgentOperator
	n := 0
	for _, e := range out {
		if (e.Agent == AgentOperator) == user {
			n++
		}
	}
	if excess := n - MaxVerifications; excess > 0 {
		out = slices.DeleteFunc(out, func(e Verification) bool {
			if excess > 0 && (e.Agent == AgentOperator) == user {
				excess--
				return true
			}
			return false
		})
	}
	return out
}
