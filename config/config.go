// Package config loads the MCP server configuration of mcp-bridge.
//
// Configuration lives in Claude-style JSON files holding an "mcpServers"
// object (VS Code's "servers" key is accepted when "mcpServers" is absent):
//
//   - global:  GlobalPath(zotHome)     = <zotHome>/mcp.json
//   - project: ProjectPaths(projectDir): <projectDir>/.vscode/mcp.json,
//     .cursor/mcp.json, .mcp.json (Claude Code) and .zot/mcp.json, in rising
//     precedence
//
// Files are JSONC: comments and trailing commas are allowed. A project entry
// replaces the whole global entry of the same name (Server.Replaces says so),
// and an entry of a file later in the list replaces one of an earlier file.
// Other clients' spellings of a server entry are read too (see foreign.go),
// and each field the bridge does not implement gets one warning. Top-level
// settings are read from the global file only: a project file comes with a
// repository and must not decide how the bridge treats servers. After the merge,
// ${VAR} and ${VAR:-default} references are expanded from the process
// environment (see [Load] for the exact rules). Configuration files are only
// read, never rewritten.
//
// Load never fails as a whole: every problem is recorded in
// [Config.Problems], and a server that cannot be started carries a
// non-empty [Server.Err]. Messages name fields and environment variables but
// never contain the value of an env entry, a header or a URL, since those
// commonly hold secrets.
package config

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Transport is the wire transport used to reach an MCP server.
type Transport string

// Supported transports.
const (
	// TransportStdio spawns the server as a child process and speaks
	// JSON-RPC over its stdin/stdout.
	TransportStdio Transport = "stdio"
	// TransportStreamableHTTP is the MCP "Streamable HTTP" transport.
	TransportStreamableHTTP Transport = "streamable-http"
	// TransportSSE is the legacy HTTP+SSE transport.
	TransportSSE Transport = "sse"
)

// Scopes of a configuration file.
const (
	// ScopeGlobal marks the file under ZOT_HOME.
	ScopeGlobal = "global"
	// ScopeProject marks the file under the project directory.
	ScopeProject = "project"
)

// Tool exposure modes accepted in the top-level "toolExposure" key.
const (
	ToolExposureAuto     = "auto"
	ToolExposureDeferred = "deferred"
	ToolExposureProxy    = "proxy"
	ToolExposureDirect   = "direct"
)

// Default timeouts applied when a server entry does not set them.
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultRequestTimeout = 60 * time.Second
	DefaultIdleTimeout    = 300 * time.Second
)

// Raw holds a server's values exactly as written in the file, before
// ${VAR} expansion. It is meant for display and fingerprinting; it may
// contain literal secrets, so never log it wholesale.
type Raw struct {
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	URL     string
	Headers map[string]string
	// OAuth is the "oauth" object's string fields as written (nil: none).
	OAuth map[string]string
}

// Server is one named MCP server after merge, expansion and validation.
type Server struct {
	// Name is the key under "mcpServers".
	Name string
	// Source is the absolute path of the file that defined the server.
	Source string
	// Scope is ScopeGlobal or ScopeProject.
	Scope string

	// Transport is the transport to use. It is empty when the entry's
	// transport could not be determined (Err is then set).
	Transport Transport
	// TransportGuessed is true when the entry has a "url" but neither
	// "transport" nor "type": the caller should try streamable HTTP first
	// and fall back to SSE.
	TransportGuessed bool

	// Command, Args and Env are the stdio launch parameters, expanded.
	Command string
	Args    []string
	Env     map[string]string
	// Cwd is the absolute working directory of the process; a relative
	// "cwd" is resolved against Options.ProjectDir. It is "" when the file
	// does not set one (the child inherits the bridge's directory).
	Cwd string

	// URL and Headers are the HTTP parameters, expanded.
	URL     string
	Headers map[string]string
	// OAuth is the entry's "oauth" object, expanded (nil: none, or a stdio server).
	OAuth *OAuth

	// Raw holds the unexpanded values as written in the file.
	Raw Raw

	// ConnectTimeout bounds connecting and initializing (default 30s).
	ConnectTimeout time.Duration
	// RequestTimeout bounds a single request (default 60s).
	RequestTimeout time.Duration
	// IdleTimeout stops an unused server after this long (default 300s);
	// 0 means never stop it.
	IdleTimeout time.Duration

	// Enabled is false when the entry says "enabled": false or
	// "disabled": true.
	Enabled bool
	// DisabledTools lists MCP tool names (as the server reports them) that
	// must not be exposed.
	DisabledTools []string
	// IncludeTools, when not empty, lists the only tools to expose, as
	// path.Match glob patterns ("includeTools", Gemini's spelling).
	IncludeTools []string
	// ExcludeTools lists glob patterns of tools never to expose
	// ("excludeTools"); it wins over IncludeTools. See [Server.ToolAllowed].
	ExcludeTools []string
	// InteractiveTools lists tools that wait for a person ("interactiveTools": names
	// or path.Match glob patterns). See [Server.Interactive].
	InteractiveTools []string
	// AlwaysLoad lists tools registered visible from the first request instead of
	// waiting for a search ("alwaysLoad": true, kept as ["*"], or names or path.Match
	// glob patterns). See [Server.AlwaysLoaded].
	AlwaysLoad []string
	// Instructions is the entry's "instructions" text for the model, as
	// written (the bridge bounds what it shows).
	Instructions string
	// PinTools ("pinTools": true) pins a global server's tools as first seen: a tool
	// that changes or appears later is held back until the user approves it. A project
	// server's tools are pinned by its approval whatever this says.
	PinTools bool
	// ProtocolVersion ("protocolVersion") pins the MCP revision spoken to the server:
	// a legacy one ("2025-11-25", ...) speaks the initialize handshake without a
	// server/discover probe, "2026-07-28" speaks only the modern protocol; "" lets the
	// bridge negotiate (session.Era).
	ProtocolVersion string
	// Replaces is the global file whose entry of the same name this
	// non-global entry replaced, "" when it replaced nothing.
	Replaces string

	// EnvPolicy is what a stdio server gets of the bridge's environment: set by the
	// entry's "envPolicy", else the top-level one, else inherit (global) or minimal
	// (project).
	EnvPolicy EnvPolicy

	// Err is non-empty when the entry is misconfigured and the server must
	// not be started. It names the offending field(s) and what to do, and
	// never contains a secret value. Several errors are joined with "; ".
	Err string
}

// Usable reports whether the server may be started: it is enabled and has
// no configuration error.
func (s *Server) Usable() bool { return s.Enabled && s.Err == "" }

// FileStatus describes one configuration file that Load looked at.
type FileStatus struct {
	// Path is the absolute path of the file.
	Path string
	// Scope is ScopeGlobal or ScopeProject.
	Scope string
	// Found is false when the file does not exist (which is not an error).
	Found bool
	// Err is non-empty when the file exists but could not be used at all
	// (unreadable, not valid JSONC, wrong top-level shape).
	Err string
}

// Problem is one thing wrong with the configuration.
type Problem struct {
	// File is the absolute path of the file concerned.
	File string
	// Server is the server name, or "" for a file-level problem.
	Server string
	// Field is the field path (e.g. "args[2]", "env.API_KEY",
	// "headers.Authorization"), or "" when the problem concerns the whole
	// file or server entry.
	Field string
	// Message says what is wrong and, where possible, what to do. It never
	// contains a secret value.
	Message string
	// Level is LevelError (the zero value) or LevelWarning: a warning is
	// worth reading (an ignored field, a likely typo) but breaks nothing.
	Level Level
}

// Level is how serious a Problem is.
type Level string

// Problem levels.
const (
	// LevelError marks a problem that breaks a file or a server.
	LevelError Level = ""
	// LevelWarning marks something the bridge ignores or reads differently
	// from what the user may expect; everything still works.
	LevelWarning Level = "warning"
)

// Warning reports whether the problem is only a warning.
func (p Problem) Warning() bool { return p.Level == LevelWarning }

// String formats the problem as
// `<file>: server "<name>": <field>: <message>`, leaving out the parts that
// are empty; a warning starts with "warning: ".
func (p Problem) String() string {
	var b strings.Builder
	if p.Warning() {
		b.WriteString("warning: ")
	}
	b.WriteString(p.File)
	b.WriteString(": ")
	if p.Server != "" {
		fmt.Fprintf(&b, "server %q: ", p.Server)
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Config is the merged configuration.
type Config struct {
	// Servers holds every named entry after the merge, usable or not,
	// sorted by Name.
	Servers []Server
	// Files lists the files looked at: global first, then the project files
	// in rising precedence.
	Files []FileStatus
	// Problems lists everything wrong, ordered by file (in Files order),
	// then server name, then field; ties keep discovery order.
	Problems []Problem
	// ToolExposure is "auto" (default), "deferred", "proxy" or "direct".
	ToolExposure string
	// ToolExposureSource is the file that set ToolExposure, "" for the
	// default.
	ToolExposureSource string
	// TrustProjectServers is the global file's "trustProjectServers": true,
	// which lets project-file servers run without the user's approval.
	TrustProjectServers bool
}

// Server returns the server with the given name.
func (c *Config) Server(name string) (*Server, bool) {
	i, ok := slices.BinarySearchFunc(c.Servers, name, func(s Server, n string) int {
		return cmp.Compare(s.Name, n)
	})
	if !ok {
		return nil, false
	}
	return &c.Servers[i], true
}

// Options controls Load.
type Options struct {
	// ZotHome is the directory holding the global mcp.json ("" = no
	// global file).
	ZotHome string
	// ProjectDir is the project directory ("" = none: no project file, and
	// a relative "cwd" is an error).
	ProjectDir string
	// LookupEnv looks up environment variables for ${VAR} expansion;
	// os.LookupEnv in production, a fake in tests. nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// HomeDir is what ${userHome} expands to; "" means os.UserHomeDir.
	HomeDir string
}

// GlobalPath returns the global configuration file: <zotHome>/mcp.json.
func GlobalPath(zotHome string) string { return filepath.Join(zotHome, "mcp.json") }

// ProjectPath returns the project configuration file:
// <projectDir>/.zot/mcp.json.
func ProjectPath(projectDir string) string {
	return filepath.Join(projectDir, ".zot", "mcp.json")
}

// ZotHome computes zot's state directory the way the current zot host does:
//
//  1. $ZOT_HOME if set and non-empty;
//  2. else $XDG_STATE_HOME/zot if XDG_STATE_HOME is set (any OS);
//  3. else on darwin <homeDir>/Library/Application Support/zot, on windows
//     %LOCALAPPDATA%\zot;
//  4. else <homeDir>/.local/state/zot;
//  5. last resort ".zot" (relative) when homeDir is unknown.
//
// goos is a runtime.GOOS value and homeDir the user's home directory (""
// if unknown). Paths are joined with the host's separator.
func ZotHome(lookupEnv func(string) (string, bool), goos, homeDir string) string {
	if v := Getenv(lookupEnv, "ZOT_HOME"); v != "" {
		return v
	}
	if v := Getenv(lookupEnv, "XDG_STATE_HOME"); v != "" {
		return filepath.Join(v, "zot")
	}
	switch goos {
	case "darwin":
		if homeDir != "" {
			return filepath.Join(homeDir, "Library", "Application Support", "zot")
		}
	case "windows":
		if v := Getenv(lookupEnv, "LOCALAPPDATA"); v != "" {
			return filepath.Join(v, "zot")
		}
	}
	if homeDir != "" {
		return filepath.Join(homeDir, ".local", "state", "zot")
	}
	return ".zot"
}

// Load reads the global and project files, merges them, expands ${VAR}
// references and validates every server. It never fails as a whole; see
// Config.Problems and Server.Err.
//
// Expansion rules, applied after the merge to "command", each "args"
// element, "env" values, "cwd", "url" and "headers" values:
//
//   - ${NAME} is replaced by the variable's value; ${NAME:-default} by the
//     value, or by default when the variable is unset. A variable that is
//     set but empty stays empty. NAME matches [A-Za-z_][A-Za-z0-9_]*.
//   - Variables come from opts.LookupEnv only, never from the entry's own
//     "env" block, and there is no shell: bare $NAME, ~ and $(...) are left
//     as they are.
//   - Other clients' forms are read too: ${env:NAME} is ${NAME};
//     ${workspaceFolder} and ${workspaceFolderBasename} are the project
//     directory and its last element; ${userHome} is opts.HomeDir; and
//     ${input:ID} (VS Code, which prompts for it) is the value of the
//     environment variable InputEnvVar(ID), e.g. MCP_INPUT_API_KEY for
//     ${input:api-key}: the bridge never prompts.
//   - Expansion is a single pass: text produced by a value or a default is
//     never expanded again.
//   - Defaults do not nest: the default runs up to the first "}", so
//     ${A:-${B}} yields the literal text "${B}" when A is unset.
//   - There is no escape: "$${A}" is a "$" followed by the expansion of
//     ${A}.
//   - A malformed reference ("${" without "}", "${1X}", "${A:x}", ...) or a
//     missing variable or input without default sets Err on that server
//     only, saying which variable to set.
//
// When the global and project paths are the same file, it is read once, as
// the global file.
func Load(opts Options) *Config {
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	projectDir := ""
	if opts.ProjectDir != "" {
		projectDir = absPath(opts.ProjectDir)
	}
	home := opts.HomeDir
	if home == "" {
		home, _ = os.UserHomeDir()
	}

	c := &Config{ToolExposure: ToolExposureAuto}
	merged := map[string]*draft{}
	var files []*fileResult
	var topEnv EnvPolicy
	if opts.ZotHome != "" {
		files = append(files, readFile(absPath(GlobalPath(opts.ZotHome)), ScopeGlobal))
	}
	if projectDir != "" {
		for _, p := range ProjectPaths(projectDir) {
			if len(files) == 0 || files[0].status.Path != p {
				files = append(files, readFile(p, ScopeProject))
			}
		}
	}

	ours := map[string]bool{ProjectPath(projectDir): true}
	if len(files) > 0 && files[0].status.Scope == ScopeGlobal {
		ours[files[0].status.Path] = true
	}
	for _, f := range files {
		// Other clients' project files are listed only when they exist: most projects
		// have none, and "not found" for each would only be noise.
		if f.status.Found || ours[f.status.Path] {
			c.Files = append(c.Files, f.status)
		}
		c.Problems = append(c.Problems, f.problems...)
		if f.toolExposure != "" {
			c.ToolExposure = f.toolExposure
			c.ToolExposureSource = f.status.Path
		}
		if f.envPolicy.Mode != "" { // only the global file keeps top-level settings (dropSettings)
			topEnv = f.envPolicy
		}
		c.TrustProjectServers = c.TrustProjectServers || f.trustProjectServers
		for _, d := range f.servers {
			prev, clash := merged[d.srv.Name]
			if clash && prev.srv.Scope == ScopeProject && d.srv.Scope == ScopeProject {
				c.Problems = append(c.Problems, Problem{File: d.srv.Source, Server: d.srv.Name, Level: LevelWarning,
					Message: fmt.Sprintf("also defined in %s; this definition wins (precedence: .zot/mcp.json, .mcp.json, .cursor/mcp.json, .vscode/mcp.json)", prev.srv.Source)})
			}
			// A project entry can replace another project file's entry that had already
			// replaced the global one: the global entry is still what is being replaced.
			switch {
			case clash && prev.srv.Scope == ScopeGlobal && d.srv.Scope != ScopeGlobal:
				d.srv.Replaces = prev.srv.Source
			case clash && d.srv.Scope != ScopeGlobal:
				d.srv.Replaces = prev.srv.Replaces
			}
			merged[d.srv.Name] = d
		}
	}

	names := slices.Sorted(maps.Keys(merged))
	refuseLookalikes(names, merged)
	for _, n := range names {
		d := merged[n]
		d.finish(projectDir, home, lookup)
		if d.srv.EnvPolicy.Mode == "" {
			d.srv.EnvPolicy = defaultEnvPolicy(d.srv.Scope, topEnv)
		}
		c.Problems = append(c.Problems, d.problems...)
		c.Servers = append(c.Servers, d.srv)
	}

	rank := map[string]int{}
	for i, f := range c.Files {
		rank[f.Path] = i
	}
	sort.SliceStable(c.Problems, func(i, j int) bool {
		a, b := c.Problems[i], c.Problems[j]
		if a.File != b.File {
			return rank[a.File] < rank[b.File]
		}
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		return a.Field < b.Field
	})
	return c
}

// absPath returns p made absolute and cleaned, or p cleaned when the
// working directory is unknown.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
