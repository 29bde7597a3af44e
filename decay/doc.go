// Package decay holds Engram's memory lifecycle rules: how confidence fades
// with time, when a memory expires, and what the background sweep should do
// with it (keep, archive or purge).
//
// Everything here is a pure function of a [Record] and the time now. The
// package does no I/O, starts no goroutines, reads no clock and imports no
// other Engram package: the caller (the app's sweep) copies the fields it
// knows into a Record, calls [Decide], and carries out the [Decision].
//
// # Confidence
//
// Confidence decays exponentially by [Kind], with a half-life and a floor,
// counted from the last (re)confirmation or, failing that, the creation:
//
//	kind        half-life  floor
//	fact         365 days    0.3
//	preference    90 days    0.2
//	event        180 days    0.1
//	pattern       60 days    0.3
//	knowledge    730 days    0.4
//
//	confidence = min(initial, max(initial * 0.5^(days/halfLife), floor))
//	             + 0.1 per verification + 0.05 per consistent observation,
//	             capped at 1.0
//
// The starting value is the caller's (the vault's initial confidence by
// source: user 0.95, agent 0.70, external 0.85). A user's
// re-confirmation ([Reconfirm]) resets confidence to the initial value and
// restarts the TTL.
//
// # Expiry, archive and purge
//
// [ExpiresAt] gives when a memory's TTL runs out: pinned memories never
// expire, agent-written memories in the allowlisted fields ([IsAgentField])
// after 30 days, episodic memories after 90 days (configurable up to 365),
// semantic memories saved by the user never. [Decide] applies, in order:
//
//  1. pinned: keep, always;
//  2. sensitive and past its expiry: purge at once, without archiving;
//  3. already archived: purge once the archive retention has run out,
//     otherwise keep in the archive;
//  4. refuted: archive, with a note;
//  5. past its expiry: archive;
//  6. confidence below the policy minimum (0.1): archive;
//  7. not accessed for a year: archive.
//
// Archived memories are excluded from recall but visible to the user and
// restorable by the user (the service records a restore as a
// confirmation, see [Reconfirm]) until they are purged.
//
// # Time
//
// Every rule compares now with instants stored in the record, so a clock
// that has moved backwards (now before the record's timestamps) can only
// delay an archive or a purge, never bring one forward. No input, however
// malformed (zero times, NaN or infinite confidence, negative counts, an
// unknown kind), makes these functions panic or return a confidence outside
// [0, 1].
package decay
