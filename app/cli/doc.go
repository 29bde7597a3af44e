// Package cli is Engram's command line: `engram init`, `engram memory …`,
// `engram audit …`, `engram doctor`, backups and passphrase management. It
// drives the vault through the memory service, as the desktop app and the
// loopback API do.
//
// `engram doctor --salvage FILE` is the one command that does not open the
// vault: it reads a damaged vault file read-only, without bbolt, and writes
// every memory it can recover to FILE, a backup for `engram import` into a
// new vault (see vault.Salvage). It exits 5 when anything was lost.
//
// While another process (engram serve, the desktop app) holds the vault,
// the user's commands on it (memory, quarantine, audit, export, import,
// sweep, doctor) run inside that process with this same code, reached
// over its Unix socket (hosted.go, server.Forward): same output, same
// exit codes, the terminal, working directory and environment staying
// the user's.
//
// Exit codes:
//
//	0  success
//	1  the operation failed (not found, invalid input, conflict, refused)
//	2  usage error
//	3  wrong passphrase, or the vault is locked and cannot be unlocked
//	4  the vault is in use by another process
//	5  damage found: a record, header, backup, the audit chain or the file's
//	   page structure failed its check (also after a salvage that lost something)
package cli
