// Package agents keeps what the memory service knows of the agents
// between requests: the registry of registrations by token (Registry),
// tokens and names, the grants a registration may hold, the failed
// authentications counted until they are audited (AuthFailures), and each
// agent's recent refused writes (Refusals). Each type owns its state and
// lock; the service (package app) decides and answers.
package agents
