package token

import (
	"reflect"
	"testing"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"snake_case", "create_pull_request", []string{"create", "pull", "request"}},
		{"kebab-case", "resolve-library-id", []string{"resolve", "library", "id"}},
		{"dotted", "fmt.Errorf", []string{"fmt", "errorf"}},
		{"camelCase", "getFileInfo", []string{"get", "file", "info"}},
		{"PascalCase", "ListDirectory", []string{"list", "directory"}},
		{"acronym run", "HTMLParser", []string{"html", "parser"}},
		{"acronym tail", "parseJSON", []string{"parse", "json"}},
		{"plural acronym", "list URLs and IDs", []string{"list", "url", "id"}},
		{"digits stay", "k8s base64 v2", []string{"k8s", "base64", "v2"}},
		{"digit then camel", "v2Api", []string{"v2", "api"}},
		{"mixed separators", "API-get-block_children", []string{"api", "get", "block", "children"}},
		{"stop words dropped", "show me the logs of a pod", []string{"show", "log", "pod"}},
		{"plurals folded", "issues entities branches processes", []string{"issue", "entity", "branch", "process"}},
		{"short plurals", "PRs MRs", []string{"pr", "mr"}},
		{"non-plurals kept", "status news kubernetes redis analysis", []string{"status", "news", "kubernetes", "redis", "analysis"}},
		{"unicode", "Größe ändern", []string{"größe", "ändern"}},
		{"empty", "", nil},
		{"only punctuation", " -_./ ", nil},
		{"only stop words", "the of and", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tokens(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("tokens(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestWholeCamelWords checks that the index sees camelCase words whole too.
func TestWholeCamelWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string // (token, whole) rendered as token or token+"*" when whole
	}{
		{"GitHub", []string{"git", "hub", "github*"}},
		{"getFileInfo now", []string{"get", "file", "info", "getfileinfo*", "now"}},
		{"snake_case", []string{"snake", "case"}},
	}
	for _, tt := range tests {
		var got []string
		ForEachToken(tt.in, nil, func(w []byte, whole bool) {
			s := string(w)
			if whole {
				s += "*"
			}
			got = append(got, s)
		})
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ForEachToken(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSingular(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"issues": "issue", "entities": "entity", "addresses": "address",
		"boxes": "box", "searches": "search", "caches": "cache",
		"files": "file", "status": "status", "class": "class",
		"ids": "id", "its": "its", "yes": "yes", "news": "news", "as": "as",
	}
	for in, want := range tests {
		if got := Singular(in); got != want {
			t.Errorf("Singular(%q) = %q, want %q", in, got, want)
		}
	}
}

// tokens splits s into lower-case alphanumeric words, splitting
// snake_case, kebab-case, dotted.names and camelCase (including acronym
// runs such as "HTMLParser" → "html", "parser", and keeping plural
// acronyms such as "URLs" whole). Letters and digits stay together
// ("k8s", "base64"). Stop words are dropped and plurals folded to their
// singular. It is the analyser used for both documents and queries (the
// index also keeps each camelCase word whole, so "GitHub" is found as
// "github" as well as "git" "hub").
func tokens(s string) []string {
	var out []string
	ForEachToken(s, nil, func(t []byte, whole bool) {
		if !whole {
			out = append(out, string(t))
		}
	})
	return out
}
