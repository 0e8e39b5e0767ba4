package config

import (
	"strings"
	"testing"
)

// TestReservedServerNames: a server named like a /mcp word (help, all, status, -h, ...)
// could never be shown or addressed (`/mcp status` shows the status, `/mcp refresh all`
// means every server), so it is rejected with a problem that says how to fix it. Before,
// such names were accepted and silently shadowed.
func TestReservedServerNames(t *testing.T) {
	for _, name := range []string{"help", "all", "status", "-h", "--help", "Start", "refresh", "login", "logout", "setup", "stop", "restart", "trust", "untrust", "prompts", "prompt", "answer", "accept", "decline", "cancel", "--global"} {
		t.Run(name, func(t *testing.T) {
			c, _ := setup(t, `{"mcpServers": {"`+name+`": {"command": "x"}, "fine": {"command": "y"}}}`, "", nil)
			s := mustServer(t, c, name)
			if s.Usable() || !strings.Contains(s.Err, "rename the server") {
				t.Errorf("reserved name accepted: usable=%v err=%q", s.Usable(), s.Err)
			}
			if len(c.Problems) != 1 || c.Problems[0].Server != name {
				t.Errorf("problems = %v", problemStrings(c))
			}
			if !mustServer(t, c, "fine").Usable() {
				t.Error("a good server next to it was rejected")
			}
		})
	}
	for _, name := range []string{"helper", "all-tools", "statusboard", "my-help", "h"} {
		if ReservedServerName(name) {
			t.Errorf("%q is reserved", name)
		}
	}
}

// TestServerNameRule: the one rule for names, with the cases the issue found on the
// import and load paths, and the look-alike and invisible letters a name could hide.
func TestServerNameRule(t *testing.T) {
	for _, tc := range []struct {
		name, want string // want: "" accepted, else a part of the error
	}{
		{"search", ""},
		{"GitHub_2-x", ""},
		{"поиск", ""}, // one script, not Latin: fine
		{"検索ツール", ""}, // Han and Katakana: Japanese
		{"검색", ""},    // Hangul
		{"émoji", ""}, // a precomposed Latin letter
		{"s\u0435arch", "mixes Latin and Cyrillic letters ('е' (U+0435) is Cyrillic)"},
		{"p\u0430yp\u0430l", "mixes Latin and Cyrillic"},
		{"\u03bfpen", "mixes Greek and Latin"}, // Greek omicron first
		{"abc検索", "mixes Latin and Han"},
		{"ｓｅａｒｃｈ", `write it as "search"`}, // full-width
		{"ﬁle", `write it as "file"`},      // ligature
		{"e\u0301moji", "U+0301"},          // a combining accent is not a letter
		{"a\u3164b", "U+3164"},             // Hangul filler: a letter that shows nothing
		{"a\u200bb", "U+200B"},             // zero-width space
		{"../../evil", "'.'"},
		{"a/b~1c", "'/'"},
		{strings.Repeat("x", 300), "300 bytes long"},
		{strings.Repeat("é", 33), "66 bytes long"},
		{"help", "subcommand word"},
		{"-rf", "subcommand word"},
		{"٣", "U+0663"}, // digits are ASCII
	} {
		err := CheckServerName(tc.name)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckServerName(%q) = %v, want it accepted", tc.name, err)
		case tc.want != "" && err == nil:
			t.Errorf("CheckServerName(%q) accepted, want %q", tc.name, tc.want)
		case err != nil && !strings.Contains(err.Error(), tc.want):
			t.Errorf("CheckServerName(%q) = %v, want it to say %q", tc.name, err, tc.want)
		}
	}
}

// TestConfusableNames: a name that looks like another server's (the same skeleton) is
// refused beside it; names that merely share letters are not.
func TestConfusableNames(t *testing.T) {
	others := []string{"search", "github", "ape", "tool1", "my-db", "llm", "mail"}
	for _, tc := range []struct {
		name, like string // like: "" accepted
	}{
		{"search", ""}, // the same name: adding it replaces (or is "already exists")
		{"Search", "search"},
		{"GITHUB", "github"},
		{"\u0430\u0440\u0435", "ape"}, // all Cyrillic: one script, but it reads "ape"
		{"\u0391\u03a1\u0395", "ape"}, // Greek capitals
		{"toolI", "tool1"},            // I, l and 1
		{"tooll", "tool1"},            // I, l and 1
		{"my-db2", ""},
		{"my_db", ""}, // '-' and '_' stay apart
		{"searches", ""},
		{"githubs", ""},
		{"Ilm", "llm"},   // a capital I is an l
		{"ILM", "llm"},   // and case does not matter
		{"mall", ""},     // i and l stay apart beside "mail"
		{"mai1", "mail"}, // 1 and l do not
	} {
		err := CheckNewServerName(tc.name, others)
		switch {
		case tc.like == "" && err != nil:
			t.Errorf("%q refused: %v", tc.name, err)
		case tc.like != "" && (err == nil || !strings.Contains(err.Error(), `looks like the server "`+tc.like+`"`)):
			t.Errorf("%q: %v, want it to look like %q", tc.name, err, tc.like)
		}
	}
}

// TestFixServerName: import renames what the rule refuses into a name it accepts,
// distinct from (and not looking like) the names already there.
func TestFixServerName(t *testing.T) {
	taken := []string{"search", "github"}
	for _, tc := range []struct{ in, want string }{
		{"../../evil", "evil"},
		{"a/b~1c", "a-b-1c"},
		{"索ツ냼", "索ツ"}, // Han, Kana and Hangul: each goes with Han, the three together are no one writing
		{"help", "help-server"},
		{"-rf", "rf"},
		{"", "server"},
		{"...", "server"},
		{"my server (beta)", "my-server-beta"},
		{"s\u0435arch", "search-2"}, // transliterated, then kept apart from "search"
		{"GitHub", "GitHub-2"},
		{"ｓｅａｒｃｈ", "search-2"},
		{"поиск.v2", "поиск-2"}, // the Latin v in a Cyrillic name goes
		{"p\u0430yp\u0430l", "paypal"},
		{strings.Repeat("x", 300), strings.Repeat("x", MaxServerNameLen)},
	} {
		got := FixServerName(tc.in, taken)
		if got != tc.want {
			t.Errorf("FixServerName(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if err := CheckNewServerName(got, taken); err != nil {
			t.Errorf("FixServerName(%q) = %q, which the rule refuses: %v", tc.in, got, err)
		}
	}
	// A long name that is taken still fits in the limit with its suffix.
	long := strings.Repeat("y", MaxServerNameLen)
	if got := FixServerName(long, []string{long}); len(got) > MaxServerNameLen || got == long || CheckNewServerName(got, []string{long}) != nil {
		t.Errorf("FixServerName(64 y, taken) = %q", got)
	}
}

// TestLoadAppliesTheNameRule: loading refuses (with a problem saying how to rename) every
// name the rule refuses, and a name that looks like another server's; before, it accepted
// "../../evil", "a/b~1c", a 300-character name and a Cyrillic "sеarch" beside "search".
func TestLoadAppliesTheNameRule(t *testing.T) {
	long := strings.Repeat("x", 300)
	global := `{"mcpServers": {"search": {"command": "a"}, "s\u0435arch": {"command": "b"}, "../../evil": {"command": "c"},
		"a/b~1c": {"command": "d"}, "` + long + `": {"command": "e"}, "ape": {"command": "f"}, "\u0430\u0440\u0435": {"command": "g"},
		"GitHub": {"command": "h"}}}`
	project := `{"mcpServers": {"github": {"command": "i"}, "Search": {"command": "j"}}}`
	c, f := setup(t, global, project, nil)
	for _, tc := range []struct{ name, want string }{
		{"search", ""},
		{"ape", ""},
		{"GitHub", ""},
		{"s\u0435arch", "mixes Latin and Cyrillic"},
		{"../../evil", `rename the server, e.g. to "evil"`},
		{"a/b~1c", `rename the server, e.g. to "a-b-1c"`},
		{long, "300 bytes long"},
		{"\u0430\u0440\u0435", `looks like the server "ape" (` + f.global() + `)`},
		{"github", `looks like the server "GitHub"`}, // the global file's name is kept
		{"Search", `looks like the server "search"`},
	} {
		s := mustServer(t, c, tc.name)
		switch {
		case tc.want == "" && !s.Usable():
			t.Errorf("%q not usable: %s", tc.name, s.Err)
		case tc.want != "" && (s.Usable() || !strings.Contains(s.Err, tc.want)):
			t.Errorf("%q: usable=%v err=%q, want %q", tc.name, s.Usable(), s.Err, tc.want)
		}
	}
}
