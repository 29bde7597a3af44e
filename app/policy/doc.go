// Package policy is the memory service's write policy, in one place: who
// may write which field and with what trust (Caller), whether a text may
// be written at all and where it lives (Policy.Admit), what a short free
// text stored beside a memory may not hold (Policy.Clean, Policy.CheckIDs),
// and who may read or change a memory (CanRead, CanWrite).
//
// It holds no state: a Policy is the write guard it was built with, which
// does not change, and every decision is a function of its arguments. The
// service (package app) routes each request, asks the policy, and does the
// writing, the answering and the bookkeeping.
//
// Trust comes from the channel. The local user (CLI, desktop app) writes
// with the user's trust and confirms with --confirm or the app's Confirm.
// A request made with an agent's token is that agent's, whatever it says
// about itself: the source it names is kept as reported (Source.Reported)
// and never raises trust, confidence or the guard's judgement; its
// "confirmed" is a report that the user confirmed, which counts only when
// the user granted the agent "may confirm", and otherwise sends the write
// to the quarantine for the user to confirm there.
package policy
