// Package importer reads the MCP servers of another client's user-level config (Claude
// Code, Cursor, VS Code, Gemini CLI, Codex) and turns them into entries for mcp-bridge's
// own mcp.json. It only reads and converts; writing is config.AddServer's job.
//
// Conversion keeps ${...} references as references and never carries a literal secret
// unless asked: a literal env or header value, or an argument or URL query value that
// looks like a credential, is replaced by a ${VAR} reference and reported by name.
package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// Clients that can be imported.
const (
	Claude = "claude" // Claude Code: ~/.claude.json
	Cursor = "cursor" // ~/.cursor/mcp.json
	VSCode = "vscode" // the user profile's mcp.json
	Gemini = "gemini" // ~/.gemini/settings.json
	Codex  = "codex"  // $CODEX_HOME/config.toml (TOML)
)

// Clients lists the accepted client names.
var Clients = []string{Claude, Cursor, VSCode, Gemini, Codex}

// Options controls Read.
type Options struct {
	// Client is one of Clients.
	Client string
	// From is the file to read; "" means the client's default (DefaultPath).
	From string
	// IncludeSecrets copies literal secrets as they are instead of replacing them by
	// ${VAR} references.
	IncludeSecrets bool
	// ProjectDir selects Claude Code's per-project ("local") servers stored in
	// ~/.claude.json under projects.<dir>; "" reads only the user-level ones.
	ProjectDir string
	// Home, GOOS and LookupEnv locate the default files; LookupEnv nil means none set.
	Home      string
	GOOS      string
	LookupEnv func(string) (string, bool)
	// Taken names the servers already configured: a server renamed because its name
	// breaks the rule (config.CheckServerName) or looks like one of these gets a name
	// that is neither.
	Taken []string
}

// Server is one converted server entry.
type Server struct {
	Name  string
	Entry map[string]any // a JSON object in mcp-bridge's spelling
	// Was is the name in the client's file when it had to be renamed ("" when not): a
	// name the bridge refuses, or one that looks like a server already configured.
	Was string
}

// Secret is a literal value that was found where a secret usually is.
type Secret struct {
	Server string
	Field  string // e.g. "env.API_KEY", "headers.Authorization", "args[3]"
	Var    string // the variable the entry now reads ("" when the literal was copied)
}

// Result is what Read found.
type Result struct {
	Source  string
	Servers []Server // sorted by name
	Secrets []Secret
	// Notes explain each change that is not a secret: dropped fields, renamed ones,
	// inputs to provide. They name fields, never values.
	Notes []string
}

// DefaultPath is where client keeps its user-level MCP servers.
func DefaultPath(client, home, goos string, lookupEnv func(string) (string, bool)) (string, error) {
	switch client {
	case Claude:
		return filepath.Join(home, ".claude.json"), nil
	case Cursor:
		return filepath.Join(home, ".cursor", "mcp.json"), nil
	case Gemini:
		return filepath.Join(home, ".gemini", "settings.json"), nil
	case Codex:
		if d := config.Getenv(lookupEnv, "CODEX_HOME"); d != "" {
			return filepath.Join(d, "config.toml"), nil
		}
		return filepath.Join(home, ".codex", "config.toml"), nil
	case VSCode:
		switch goos {
		case "darwin":
			return filepath.Join(home, "Library", "Application Support", "Code", "User", "mcp.json"), nil
		case "windows":
			if d := config.Getenv(lookupEnv, "APPDATA"); d != "" {
				return filepath.Join(d, "Code", "User", "mcp.json"), nil
			}
			return filepath.Join(home, "AppData", "Roaming", "Code", "User", "mcp.json"), nil
		}
		if d := config.Getenv(lookupEnv, "XDG_CONFIG_HOME"); d != "" {
			return filepath.Join(d, "Code", "User", "mcp.json"), nil
		}
		return filepath.Join(home, ".config", "Code", "User", "mcp.json"), nil
	}
	return "", fmt.Errorf("unknown client %q; use one of %s", client, strings.Join(Clients, ", "))
}

// Read reads the client's file and converts every server in it.
func Read(opts Options) (*Result, error) {
	src := opts.From
	if src == "" {
		p, err := DefaultPath(opts.Client, opts.Home, opts.GOOS, opts.LookupEnv)
		if err != nil {
			return nil, err
		}
		src = p
	} else if _, err := DefaultPath(opts.Client, "", "", nil); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s not found; pass the file with --from FILE", src)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", src, err)
	}
	var raw map[string]map[string]any
	var inputs []string
	if opts.Client == Codex {
		raw, err = codexServers(data)
	} else {
		raw, inputs, err = jsonServers(opts.Client, data, opts.ProjectDir)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (nothing was imported)", src, err)
	}
	c := &converter{res: &Result{Source: src}, includeSecrets: opts.IncludeSecrets}
	names := slices.Sorted(maps.Keys(raw))
	// Names that pass (beside the configured ones and those kept before them) keep their
	// place; then each of the others is renamed to avoid every name kept or given.
	taken := slices.Clone(opts.Taken)
	refused := map[string]error{}
	for _, n := range names {
		if err := config.CheckNewServerName(n, taken); err != nil {
			refused[n] = err
		} else {
			taken = append(taken, n)
		}
	}
	for _, from := range names {
		n, was := from, ""
		if err := refused[from]; err != nil {
			n, was = config.FixServerName(from, taken), from
			taken = append(taken, n)
			c.note(n, "renamed from %s: %v", shortName(from), err)
		}
		var entry map[string]any
		if opts.Client == Codex {
			entry = c.fromCodex(n, raw[from])
		} else {
			entry = c.fromJSON(opts.Client, n, raw[from])
		}
		c.secrets(n, entry)
		c.res.Servers = append(c.res.Servers, Server{Name: n, Entry: entry, Was: was})
	}
	slices.SortFunc(c.res.Servers, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	for _, id := range inputs {
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("input %q: the bridge never prompts; export its value as %s", id, config.InputEnvVar(id)))
	}
	return c.res, nil
}

// shortName quotes a name from the client's file for a note, cut to a readable length.
func shortName(s string) string {
	const max = 60
	if len(s) > max {
		return strconv.Quote(textcut.Prefix(s, max)) + "…"
	}
	return strconv.Quote(s)
}

// jsonServers decodes a JSONC file of a JSON-configured client into its server entries.
func jsonServers(client string, data []byte, projectDir string) (map[string]map[string]any, []string, error) {
	std, err := hujson.Standardize(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if err != nil {
		return nil, nil, errors.New("not valid JSON/JSONC; fix the syntax first")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(std, &top); err != nil {
		return nil, nil, errors.New("the top level must be a JSON object")
	}
	out := map[string]map[string]any{}
	add := func(key string, raw json.RawMessage) error {
		if len(raw) == 0 || string(raw) == "null" {
			return nil
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("%q must be an object mapping server names to entries", key)
		}
		for n, v := range m {
			e, err := decodeEntry(v)
			if err != nil {
				return fmt.Errorf("server %q in %q: %w", n, key, err)
			}
			out[n] = e
		}
		return nil
	}
	key := "mcpServers"
	if client == VSCode {
		if _, ok := top["servers"]; ok {
			key = "servers"
		}
	}
	if err := add(key, top[key]); err != nil {
		return nil, nil, err
	}
	// Claude Code keeps a user's per-project ("local") servers under projects.<dir>;
	// they win over the user-level ones of the same name, as in Claude Code.
	if client == Claude && projectDir != "" {
		var projects map[string]struct {
			MCPServers json.RawMessage `json:"mcpServers"`
		}
		if raw, ok := top["projects"]; ok && json.Unmarshal(raw, &projects) == nil {
			if p, ok := projects[projectDir]; ok {
				if err := add("projects."+projectDir+".mcpServers", p.MCPServers); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	var inputs []string
	if raw, ok := top["inputs"]; ok {
		var list []struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &list) == nil {
			for _, in := range list {
				if in.ID != "" {
					inputs = append(inputs, in.ID)
				}
			}
		}
	}
	return out, inputs, nil
}

// decodeEntry decodes one server entry keeping numbers exact.
func decodeEntry(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var e map[string]any
	if err := dec.Decode(&e); err != nil || e == nil {
		return nil, errors.New("the entry must be a JSON object")
	}
	return e, nil
}
