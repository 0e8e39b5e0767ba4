package config

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fuzzEnv turns "K=V" lines into a lookup.
func fuzzEnv(env string) func(string) (string, bool) {
	m := map[string]string{}
	for _, line := range strings.Split(env, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return fakeEnv(m)
}

// FuzzLoad: any global and project file content and any environment load without a
// panic into sorted, unique servers, every problem is one line naming its file, and a
// server with an error is not usable.
func FuzzLoad(f *testing.F) {
	f.Add(`{"mcpServers":{"a":{"command":"x","args":["${HOME}"],"env":{"T":"${TOKEN:-d}"}}}}`, `{"mcpServers":{"a":{"url":"https://${HOST}/mcp"}}}`, "HOME=/h\nHOST=example.com")
	f.Add(`// jsonc
{"servers":{"b":{"type":"http","url":"${U}","headers":{"Authorization":"Bearer ${T}"},},},"toolExposure":"proxy"}`, ``, "U=http://127.0.0.1:1/mcp")
	f.Add(`{"mcpServers":{"help":{"command":"x"},"":{"command":"y"},"c":{"command":"${"}}}`, `{"mcpServers":[]}`, "")
	f.Add(`{"mcpServers":{"d":{"command":"x","cwd":"${P:-.}","disabledTools":["t"],"idleTimeout":"5m","enabled":false}}}`, `not json`, "P=/p")
	// One directory per fuzzing process: a process runs one input at a time.
	root := f.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	f.Fuzz(func(t *testing.T, global, project, env string) {
		for path, content := range map[string]string{GlobalPath(home): global, ProjectPath(proj): project} {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		c := Load(Options{ZotHome: home, ProjectDir: proj, LookupEnv: fuzzEnv(env)})
		if !sort.SliceIsSorted(c.Servers, func(i, j int) bool { return c.Servers[i].Name < c.Servers[j].Name }) {
			t.Fatal("servers not sorted")
		}
		for i := 1; i < len(c.Servers); i++ {
			if c.Servers[i].Name == c.Servers[i-1].Name {
				t.Fatalf("server %q twice", c.Servers[i].Name)
			}
		}
		for _, p := range c.Problems {
			if p.File == "" {
				t.Fatalf("problem without a file: %v", p)
			}
		}
		for _, s := range c.Servers {
			if s.Err != "" && s.Usable() {
				t.Fatalf("server %q has an error and is usable", s.Name)
			}
			if ReservedServerName(s.Name) && s.Usable() {
				t.Fatalf("reserved name %q is usable", s.Name)
			}
		}
	})
}

// FuzzExpand: ${VAR} expansion never panics, reports a malformed reference inside the
// input, leaves text without references alone, and does not expand substituted values
// again.
func FuzzExpand(f *testing.F) {
	f.Add("plain", "A=1")
	f.Add("${A}-${B:-def}-${C}", "A=${B}")
	f.Add("${", "")
	f.Add("${1X}", "")
	f.Add("${A:x}", "A=1")
	f.Add("x${A:-${B}}y", "B=2")
	f.Fuzz(func(t *testing.T, s, env string) {
		lookup := fuzzEnv(env)
		r := expand(s, lookup)
		if r.malformed >= len(s) || r.malformed < -1 {
			t.Fatalf("malformed offset %d outside %q", r.malformed, s)
		}
		if !strings.Contains(s, "${") && (r.value != s || r.expanded || r.malformed != -1) {
			t.Fatalf("text without references changed: %q -> %+v", s, r)
		}
		// Values are substituted once: a lookup whose values are all "${X}" leaves
		// exactly the references it resolved, never resolving them again.
		selfRef := expand(s, func(string) (string, bool) { return "${X}", true })
		if selfRef.malformed == -1 && len(selfRef.missing) > 0 {
			t.Fatalf("every name is set, yet %v are missing", selfRef.missing)
		}
	})
}
