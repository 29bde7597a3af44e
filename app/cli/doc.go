// Package cli is Engram's command line: `engram init`, `engram memory …`,
// `engram audit …`, `engram doctor`, backups and passphrase management. It
// drives the vault through the memory service, as the desktop app and the
// loopback API do.
//
// Exit codes:
//
//	0  success
//	1  the operation failed (not found, invalid input, conflict, refused)
//	2  usage error
//	3  wrong passphrase, or the vault is locked and cannot be unlocked
//	4  the vault is in use by another process
//	5  damage found: a record, header, backup or the audit chain failed its check
package cli
