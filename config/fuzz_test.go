package config

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
		// Refs reads references as expansion does: the variables it names are the
		// ones expansion looks up, in order.
		var looked, named []string
		(&vars{lookup: func(n string) (string, bool) { looked = append(looked, n); return lookup(n) }, projectDir: "/p", home: "/h"}).expand(s)
		for _, r := range Refs(s) {
			if r.Var != "" {
				named = append(named, r.Var)
			}
		}
		if !slices.Equal(looked, named) {
			t.Fatalf("%q: Refs names %v, expansion looks up %v", s, named, looked)
		}
	})
}

// FuzzName: the one name rule has a real oracle. An accepted name is at most
// MaxServerNameLen bytes of letters, ASCII digits, '-' and '_', is not reserved, is in
// NFKC, and its letters are of one script (Han with kana, Hangul or Bopomofo counting
// as one writing), computed here from the Unicode script tables independently of the
// rule's own search; the verdict is the same every time. FixServerName always gives a
// name the rule accepts beside the names it had to avoid, and none of them.
func FuzzName(f *testing.F) {
	for _, s := range []string{"search", "s\u0435arch", "../../evil", "a/b~1c", strings.Repeat("x", 300), "help", "-rf",
		"поиск", "検索ツール", "ｓｅａｒｃｈ", "a\u3164b", "e\u0301", "GitHub", "\u0430\u0440\u0435", "ﬁle", "ǅemo", "İstanbul", "ß"} {
		f.Add(s, "search")
	}
	f.Fuzz(func(t *testing.T, name, other string) {
		err := CheckServerName(name)
		if again := CheckServerName(name); (err == nil) != (again == nil) || err != nil && err.Error() != again.Error() {
			t.Fatalf("CheckServerName(%q) is not deterministic: %v, then %v", name, err, again)
		}
		if err == nil {
			nameOracle(t, name)
		}
		taken := []string{other}
		if CheckServerName(other) == nil {
			taken = append(taken, name)
		}
		fixed := FixServerName(name, taken)
		if err := CheckNewServerName(fixed, taken); err != nil {
			t.Fatalf("FixServerName(%q, %q) = %q, refused: %v", name, taken, fixed, err)
		}
		nameOracle(t, fixed)
		if slices.Contains(taken, fixed) {
			t.Fatalf("FixServerName(%q, %q) = %q, which is taken", name, taken, fixed)
		}
		if err == nil && !slices.Contains(taken, name) {
			if _, look := ConfusableWith(name, taken); !look && FixServerName(name, taken) != name {
				t.Fatalf("FixServerName changed the acceptable free name %q to %q", name, fixed)
			}
		}
	})
}

// nameOracle fails t unless name is one the rule may accept.
func nameOracle(t *testing.T, name string) {
	t.Helper()
	if name == "" || len(name) > MaxServerNameLen || !utf8.ValidString(name) {
		t.Fatalf("accepted %q: empty, longer than %d bytes or not UTF-8", name, MaxServerNameLen)
	}
	if ReservedServerName(name) || strings.HasPrefix(name, "-") {
		t.Fatalf("accepted the reserved %q", name)
	}
	if norm.NFKC.String(name) != name {
		t.Fatalf("accepted %q, which is not NFKC", name)
	}
	scripts := map[string]bool{}
	for _, r := range name {
		ok := r == '-' || r == '_' || r >= '0' && r <= '9' || unicode.IsLetter(r) && !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
		if !ok || r >= utf8.RuneSelf && unicode.IsDigit(r) {
			t.Fatalf("accepted %q with the character %U", name, r)
		}
		if !unicode.IsLetter(r) {
			continue
		}
		for s, table := range unicode.Scripts {
			if s != "Common" && s != "Inherited" && unicode.Is(table, r) {
				scripts[s] = true
			}
		}
	}
	if len(scripts) < 2 {
		return
	}
	for _, writing := range [][]string{{"Han", "Hiragana", "Katakana"}, {"Han", "Hangul"}, {"Han", "Bopomofo"}} {
		in := 0
		for _, s := range writing {
			if scripts[s] {
				in++
			}
		}
		if in == len(scripts) {
			return
		}
	}
	t.Fatalf("accepted %q, whose letters are of the scripts %v", name, slices.Sorted(maps.Keys(scripts)))
}
