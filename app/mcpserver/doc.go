// Package mcpserver exposes Engram to MCP clients (Claude Code, Cursor, any
// agent speaking the Model Context Protocol) through the official Go SDK:
// in process over streamable HTTP at /mcp on the loopback server, and as
// `engram mcp`, a stdio bridge that forwards every tool call to the running
// Engram. Both serve the same tool definitions, built once here.
package mcpserver
