package config

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

const newEntry = `{"type": "http", "url": "https://example.test/mcp", "headers": {"X-Api-Key": "${NEW_KEY}"}}`

// writeFile writes content to dir/mcp.json and returns the path.
func writeFile(t *testing.T, dir, content string) string {
	t.Helper()
	p := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// dirEntries lists the names in dir, sorted.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// loadFile loads path as the global file of a zot home.
func loadFile(t *testing.T, path string, env map[string]string) *Config {
	t.Helper()
	if filepath.Base(path) != "mcp.json" {
		t.Fatalf("loadFile needs an mcp.json, got %s", path)
	}
	c := Load(Options{ZotHome: filepath.Dir(path), LookupEnv: fakeEnv(env)})
	for _, f := range c.Files {
		if f.Err != "" {
			t.Fatalf("%s does not load: %s", f.Path, f.Err)
		}
	}
	return c
}

// topLevel decodes the standardized file into its top-level members.
func topLevel(t *testing.T, c string) map[string]json.RawMessage {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(mustStandardize(t, c), &top); err != nil {
		t.Fatal(err)
	}
	return top
}

func mustStandardize(t *testing.T, c string) []byte {
	t.Helper()
	std, err := hujson.Standardize([]byte(c))
	if err != nil {
		t.Fatalf("result is not valid JSONC: %v\n%s", err, c)
	}
	return std
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

// serverEntry returns the standardized entry of name under key.
func serverEntry(t *testing.T, content, key, name string) json.RawMessage {
	t.Helper()
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(topLevel(t, content)[key], &servers); err != nil {
		t.Fatalf("%s: %v\n%s", key, err, content)
	}
	e, ok := servers[name]
	if !ok {
		t.Fatalf("no %q under %s:\n%s", name, key, content)
	}
	return e
}

func TestAddServerKeepsCommentsAndUnknownKeys(t *testing.T) {
	// Comments everywhere, unknown keys at the top and inside entries, trailing commas.
	const before = "// head comment\n" +
		"{\n" +
		"  /* block before servers */\n" +
		"  \"mcpServers\": {\n" +
		"    // about a\n" +
		"    \"a\": {\n" +
		"      \"command\": \"npx\", // inline\n" +
		"      \"args\": [\"-y\", \"pkg\",],\n" +
		"      \"x-custom\": {\"keep\": true},\n" +
		"    }, // after a\n"
	const after = "  },\n" +
		"  \"toolExposure\": \"proxy\", /* trailing block */\n" +
		"  \"unknownTop\": [1, 2, 3,],\n" +
		"  // last words\n" +
		"}\n" +
		"// tail comment\n"
	path := writeFile(t, t.TempDir(), before+after)

	replaced, err := AddServer(context.Background(), path, "new", json.RawMessage(newEntry), false)
	if err != nil || replaced {
		t.Fatalf("AddServer = %v, %v", replaced, err)
	}
	got := readString(t, path)
	// Everything before and after the inserted member is byte-identical.
	if !strings.HasPrefix(got, before) || !strings.HasSuffix(got, after) || len(got) <= len(before)+len(after) {
		t.Fatalf("untouched parts changed:\n%s", got)
	}
	inserted := got[len(before) : len(got)-len(after)]
	if !strings.HasPrefix(inserted, "    \"new\": {\n") || !strings.HasSuffix(inserted, "\n    }\n") {
		t.Errorf("inserted member not laid out like its siblings:\n%q", inserted)
	}
	if e := serverEntry(t, got, "mcpServers", "new"); !sameJSON(t, e, []byte(newEntry)) {
		t.Errorf("new entry = %s, want %s", e, newEntry)
	}
	c := loadFile(t, path, map[string]string{"NEW_KEY": "k"})
	if got := names(c); !reflect.DeepEqual(got, []string{"a", "new"}) {
		t.Fatalf("servers = %v", got)
	}
	if c.ToolExposure != "proxy" {
		t.Errorf("toolExposure lost: %q", c.ToolExposure)
	}
	if s := mustServer(t, c, "new"); !s.Usable() || s.Headers["X-Api-Key"] != "k" || s.Transport != TransportStreamableHTTP {
		t.Errorf("new server = %+v", s)
	}
}

func TestAddServerLastMemberWithoutComma(t *testing.T) {
	const head = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}"
	const comment = " // about a\n"
	const tail = "  }\n}\n"
	path := writeFile(t, t.TempDir(), head+comment+tail)
	if _, err := AddServer(context.Background(), path, "b", json.RawMessage(`{"command":"y"}`), false); err != nil {
		t.Fatal(err)
	}
	got := readString(t, path)
	// The only change before the new member is the separating comma.
	if !strings.HasPrefix(got, head+","+comment) || !strings.HasSuffix(got, tail) {
		t.Fatalf("untouched parts changed:\n%s", got)
	}
	c := loadFile(t, path, nil)
	if got := names(c); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("servers = %v", got)
	}
}

func TestAddServerTabIndentation(t *testing.T) {
	path := writeFile(t, t.TempDir(), "{\n\t\"mcpServers\": {\n\t\t\"a\": {\"command\": \"x\"},\n\t}\n}\n")
	if _, err := AddServer(context.Background(), path, "b", json.RawMessage(`{"command":"y","args":["1"]}`), false); err != nil {
		t.Fatal(err)
	}
	got := readString(t, path)
	want := "{\n\t\"mcpServers\": {\n\t\t\"a\": {\"command\": \"x\"},\n" +
		"\t\t\"b\": {\n\t\t\t\"command\": \"y\",\n\t\t\t\"args\": [\n\t\t\t\t\"1\"\n\t\t\t]\n\t\t}\n\t}\n}\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestAddServerExistingName(t *testing.T) {
	const orig = "{\n  // keep me\n  \"mcpServers\": {\n    \"a\": {\"command\": \"old\"}, // old a\n    \"z\": {\"command\": \"zz\"}\n  },\n}\n"
	path := writeFile(t, t.TempDir(), orig)

	_, err := AddServer(context.Background(), path, "a", json.RawMessage(`{"command":"new"}`), false)
	if err == nil {
		t.Fatal("existing name accepted without force")
	}
	for _, want := range []string{`"a"`, path, "--force"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if got := readString(t, path); got != orig {
		t.Fatalf("refused add modified the file:\n%s", got)
	}

	replaced, err := AddServer(context.Background(), path, "a", json.RawMessage(`{"command":"new"}`), true)
	if err != nil || !replaced {
		t.Fatalf("force: replaced=%v err=%v", replaced, err)
	}
	got := readString(t, path)
	if strings.Contains(got, "old\"") || strings.Count(got, `"a"`) != 1 {
		t.Errorf("old entry still there:\n%s", got)
	}
	for _, keep := range []string{"// keep me", "// old a", `"z": {"command": "zz"}`} {
		if !strings.Contains(got, keep) {
			t.Errorf("force lost %q:\n%s", keep, got)
		}
	}
	c := loadFile(t, path, nil)
	if got := names(c); !reflect.DeepEqual(got, []string{"a", "z"}) {
		t.Fatalf("servers = %v", got)
	}
	if s := mustServer(t, c, "a"); s.Command != "new" {
		t.Errorf("a.command = %q", s.Command)
	}
}

func TestAddServerCreatesFileAndDirs(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "home", "proj", ".zot", "mcp.json")
	replaced, err := AddServer(context.Background(), path, "n", json.RawMessage(newEntry), false)
	if err != nil || replaced {
		t.Fatalf("AddServer = %v, %v", replaced, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := st.Mode().Perm(); m != 0o600 {
		t.Errorf("file mode %o, want 600", m)
	}
	for _, d := range []string{"home", "home/proj", "home/proj/.zot"} {
		st, err := os.Stat(filepath.Join(root, d))
		if err != nil {
			t.Fatal(err)
		}
		if m := st.Mode().Perm(); m != 0o700 {
			t.Errorf("created dir %s mode %o, want 700", d, m)
		}
	}
	c := loadFile(t, path, map[string]string{"NEW_KEY": "v"})
	if s := mustServer(t, c, "n"); !s.Usable() {
		t.Errorf("created entry not usable: %s", s.Err)
	}
	// No temporary files left next to it.
	if got := dirEntries(t, filepath.Dir(path)); !reflect.DeepEqual(got, []string{"mcp.json", "mcp.json.lock"}) {
		t.Errorf("directory holds %v, want only mcp.json and its lock", got)
	}
}

func TestAddServerExistingFileBecomesPrivate(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, dir, `{"mcpServers": {}}`)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := AddServer(context.Background(), path, "n", json.RawMessage(`{"command":"x"}`), false); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if m := st.Mode().Perm(); m != 0o600 {
		t.Errorf("file mode %o, want 600", m)
	}
	st, _ = os.Stat(dir)
	if m := st.Mode().Perm(); m != 0o755 {
		t.Errorf("existing dir mode changed to %o", m)
	}
}

func TestAddServerEmptyFile(t *testing.T) {
	for _, content := range []string{"", "  \n\t"} {
		path := writeFile(t, t.TempDir(), content)
		if _, err := AddServer(context.Background(), path, "n", json.RawMessage(`{"command":"x"}`), false); err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		if got := names(loadFile(t, path, nil)); !reflect.DeepEqual(got, []string{"n"}) {
			t.Errorf("%q: servers = %v", content, got)
		}
	}
}

func TestAddServerBrokenFileUntouched(t *testing.T) {
	cases := map[string]string{
		"syntax":          "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"\n  }\n",
		"array top level": "[1, 2]",
		"servers not obj": `{"mcpServers": [1]}`,
		"string top":      `"just a string"`,
		"unquoted secret": `{"mcpServers": {"a": {"url": "https://x", "headers": {"K": sk-SECRET123}}}}`,
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), content)
			_, err := AddServer(context.Background(), path, "n", json.RawMessage(`{"command":"x"}`), false)
			if err == nil {
				t.Fatal("broken file accepted")
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error echoes file content: %v", err)
			}
			if got := readString(t, path); got != content {
				t.Errorf("broken file modified:\n%s", got)
			}
			if got := dirEntries(t, filepath.Dir(path)); !reflect.DeepEqual(got, []string{"mcp.json", "mcp.json.lock"}) {
				t.Errorf("directory holds %v, want only mcp.json and its lock", got)
			}
		})
	}
}

func TestAddServerVSCodeServersKey(t *testing.T) {
	const orig = "{\n  \"inputs\": [],\n  \"servers\": {\n    \"a\": {\"type\": \"stdio\", \"command\": \"x\"}\n  }\n}\n"
	path := writeFile(t, t.TempDir(), orig)
	if _, err := AddServer(context.Background(), path, "n", json.RawMessage(`{"command":"y"}`), false); err != nil {
		t.Fatal(err)
	}
	got := readString(t, path)
	top := topLevel(t, got)
	if _, ok := top["mcpServers"]; ok {
		t.Fatalf("mcpServers added next to servers:\n%s", got)
	}
	serverEntry(t, got, "servers", "n")
	if _, ok := top["inputs"]; !ok {
		t.Errorf("unknown key inputs lost")
	}
	if got := names(loadFile(t, path, nil)); !reflect.DeepEqual(got, []string{"a", "n"}) {
		t.Errorf("servers = %v", got)
	}

	// mcpServers wins when both exist (as in Load).
	path = writeFile(t, t.TempDir(), `{"servers": {"v": {"command": "x"}}, "mcpServers": {}}`)
	if _, err := AddServer(context.Background(), path, "n", json.RawMessage(`{"command":"y"}`), false); err != nil {
		t.Fatal(err)
	}
	serverEntry(t, readString(t, path), "mcpServers", "n")

	// Neither key: mcpServers is created, other keys kept.
	path = writeFile(t, t.TempDir(), "{\n  // only settings\n  \"toolExposure\": \"direct\"\n}\n")
	if _, err := AddServer(context.Background(), path, "n", json.RawMessage(`{"command":"y"}`), false); err != nil {
		t.Fatal(err)
	}
	got = readString(t, path)
	serverEntry(t, got, "mcpServers", "n")
	if !strings.Contains(got, "// only settings") {
		t.Errorf("comment lost:\n%s", got)
	}
	if c := loadFile(t, path, nil); c.ToolExposure != "direct" || len(c.Servers) != 1 {
		t.Errorf("toolExposure=%q servers=%v", c.ToolExposure, names(c))
	}
}

// TestAddServerRefusesBadNames: AddServer itself applies the one name rule, so no caller
// can write a name that loading would refuse (before, "a/b" and "x~y" were written).
func TestAddServerRefusesBadNames(t *testing.T) {
	const content = `{"mcpServers": {"search": {"command": "x"}}}`
	path := writeFile(t, t.TempDir(), content)
	for _, n := range []string{"a/b", "x~y", "~1", "../../evil", "help", "-rf", strings.Repeat("n", 65), "s\u0435arch", "Search", "ｓｅａｒｃｈ"} {
		if _, err := AddServer(context.Background(), path, n, json.RawMessage(`{"command":"y"}`), false); err == nil {
			t.Errorf("%q accepted", n)
		}
	}
	if got := readString(t, path); got != content {
		t.Errorf("file changed:\n%s", got)
	}
}

func TestAddServerBOMAndNullServers(t *testing.T) {
	// Load accepts both, so AddServer must too.
	path := writeFile(t, t.TempDir(), "\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}\n")
	if _, err := AddServer(context.Background(), path, "n", json.RawMessage(`{"command":"y"}`), false); err != nil {
		t.Fatalf("BOM: %v", err)
	}
	if got := readString(t, path); !strings.HasPrefix(got, "\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"x\"},") {
		t.Errorf("BOM file rewritten:\n%q", got)
	}
	if got := names(loadFile(t, path, nil)); !reflect.DeepEqual(got, []string{"a", "n"}) {
		t.Errorf("servers = %v", got)
	}

	path = writeFile(t, t.TempDir(), "{\n  // none yet\n  \"mcpServers\": null\n}\n")
	if _, err := AddServer(context.Background(), path, "n", json.RawMessage(`{"command":"y"}`), false); err != nil {
		t.Fatalf("null: %v", err)
	}
	got := readString(t, path)
	if !strings.HasPrefix(got, "{\n  // none yet\n  \"mcpServers\": ") {
		t.Errorf("comment lost:\n%s", got)
	}
	if got := names(loadFile(t, path, nil)); !reflect.DeepEqual(got, []string{"n"}) {
		t.Errorf("servers = %v", got)
	}
}

func TestAddServerBadArguments(t *testing.T) {
	path := writeFile(t, t.TempDir(), `{"mcpServers": {}}`)
	if _, err := AddServer(context.Background(), path, " ", json.RawMessage(`{"command":"y"}`), false); err == nil {
		t.Error("blank name accepted")
	}
	for _, e := range []string{`[1]`, `"x"`, `null`, `{`} {
		if _, err := AddServer(context.Background(), path, "n", json.RawMessage(e), false); err == nil {
			t.Errorf("entry %s accepted", e)
		}
	}
	if got := readString(t, path); got != `{"mcpServers": {}}` {
		t.Errorf("file modified: %s", got)
	}
}
