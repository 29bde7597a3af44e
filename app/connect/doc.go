// Package connect wires MCP clients (Claude Code, Claude Desktop, Cursor,
// VS Code, Windsurf, Codex CLI, Gemini CLI, Zed) to Engram: it finds each
// client's configuration file, adds or removes the server entry that starts
// `engram mcp --agent NAME`, and keeps the agent's token out of that file,
// in the OS keyring or, where there is none, in a 0600 file in Engram's
// data directory.
//
// Editing a client's file changes only the bytes of Engram's entry: every
// other server, setting, comment and the file's indentation stay as they
// were, a second install changes nothing, and a removal gives back the file
// as it was before the install, byte for byte, when nothing else touched it
// since. A file that does not parse as its format (with the line of the
// problem) or is larger than MaxFileSize is refused and left as it was.
// The command line (engram connect) and the desktop app call the same
// functions: Clients, Find, Install, Uninstall, Status and Tokens.
package connect
