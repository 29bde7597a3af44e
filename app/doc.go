// Package app wires Engram together: the memory service that the CLI, the
// loopback API and the desktop app all call, its authorization and its
// responses, the OS keyring, and the vault's location. It never imports
// Fyne.
//
// Every service call takes a Request naming the caller and returns a
// response with a Status. Expected failures (a locked vault, a memory that
// does not exist, a caller without the right) are statuses, not errors, and
// internal errors never reach an agent verbatim.
//
// The service is a front that routes: the decisions and the state live
// in parts below it, each owning its state, lock and Close.
//
//   - app/policy decides, without state: may this text be written, where
//     and with what trust (Admit); what a free text beside a memory may
//     hold (Clean); who may read or change a memory (CanRead, CanWrite).
//   - app/agents keeps what is known of agents between requests: the
//     registry by token, failed authentications, refusal counts.
//   - app/upkeep keeps the recall index current with every write, embeds
//     and stores vectors in the background, writes access times and
//     scrubs removed bytes.
//   - The door (door.go) holds the checks every request passes, whichever
//     part answers it: the service available, the request authorized, its
//     session and reason valid (gate), the caller allowed this memory, a
//     refusal audited (check, deny), an error made a response (fail). The
//     parts below share it by pointer, never through the Service.
//   - The writer (writer.go) writes memories through the admission:
//     write.go (store), conflict.go, splitorder.go, working.go, update.go
//     (update, pin, roll back, delete), expires.go, mergesplit.go,
//     import.go, syncindex.go (what a sync wrote, indexed) and the
//     refusals it counts (refusals.go).
//   - The reviewer (reviewer.go) answers the user's review: review.go
//     (the quarantine's items approved through the writer, rejected,
//     discarded) and reevaluate.go (a source found unreliable, its
//     memories held for the user's verdict). It writes through the
//     writer's four methods it names (reviewWriter).
//   - The reading (reading.go) answers reads: recall (recall_service.go),
//     briefings (briefing.go), listings, history and the audit log.
//   - The lifecycle (lifecycle.go) ages, questions and removes memories:
//     sweep.go (sweep, restore), forget.go (forget, clear), confirm.go,
//     question.go, and the audit log's retention (admin.go). It keeps
//     the recall index current through the three methods it names
//     (lifecycleIndex).
//   - The registrar (registrar.go) knows the agents: agents.go (add,
//     grants, status, tokens), authfail.go (authentication and its
//     failures), pairing.go and pairing_origin.go, peer.go (the process
//     behind a connection).
//   - Service (service.go) makes the parts and routes each call to one;
//     its own are what spans them: WaitingFor (waiting.go), backups and
//     the audit chain's verification (admin.go), Close. No part holds
//     the Service, and every other Service method is one call to a part:
//     TestServiceIsAFront holds both.
//
// With Options.Recall set, the service answers Recall under the same read
// rules as Get. A write is indexed by keyword before it is answered; its
// vector follows in the background. The non-sensitive memories' vectors
// are kept in the vault so start-up does not embed them again.
package app
