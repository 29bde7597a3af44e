// Package partitions decides where a memory lives and who may read it.
//
// Every memory has a sensitivity level:
//
//	L0 public            readable by every agent
//	L1 operational       readable by agents of the owner's group
//	L2 product-internal  readable by agents working on the same product
//	L3 sensitive         readable only by the local operator and agents
//	                     explicitly granted sensitive access
//
// Classify computes the level from facts about the memory: personal data
// makes it L3 (mandatory), a product scope makes it at least L2, anything
// else is L1. A level requested by the writer is honoured only when it is
// not lower than that automatic level: a writer can raise protection, never
// lower it. Only the user's own choice may go lower, down to the floor the
// facts set (L3 for personal data, L2 for a product scope, else L0), so
// that the user, and nobody else, makes a memory public. Bucket maps a
// level to the storage partition that holds it.
//
// CanRead is the read access matrix. Everything here is a pure function:
// no I/O, no state, safe for concurrent use.
package partitions
