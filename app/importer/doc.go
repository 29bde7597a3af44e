// Package importer reads the memory and rules files of other tools into
// entries Engram can write: Claude Code's CLAUDE.md and memory files,
// AGENTS.md, Cursor rules (.cursorrules and .cursor/rules/*.mdc with their
// front matter), GitHub Copilot instructions, the reference MCP memory
// server's JSON-lines knowledge graph, and a mem0 export.
//
// Parse is pure logic: bytes in, entries out. Read reads a file, or the
// files of a folder without leaving it (no link is followed out of it),
// and reads no file beyond MaxFileSize bytes. Neither decides trust, a
// partition or whether an entry may be written; every entry goes through
// the service's write admission like an agent's write.
// A file that does not parse is refused whole, with the line of the first
// problem, so that an import never stops half-way through a file.
package importer
