package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

// readEntries reads a config file's mcpServers as generic JSON objects.
func readEntries(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		t.Fatalf("%s is not JSONC: %v", path, err)
	}
	var top struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(std, &top); err != nil {
		t.Fatal(err)
	}
	return top.MCPServers
}

// TestCLIClaudeFlags: the spellings users bring from `claude mcp` write what ours do.
func TestCLIClaudeFlags(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	expectCode(t, e.run("add", "-s", "project", "-e", "A=${A_VAR}", "-e", "B=2", "loc", "--", "cmd", "arg"), 0, "add -s project -e")
	expectCode(t, e.run("add", "--scope", "user", "-t", "http", "-H", "Authorization: Bearer ${TOK}", "web", "https://example.invalid/mcp"), 0, "add --scope user -t -H")
	proj, glob := readEntries(t, e.projectPath()), readEntries(t, e.globalPath())
	if loc := proj["loc"]; loc["command"] != "cmd" || loc["env"].(map[string]any)["A"] != "${A_VAR}" || loc["env"].(map[string]any)["B"] != "2" {
		t.Errorf("project file after -s project -e: %v", proj)
	}
	if web := glob["web"]; web["type"] != "http" || web["url"] != "https://example.invalid/mcp" || web["headers"].(map[string]any)["Authorization"] != "Bearer ${TOK}" {
		t.Errorf("global file after --scope user -t -H: %v", glob)
	}

	r := e.run("add-json", "gh", `{"type":"http","url":"https://example.invalid/gh","headers":{"Authorization":"Bearer ${GH}"}}`, "-s", "user")
	expectCode(t, r, 0, "add-json")
	if !strings.Contains(r.stdout, `Added remote MCP server "gh"`) {
		t.Errorf("add-json output: %q", r.stdout)
	}
	r = e.run("add-json", "fsj", `{"command":"npx","args":["-y","pkg"],"comand":"typo"}`)
	expectCode(t, r, 0, "add-json with a misspelt field")
	if !strings.Contains(r.stderr, "warning: comand: unknown field") {
		t.Errorf("add-json did not warn about the misspelt field: %q", r.stderr)
	}
	glob = readEntries(t, e.globalPath())
	if glob["gh"]["url"] != "https://example.invalid/gh" || glob["fsj"]["command"] != "npx" {
		t.Errorf("global file after add-json: %v", glob)
	}
	expectCode(t, e.run("remove", "-s", "project", "loc"), 0, "remove -s project")
	if _, ok := readEntries(t, e.projectPath())["loc"]; ok {
		t.Errorf("remove -s project left loc")
	}

	before, err := os.ReadFile(e.globalPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"scope local", []string{"add", "-s", "local", "x", "--", "cmd"}, "--scope project"},
		{"scope typo", []string{"add", "--scope", "usr", "x", "--", "cmd"}, "--scope must be user or project"},
		{"scope and flag", []string{"add", "-s", "user", "--project", "x", "--", "cmd"}, "exclude each other"},
		{"not JSON", []string{"add-json", "x", `{"command":`}, "not valid JSON"},
		{"not an object", []string{"add-json", "x", `["cmd"]`}, "must be a JSON object"},
		{"bad field", []string{"add-json", "x", `{"command":"c","args":"not-a-list"}`}, "nothing was written: args"},
		{"nothing to run", []string{"add-json", "x", `{"env":{"A":"b"}}`}, "nothing was written"},
		{"no json", []string{"add-json", "x"}, "give the server NAME and its entry"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.run(c.args...)
			expectCode(t, r, 2, strings.Join(c.args, " "))
			if !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, r.stderr)
			}
		})
	}
	if after, _ := os.ReadFile(e.globalPath()); string(after) != string(before) {
		t.Errorf("a refused command changed %s", e.globalPath())
	}
}

// TestCLIUnknownFlagOneLine: a mistyped flag or command is one line that names it and
// points at --help, not the whole flag list.
func TestCLIUnknownFlagOneLine(t *testing.T) {
	t.Parallel()
	e := newCLIEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"add", "--bogus", "x", "--", "cmd"}, "mcp-bridge add: flag provided but not defined: -bogus (see mcp-bridge add --help)"},
		{[]string{"doctor", "--no-such-flag"}, "(see mcp-bridge doctor --help)"},
		{[]string{"list", "-x"}, "(see mcp-bridge list --help)"},
		{[]string{"add", "x", "--transport", "ws", "--url", "https://h/mcp"}, "(see mcp-bridge add --help)"},
		{[]string{"doctr"}, `unknown command "doctr"; did you mean "doctor"? (see mcp-bridge --help)`},
	} {
		r := e.run(c.args...)
		expectCode(t, r, 2, strings.Join(c.args, " "))
		if got := strings.TrimSpace(r.stderr); strings.Count(got, "\n") != 0 || !strings.Contains(got, c.want) {
			t.Errorf("%v: want one line with %q, got:\n%s", c.args, c.want, r.stderr)
		}
	}
	// --help still lists every flag.
	r := e.run("add", "--help")
	expectCode(t, r, 0, "add --help")
	for _, flag := range []string{"-env", "-header", "-scope", "-transport"} {
		if !strings.Contains(r.stderr, flag) {
			t.Errorf("add --help lacks %s:\n%s", flag, r.stderr)
		}
	}
}
