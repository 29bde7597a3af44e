// Package upkeep keeps what the memory service derives from the vault,
// and what it owes the vault, current in the background:
//
//   - Index: the recall index (package app/recall) built from the vault and
//     kept current with every write, sensitive memories in it only while the
//     vault is unlocked; vectors embedded in the background, for written
//     memories and for memories an earlier run left without one, and stored
//     in the vault so a restart does not embed them again.
//   - Access: recall's access times, batched into a few transactions.
//   - Damaged: the records listings went on without.
//   - Scrubber: removed bytes cleared from the vault file after removals.
//
// Each type owns its state, its lock and its goroutines, which its Close
// ends. None answers a caller or applies a read rule: the service (package
// app) decides who may see what, and tells upkeep what was written.
package upkeep
