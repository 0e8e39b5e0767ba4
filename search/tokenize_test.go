package search

import (
	"testing"
)

func TestWordShape(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"notes.md": "file", "config.yaml": "file", ".gitlab-ci.yml": "file",
		"example.com": "url", "https://x.dev/a": "url", "www.foo.org": "url",
		"fmt.Errorf": "", "v1.2.0": "", "plain": "", "end.": "", "\"main.go\"": "file",
	}
	for in, want := range tests {
		if got := wordShape(in); got != want {
			t.Errorf("wordShape(%q) = %q, want %q", in, got, want)
		}
	}
}
