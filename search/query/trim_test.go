package query

import (
	"strings"
	"testing"
)

func TestByteSetTrimsAsStringsTrim(t *testing.T) {
	t.Parallel()
	words := []string{"", "a", "(", "((", "notes.md", "\"config.yaml\",", "(9am)", "14:30;", "v1.2.0.", "#ops!",
		"«café»", "naïve.", "`x`", "…", "?!", "a.b.", ":x:", "[db-1]", "é(", "(é"}
	sets := []struct {
		chars string
		set   *byteSet
	}{{wordEdgeChars, &wordEdges}, {identEdgeChars, &identEdges}, {valueEdgeChars, &valueEdges}}
	for _, s := range sets {
		for _, w := range words {
			if got, want := s.set.trim(w), strings.Trim(w, s.chars); got != want {
				t.Errorf("trim(%q) with %q = %q, strings.Trim gives %q", w, s.chars, got, want)
			}
		}
	}
}
