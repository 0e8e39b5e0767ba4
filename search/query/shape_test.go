package query

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

// TestFullWidthQueryShape checks that a query is normalised before its
// words' shapes are read: a full-width file name is a file.
func TestFullWidthQueryShape(t *testing.T) {
	t.Parallel()
	terms, _ := analyseQuery("ｎｏｔｅｓ．ｍｄ", map[string]int32{})
	for _, qt := range terms {
		if qt.Text == "file" {
			return
		}
	}
	t.Errorf("analyseQuery(ｎｏｔｅｓ．ｍｄ) = %v, want the term file", terms)
}

// TestSpeaksOfTools checks that the cheap test before the token pass finds
// a tool-talk word in any case.
func TestSpeaksOfTools(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"which tool accepts a path":      true,
		"Which TOOL ACCEPTS a path":      true,
		"which tool AcCePtS a parameter": true,
		"accept a pending invitation":    false,
		"which tool reads a path":        false,
		"":                               false,
	}
	for in, want := range tests {
		if got := speaksOfTools(in, make([]byte, 64)); got != want {
			t.Errorf("speaksOfTools(%q) = %v, want %v", in, got, want)
		}
	}
}
