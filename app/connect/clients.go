package connect

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Format is how a client's configuration file is written.
type Format int

const (
	// JSON is JSON, read with comments and trailing commas allowed
	// (JSONC), so files that have them keep them.
	JSON Format = iota
	// TOML is Codex CLI's config.toml.
	TOML
)

// Env is what finding a client needs from the system. Tests pass their
// own; System returns the real one.
type Env struct {
	Getenv func(string) string
	// GOOS is runtime.GOOS: "linux", "darwin" or "windows".
	GOOS string
	// LookPath finds a program on PATH (exec.LookPath).
	LookPath func(string) (string, error)
}

func (e Env) home() string {
	if h := e.Getenv("HOME"); h != "" {
		return h
	}
	return e.Getenv("USERPROFILE")
}

// configHome is where the OS keeps per-user application settings:
// $XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support on
// macOS, %APPDATA% on Windows.
func (e Env) configHome() string {
	switch e.GOOS {
	case "darwin":
		return filepath.Join(e.home(), "Library", "Application Support")
	case "windows":
		if d := e.Getenv("APPDATA"); d != "" {
			return d
		}
		return filepath.Join(e.home(), "AppData", "Roaming")
	}
	if d := e.Getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	return filepath.Join(e.home(), ".config")
}

// Client is an MCP client Engram knows how to configure.
type Client struct {
	// ID names the client on the command line ("claude-code").
	ID string
	// Name is the client's name for people ("Claude Code").
	Name string
	// Format is the format of its configuration file.
	Format Format
	// Container is the key of the object (JSON) or the table (TOML) that
	// holds the servers: mcpServers, servers, context_servers, mcp_servers.
	Container string
	// Type is the value of the entry's "type" field, where the client
	// wants one ("stdio"); empty for none.
	Type string
	// Doc is where the client documents the file.
	Doc string
	// Hooks is where the client runs lifecycle hooks, for the clients
	// whose documentation defines them; nil for the others.
	Hooks *Hooks

	path     func(Env) string
	marks    func(Env) []string // any of them existing means installed
	programs []string           // any of them on PATH means installed
}

// ConfigPath is the client's user-level configuration file.
func (c Client) ConfigPath(e Env) string { return c.path(e) }

// Installed reports whether the client seems to be installed: its
// configuration directory or file exists, or its program is on PATH.
func (c Client) Installed(e Env) bool {
	for _, d := range c.marks(e) {
		if _, err := os.Stat(d); err == nil {
			return true
		}
	}
	for _, p := range c.programs {
		if e.LookPath != nil {
			if _, err := e.LookPath(p); err == nil {
				return true
			}
		}
	}
	return false
}

// Clients lists the clients Engram configures. Paths were checked against
// each client's documentation (Doc) in November 2026.
var Clients = []Client{
	{
		ID: "claude-code", Name: "Claude Code", Format: JSON, Container: "mcpServers", Type: "stdio",
		Doc: "https://code.claude.com/docs/en/mcp (user scope: ~/.claude.json)",
		path: func(e Env) string {
			if d := e.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
				return filepath.Join(d, ".claude.json")
			}
			return filepath.Join(e.home(), ".claude.json")
		},
		marks: func(e Env) []string {
			return []string{filepath.Join(e.home(), ".claude"), filepath.Join(e.home(), ".claude.json")}
		},
		programs: []string{"claude"},
		Hooks: &Hooks{
			Doc:    "https://code.claude.com/docs/en/hooks (user settings: ~/.claude/settings.json)",
			Events: claudeHookEvents,
			path: func(e Env) string {
				if d := e.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
					return filepath.Join(d, "settings.json")
				}
				return filepath.Join(e.home(), ".claude", "settings.json")
			},
		},
	},
	{
		ID: "claude-desktop", Name: "Claude Desktop", Format: JSON, Container: "mcpServers",
		Doc:      "https://modelcontextprotocol.io/quickstart/user (claude_desktop_config.json)",
		path:     func(e Env) string { return filepath.Join(claudeDesktopDir(e), "claude_desktop_config.json") },
		marks:    func(e Env) []string { return []string{claudeDesktopDir(e)} },
		programs: []string{"claude-desktop"},
	},
	{
		ID: "cursor", Name: "Cursor", Format: JSON, Container: "mcpServers",
		Doc:      "https://docs.cursor.com/context/mcp (global: ~/.cursor/mcp.json)",
		path:     func(e Env) string { return filepath.Join(e.home(), ".cursor", "mcp.json") },
		marks:    func(e Env) []string { return []string{filepath.Join(e.home(), ".cursor")} },
		programs: []string{"cursor"},
		Hooks: &Hooks{
			Doc:    "https://cursor.com/docs/agent/hooks (user hooks: ~/.cursor/hooks.json)",
			Events: cursorHookEvents, Client: "cursor", Flat: true, Version: 1,
			path: func(e Env) string { return filepath.Join(e.home(), ".cursor", "hooks.json") },
		},
	},
	{
		ID: "vscode", Name: "VS Code", Format: JSON, Container: "servers", Type: "stdio",
		Doc:      "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration (user profile mcp.json)",
		path:     func(e Env) string { return filepath.Join(e.configHome(), "Code", "User", "mcp.json") },
		marks:    func(e Env) []string { return []string{filepath.Join(e.configHome(), "Code", "User")} },
		programs: []string{"code"},
		Hooks: &Hooks{
			Doc:    "https://code.visualstudio.com/docs/agents/reference/hooks-reference (user hooks: every *.json in ~/.copilot/hooks, https://code.visualstudio.com/docs/agent-customization/hooks)",
			Events: vscodeHookEvents, Client: "vscode", Flat: true, Typed: true,
			// A file of Engram's own in the folder VS Code reads every
			// *.json of: the user's hook files are never touched.
			path: func(e Env) string { return filepath.Join(e.home(), ".copilot", "hooks", "engram.json") },
		},
	},
	{
		ID: "windsurf", Name: "Windsurf", Format: JSON, Container: "mcpServers",
		Doc:      "https://docs.windsurf.com/windsurf/cascade/mcp (~/.codeium/windsurf/mcp_config.json)",
		path:     func(e Env) string { return filepath.Join(e.home(), ".codeium", "windsurf", "mcp_config.json") },
		marks:    func(e Env) []string { return []string{filepath.Join(e.home(), ".codeium", "windsurf")} },
		programs: []string{"windsurf"},
		Hooks: &Hooks{
			Doc:    "https://docs.windsurf.com/windsurf/cascade/hooks (user hooks: ~/.codeium/windsurf/hooks.json)",
			Events: windsurfHookEvents, Client: "windsurf", Flat: true,
			path: func(e Env) string { return filepath.Join(e.home(), ".codeium", "windsurf", "hooks.json") },
		},
	},
	{
		ID: "codex", Name: "Codex CLI", Format: TOML, Container: "mcp_servers",
		Doc:      "https://developers.openai.com/codex/mcp ([mcp_servers.NAME] in $CODEX_HOME/config.toml)",
		path:     func(e Env) string { return filepath.Join(codexHome(e), "config.toml") },
		marks:    func(e Env) []string { return []string{codexHome(e)} },
		programs: []string{"codex"},
		Hooks: &Hooks{
			Doc:    "https://developers.openai.com/codex/hooks ($CODEX_HOME/hooks.json)",
			Events: codexHookEvents,
			path:   func(e Env) string { return filepath.Join(codexHome(e), "hooks.json") },
		},
	},
	{
		ID: "gemini", Name: "Gemini CLI", Format: JSON, Container: "mcpServers",
		Doc:      "https://geminicli.com/docs/tools/mcp-server (~/.gemini/settings.json)",
		path:     func(e Env) string { return filepath.Join(e.home(), ".gemini", "settings.json") },
		marks:    func(e Env) []string { return []string{filepath.Join(e.home(), ".gemini")} },
		programs: []string{"gemini"},
		// Gemini CLI keeps its hooks in the same settings.json as its MCP
		// servers: one plan edits both (Request.plans).
		Hooks: &Hooks{
			Doc:    "https://geminicli.com/docs/hooks/reference (hooks in ~/.gemini/settings.json)",
			Events: geminiHookEvents, Client: "gemini", Name: "engram",
			path: func(e Env) string { return filepath.Join(e.home(), ".gemini", "settings.json") },
		},
	},
	{
		ID: "zed", Name: "Zed", Format: JSON, Container: "context_servers",
		Doc:      "https://zed.dev/docs/ai/mcp (context_servers in settings.json)",
		path:     func(e Env) string { return filepath.Join(zedDir(e), "settings.json") },
		marks:    func(e Env) []string { return []string{zedDir(e)} },
		programs: []string{"zed", "zeditor"},
	},
}

func claudeDesktopDir(e Env) string {
	// Claude Desktop ships for macOS and Windows; Linux builds (community
	// packages) use the XDG directory.
	return filepath.Join(e.configHome(), "Claude")
}

func codexHome(e Env) string {
	if d := e.Getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(e.home(), ".codex")
}

func zedDir(e Env) string {
	switch e.GOOS {
	case "windows":
		return filepath.Join(e.configHome(), "Zed")
	case "darwin":
		return filepath.Join(e.home(), ".config", "zed")
	}
	return filepath.Join(e.configHome(), "zed")
}

// aliases are other names people type for a client.
var aliases = map[string]string{
	"claude": "claude-code", "claudecode": "claude-code", "claude-desktop-app": "claude-desktop",
	"code": "vscode", "vs-code": "vscode", "codex-cli": "codex", "gemini-cli": "gemini",
}

// Find returns the client named id (an ID or a common alias).
func Find(id string) (Client, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if a, ok := aliases[id]; ok {
		id = a
	}
	i := slices.IndexFunc(Clients, func(c Client) bool { return c.ID == id })
	if i < 0 {
		return Client{}, ErrUnknownClient
	}
	return Clients[i], nil
}

// IDs lists the clients' IDs.
func IDs() []string {
	ids := make([]string, len(Clients))
	for i, c := range Clients {
		ids[i] = c.ID
	}
	return ids
}
