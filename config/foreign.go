package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/textdist"
)

// serverFields are the server-entry fields the bridge reads, in our spelling or in
// another client's (httpUrl, serverUrl, transportType, timeout). A field outside this
// list and ignoredFields is reported as unknown, with the closest of these suggested.
var serverFields = []string{
	"command", "args", "env", "cwd", "url", "headers",
	"transport", "type", "connectTimeout", "requestTimeout", "idleTimeout",
	"enabled", "disabled", "disabledTools", "includeTools", "excludeTools",
	"httpUrl", "serverUrl", "transportType", "timeout", "instructions", "interactiveTools", "envPolicy",
	"pinTools",
	"alwaysLoad", "oauth",
	"protocolVersion",
}

// ignoredFields are fields other clients define and the bridge does not implement,
// each with what the bridge does instead. Each one present gets one warning.
var ignoredFields = map[string]string{
	"autoApprove":          "not used (Cline's per-tool auto-approval): the bridge keeps no approval list; its tool calls are handled like any other zot tool call",
	"alwaysAllow":          "not used (Roo Code's per-tool auto-approval): the bridge keeps no approval list; its tool calls are handled like any other zot tool call",
	"trust":                "not used (Gemini/Qwen): nothing in a server entry can skip confirmations; its tool calls are handled like any other zot tool call",
	"authProviderType":     "not used: the bridge discovers the server's OAuth settings itself when it asks for sign-in (/mcp login NAME)",
	"targetAudience":       "not used: the bridge has no Google credentials sign-in; put a token in \"headers\" as a ${VAR} reference",
	"targetServiceAccount": "not used: the bridge has no Google credentials sign-in; put a token in \"headers\" as a ${VAR} reference",
	"description":          "not shown: the bridge presents the server by its name and the descriptions of its tools",
	"envFile":              "not read: the bridge loads no env files; put the variables in \"env\" (as ${VAR} references) or in the environment zot starts in",
	"dev":                  "not used (VS Code's watch/debug mode): restart a changed server with /mcp restart NAME",
	"watchPaths":           "not used (Roo Code): restart a changed server with /mcp restart NAME",
	"networkTimeout":       "not used: set \"connectTimeout\" and \"requestTimeout\" in seconds",
}

// otherFields warns once about each field of the entry that the bridge does not read.
func (d *draft) otherFields(fields map[string]json.RawMessage) {
	names := slices.Sorted(maps.Keys(fields))
	for _, k := range names {
		if slices.Contains(serverFields, k) {
			continue
		}
		if what, ok := ignoredFields[k]; ok {
			d.warn(k, what)
			continue
		}
		msg := "unknown field, ignored"
		if near, ok := textdist.Closest(k, serverFields); ok {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		d.warn(k, msg)
	}
}

// warn records a warning about the server: it goes to Problems only, never to Err.
func (d *draft) warn(field, msg string) {
	d.problems = append(d.problems, Problem{File: d.srv.Source, Server: d.srv.Name, Field: field, Message: msg, Level: LevelWarning})
}

// urlField is the spelling the entry's URL was written in.
func (d *draft) urlField() string {
	if d.urlAlias != "" {
		return d.urlAlias
	}
	return "url"
}

// urlAliases reads Gemini/Qwen's "httpUrl" (streamable HTTP) and Windsurf's "serverUrl"
// (HTTP, transport guessed like "url"). Only one URL spelling may be set.
func (d *draft) urlAliases(get func(string) (json.RawMessage, bool)) {
	for _, alias := range []string{"httpUrl", "serverUrl"} {
		v, ok := get(alias)
		if !ok {
			continue
		}
		if d.hasURL {
			d.fail(alias, fmt.Sprintf("conflicts with %q; keep only one of them", d.urlField()))
			continue
		}
		d.hasURL, d.urlAlias = true, alias
		d.str(alias, v, &d.srv.Raw.URL)
		if alias == "httpUrl" {
			d.implied = TransportStreamableHTTP
		}
	}
}

// millisTimeout reads Gemini/Qwen's "timeout", a request timeout in milliseconds.
// Cline writes "timeout" in seconds (1–3600), so a value under 1000, which would be
// under a second, is read as seconds, with a warning. "requestTimeout" wins when both
// are set.
func (d *draft) millisTimeout(get func(string) (json.RawMessage, bool)) {
	v, ok := get("timeout")
	if !ok {
		return
	}
	var f float64
	if json.Unmarshal(v, &f) != nil || f <= 0 || math.IsInf(f, 0) || f/1000 > maxSeconds {
		d.fail("timeout", `must be a positive number of milliseconds (Gemini's unit); or use "requestTimeout" in seconds`)
		return
	}
	if _, ok := get("requestTimeout"); ok {
		d.warn("timeout", `ignored: "requestTimeout" is set too and wins`)
		return
	}
	if f < 1000 {
		d.srv.RequestTimeout = time.Duration(math.Round(f * float64(time.Second)))
		d.warn("timeout", fmt.Sprintf(`read as %g seconds (Cline's unit), since %g milliseconds (Gemini's unit) would be under a second; write "requestTimeout": %g to say seconds`, f, f, f))
		return
	}
	d.srv.RequestTimeout = time.Duration(math.Round(f * float64(time.Millisecond)))
}

// patterns reads a list of tool-name glob patterns (path.Match syntax).
func (d *draft) patterns(get func(string) (json.RawMessage, bool), field string) []string {
	v, ok := get(field)
	if !ok {
		return nil
	}
	list := d.strList(field, v)
	out := list[:0]
	for i, p := range list {
		if _, err := path.Match(p, ""); err != nil {
			d.fail(fmt.Sprintf("%s[%d]", field, i), fmt.Sprintf("bad glob pattern %s: use * ? [...] as in shell globs", quoteShort(p)))
			continue
		}
		out = append(out, p)
	}
	return out
}

// alwaysLoad decodes "alwaysLoad": true (every tool, kept as the pattern "*"), false (none)
// or a list of names and glob patterns, checked as patterns checks them.
func (d *draft) alwaysLoad(get func(string) (json.RawMessage, bool)) []string {
	v, ok := get("alwaysLoad")
	if !ok {
		return nil
	}
	var all bool
	if json.Unmarshal(v, &all) == nil {
		if all {
			return []string{"*"}
		}
		return nil
	}
	var list []json.RawMessage
	if json.Unmarshal(v, &list) != nil {
		d.fail("alwaysLoad", `must be true, false or an array of tool names and glob patterns (e.g. ["search_*"])`)
		return nil
	}
	return d.patterns(get, "alwaysLoad")
}

// AlwaysLoaded reports whether the tool is to be visible from the first request (it is
// named or matched by a pattern of "alwaysLoad").
func (s *Server) AlwaysLoaded(tool string) bool {
	for _, p := range s.AlwaysLoad {
		if m, _ := path.Match(p, tool); m || p == tool {
			return true
		}
	}
	return false
}

// ToolAllowed reports whether the tool may be exposed, applying disabledTools (exact
// names), then excludeTools, then includeTools. When it is not, why names the field and
// the file that hide it, for an error the user can act on.
func (s *Server) ToolAllowed(tool string) (ok bool, why string) {
	for _, n := range s.DisabledTools {
		if n == tool {
			return false, fmt.Sprintf("listed in \"disabledTools\" of server %q in %s", s.Name, s.Source)
		}
	}
	for _, p := range s.ExcludeTools {
		if m, _ := path.Match(p, tool); m {
			return false, fmt.Sprintf("matched by \"excludeTools\" pattern %q of server %q in %s", p, s.Name, s.Source)
		}
	}
	if len(s.IncludeTools) == 0 {
		return true, ""
	}
	for _, p := range s.IncludeTools {
		if m, _ := path.Match(p, tool); m {
			return true, ""
		}
	}
	return false, fmt.Sprintf("not matched by any \"includeTools\" pattern of server %q in %s", s.Name, s.Source)
}

// Interactive reports whether the tool waits for a person (it is named or matched by a
// pattern of "interactiveTools").
func (s *Server) Interactive(tool string) bool {
	for _, p := range s.InteractiveTools {
		if p == tool {
			return true
		}
		if m, _ := path.Match(p, tool); m {
			return true
		}
	}
	return false
}

// decodeInputs reads VS Code's "inputs" array for the descriptions shown when an
// ${input:ID} has no value. Bad elements are reported and skipped.
func decodeInputs(file string, raw json.RawMessage, problems *[]Problem) map[string]string {
	var list []struct {
		ID          string `json:"id"`
		Description string `json:"description"`
	}
	if json.Unmarshal(raw, &list) != nil {
		*problems = append(*problems, Problem{File: file, Field: "inputs",
			Message: `must be an array of {"id": ..., "description": ...} objects; ${input:ID} references still read MCP_INPUT_<ID>`})
		return nil
	}
	out := make(map[string]string, len(list))
	for _, in := range list {
		if in.ID != "" {
			out[in.ID] = in.Description
		}
	}
	return out
}

// projectFiles are the project-level files read besides .zot/mcp.json, lowest precedence
// first; .zot/mcp.json (ProjectPath) comes last and wins a name clash.
var projectFiles = [][]string{
	{".vscode", "mcp.json"}, // VS Code ("servers" + "inputs")
	{".cursor", "mcp.json"}, // Cursor
	{".mcp.json"},           // Claude Code
}

// ProjectPaths returns every project file Load reads, lowest precedence first:
// .vscode/mcp.json, .cursor/mcp.json, .mcp.json, then .zot/mcp.json (ProjectPath).
func ProjectPaths(projectDir string) []string {
	out := make([]string, 0, len(projectFiles)+1)
	for _, p := range projectFiles {
		out = append(out, filepath.Join(append([]string{projectDir}, p...)...))
	}
	return append(out, ProjectPath(projectDir))
}

// ShortSource names a server's file briefly: "global", or the project file relative to
// the project (".zot/mcp.json", ".mcp.json", ...).
func (s *Server) ShortSource() string {
	if s.Scope != ScopeProject {
		return s.Scope
	}
	dir := filepath.Base(filepath.Dir(s.Source))
	if strings.HasPrefix(dir, ".") {
		return dir + "/" + filepath.Base(s.Source)
	}
	return filepath.Base(s.Source)
}

// KnownField reports whether the bridge reads the server-entry field (in our spelling or
// another client's).
func KnownField(name string) bool { return slices.Contains(serverFields, name) }

// IgnoredField reports whether the field is one another client defines and the bridge
// does not implement, with what the bridge does instead.
func IgnoredField(name string) (what string, ok bool) {
	what, ok = ignoredFields[name]
	return what, ok
}
