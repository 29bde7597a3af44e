// Package quarantine holds memories the write guard did not let straight
// into the vault: suspicious or untrusted writes waiting for the user's
// review, forensic copies of hostile ones, and stored memories held for
// review because the user found their source unreliable. It defines the queue's
// items, their state machine and the guardian pass that proposes a
// decision; the vault stores the items and package app wires the
// transitions to the memory service. The detectors themselves live in
// quarantine/guard.
package quarantine
