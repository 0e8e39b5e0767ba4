package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/zot-mcp/mcp-bridge/internal/shellquote"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
)

// Client names accepted by ClientConfig (serve --print-config CLIENT).
const (
	ClientClaude = "claude" // Claude Code: a `claude mcp add` command line
	ClientCodex  = "codex"  // OpenAI Codex: a [mcp_servers.NAME] table for ~/.codex/config.toml
	ClientCursor = "cursor" // Cursor: mcp.json with mcpServers
	ClientVSCode = "vscode" // VS Code: mcp.json with servers
	ClientGemini = "gemini" // Gemini CLI: settings.json with mcpServers
)

// DefaultClientServerName is the server's name in the client when ClientConfigInput.Name
// is empty.
const DefaultClientServerName = "mcp-bridge"

// ClientNames lists the clients ClientConfig knows, in a fixed order.
func ClientNames() []string {
	return []string{ClientClaude, ClientCodex, ClientCursor, ClientVSCode, ClientGemini}
}

// ClientConfigInput describes the running (or to-be-run) serve front end a client is to
// be pointed at.
type ClientConfigInput struct {
	// Client is one of ClientNames.
	Client string
	// Name is the server's name in the client; "" means DefaultClientServerName.
	Name string
	// Command is the argv that starts `mcp-bridge serve ...` on stdio. It is used only
	// when URL is empty.
	Command []string
	// Env are variables (NAME=VALUE) the stdio server is started with, set in the
	// config itself: a client may start serve with a minimal environment (Codex passes
	// neither ZOT_HOME nor XDG_STATE_HOME), so where the bridge's state lives cannot be
	// left to the client's environment. Used only when URL is empty.
	Env []string
	// URL is the streamable HTTP endpoint; when set, the config is for HTTP.
	URL string
	// TokenEnv names the environment variable that holds the bearer token, when the
	// HTTP front end checks one. Never the token itself: the config refers to the
	// variable. Without it the URL's path secret is the only credential.
	TokenEnv string
}

// UnknownClientError is ClientConfig's answer to a client name it does not know.
type UnknownClientError struct {
	Name string
}

func (e *UnknownClientError) Error() string {
	msg := fmt.Sprintf("unknown client %q; use one of %s.", e.Name, strings.Join(ClientNames(), ", "))
	return msg + textdist.Suggest(e.Name, ClientNames())
}

var (
	serverNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	envNameRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// ClientConfig returns what to paste into in.Client's configuration. text is the exact
// text to paste (for claude, a command line to run); hint says where it goes and what to
// keep private, for the user's eyes (stderr). hint is "" when text carries that line
// itself as a comment: the formats whose files accept comments (Codex's TOML, VS Code's
// and Gemini CLI's JSON with comments) start with it; Cursor's mcp.json is read as plain
// JSON and a shell line must paste into any shell (zsh treats a pasted # line as a
// command), so those two return their hint separately.
//
// No output holds a secret beyond what the caller put in URL: a token is always named by
// in.TokenEnv, in the form each client expands.
func ClientConfig(in ClientConfigInput) (text, hint string, err error) {
	known := false
	for _, c := range ClientNames() {
		known = known || c == in.Client
	}
	if !known {
		return "", "", &UnknownClientError{Name: in.Client}
	}
	if in.Name == "" {
		in.Name = DefaultClientServerName
	}
	if !serverNameRE.MatchString(in.Name) {
		return "", "", fmt.Errorf("server name %q: use letters, digits, '-' and '_' (starting with a letter or digit), which every client accepts", in.Name)
	}
	if in.URL != "" {
		u, perr := url.Parse(in.URL)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			// The URL may carry the path secret, so it is not repeated here.
			return "", "", errors.New("the serve URL is not an http:// or https:// URL with a host; pass the URL serve --http printed")
		}
		if in.TokenEnv != "" && !envNameRE.MatchString(in.TokenEnv) {
			return "", "", fmt.Errorf("token variable %q is not an environment variable name (letters, digits and '_', not starting with a digit)", in.TokenEnv)
		}
	} else {
		if len(in.Command) == 0 || in.Command[0] == "" {
			return "", "", errors.New("no command to start mcp-bridge serve on stdio and no URL to reach it over HTTP; give one of them")
		}
		in.TokenEnv = "" // stdio has no token
		for _, kv := range in.Env {
			if name, _, ok := strings.Cut(kv, "="); !ok || !envNameRE.MatchString(name) {
				return "", "", fmt.Errorf("environment entry %q is not NAME=VALUE with a variable name", kv)
			}
		}
	}
	c := clientConfig{in: in}
	switch in.Client {
	case ClientClaude:
		return c.claude()
	case ClientCodex:
		return c.codex(), "", nil
	case ClientCursor:
		return c.cursor()
	case ClientVSCode:
		return c.vscode()
	default: // ClientGemini
		return c.gemini()
	}
}

type clientConfig struct{ in ClientConfigInput }

func (c clientConfig) http() bool { return c.in.URL != "" }

// privacy is the sentence about what in the config must stay private, or "".
func (c clientConfig) privacy() string {
	switch {
	case !c.http():
		return ""
	case c.in.TokenEnv != "":
		return "; set " + c.in.TokenEnv + " to the token in the environment the client starts from"
	default:
		return "; the URL itself is the secret: keep this file private and out of version control"
	}
}

// orProject offers the project-level file too, unless the URL is the secret: project
// files are often committed.
func (c clientConfig) orProject(file string) string {
	if c.http() && c.in.TokenEnv == "" {
		return " (the user-level file, not a project's)"
	}
	return " (every project) or " + file + " (one project)"
}

func (c clientConfig) claude() (string, string, error) {
	args := []string{"claude", "mcp", "add", "--scope", "user"}
	if c.http() {
		args = append(args, "--transport", "http")
		if c.in.TokenEnv != "" {
			// Quoted so the shell leaves the reference alone: Claude Code stores it and
			// expands ${VAR} itself each time it connects, so the token never reaches
			// ~/.claude.json.
			args = append(args, "--header", "Authorization: Bearer ${"+c.in.TokenEnv+"}")
		}
		args = append(args, c.in.Name, c.in.URL)
	} else {
		for _, kv := range c.in.Env {
			args = append(args, "--env", kv)
		}
		args = append(args, c.in.Name, "--")
		args = append(args, c.in.Command...)
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellquote.Quote(a)
	}
	hint := "Run this line in a shell to add the server to Claude Code for every project (it writes ~/.claude.json)"
	if c.http() && c.in.TokenEnv == "" {
		hint += "; the URL itself is the secret: ~/.claude.json and your shell history now hold it, keep them private"
	} else {
		hint += c.privacy()
	}
	return strings.Join(quoted, " ") + "\n", hint + ".", nil
}

func (c clientConfig) codex() string {
	var b strings.Builder
	b.WriteString("# Add to ~/.codex/config.toml (or $CODEX_HOME/config.toml)" + c.privacy() + ".\n")
	if !c.http() {
		b.WriteString("# Codex starts it with a minimal environment: list in env_vars any variable your servers' configs read.\n")
	}
	b.WriteString("[mcp_servers." + c.in.Name + "]\n")
	if c.http() {
		b.WriteString("url = " + tomlString(c.in.URL) + "\n")
		if c.in.TokenEnv != "" {
			b.WriteString("bearer_token_env_var = " + tomlString(c.in.TokenEnv) + "\n")
		}
		return b.String()
	}
	b.WriteString("command = " + tomlString(c.in.Command[0]) + "\n")
	parts := make([]string, len(c.in.Command)-1)
	for i, a := range c.in.Command[1:] {
		parts[i] = tomlString(a)
	}
	b.WriteString("args = [" + strings.Join(parts, ", ") + "]\n")
	if len(c.in.Env) > 0 {
		vars := make([]string, len(c.in.Env))
		for i, kv := range c.in.Env {
			name, value, _ := strings.Cut(kv, "=")
			vars[i] = name + " = " + tomlString(value) // a variable name is a bare TOML key
		}
		b.WriteString("env = { " + strings.Join(vars, ", ") + " }\n")
	}
	return b.String()
}

// jsonEntry is one server entry of the JSON formats, fields in the order people write them.
type jsonEntry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	HTTPURL string            `json:"httpUrl,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// entry is the server entry with the client's spelling of the URL field and of an
// environment reference (ref turns a variable name into it).
func (c clientConfig) entry(urlField string, ref func(string) string) jsonEntry {
	var e jsonEntry
	if !c.http() {
		e.Command = c.in.Command[0]
		e.Args = append([]string{}, c.in.Command[1:]...)
		for _, kv := range c.in.Env {
			if e.Env == nil {
				e.Env = map[string]string{}
			}
			name, value, _ := strings.Cut(kv, "=")
			e.Env[name] = value
		}
		return e
	}
	if urlField == "httpUrl" {
		e.HTTPURL = c.in.URL
	} else {
		e.URL = c.in.URL
	}
	if c.in.TokenEnv != "" {
		e.Headers = map[string]string{"Authorization": "Bearer " + ref(c.in.TokenEnv)}
	}
	return e
}

func (c clientConfig) cursor() (string, string, error) {
	e := c.entry("url", func(v string) string { return "${env:" + v + "}" })
	text, err := marshalJSON(map[string]any{"mcpServers": map[string]jsonEntry{c.in.Name: e}})
	hint := "Merge into ~/.cursor/mcp.json" + c.orProject(".cursor/mcp.json") + c.privacy() + "."
	return text, hint, err
}

func (c clientConfig) vscode() (string, string, error) {
	e := c.entry("url", func(v string) string { return "${env:" + v + "}" })
	e.Type = "stdio"
	if c.http() {
		e.Type = "http"
	}
	text, err := marshalJSON(map[string]any{"servers": map[string]jsonEntry{c.in.Name: e}})
	head := "// Merge into your user mcp.json (command \"MCP: Open User Configuration\")" + c.orProject(".vscode/mcp.json") + c.privacy() + ".\n"
	return head + text, "", err
}

func (c clientConfig) gemini() (string, string, error) {
	e := c.entry("httpUrl", func(v string) string { return "${" + v + "}" })
	text, err := marshalJSON(map[string]any{"mcpServers": map[string]jsonEntry{c.in.Name: e}})
	head := "// Merge into ~/.gemini/settings.json" + c.orProject(".gemini/settings.json") + c.privacy() + ".\n"
	return head + text, "", err
}

// marshalJSON is v indented, with '&' and '<' left as they are (URLs stay readable).
func marshalJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encode the client config: %w", err)
	}
	return b.String(), nil
}

// tomlString is s as a TOML basic string. Go's strconv.Quote is not used: its \x and \a
// escapes are not TOML.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
