package query

import (
	"testing"
)

func TestDenominalLead(t *testing.T) {
	tests := []struct{ q, want string }{
		{"comment on the linear issue", "comment"},
		{"please label the issue as a bug", "label"},
		{"can you tag the release", "tag"},
		{"message the team about the outage", "message"},
		{"email Bob the report", "email"},
		{"let's bookmark this", "bookmark"},
		{"I'd like to note that the build failed", "note"},
		{"screenshot the page", "screenshot"}, // the index decides it means no making
		// A noun phrase: the word after the noun is no object.
		{"issue comments on PR 5", ""},
		{"comment", ""},
		// Verbs the ranker knows, questions and noun phrases.
		{"create a comment on the issue", ""},
		{"list the issues", ""},
		{"remember that I like tea", ""},
		{"what is this", ""},
		{"the comments on it", ""},
	}
	for _, tt := range tests {
		s := new(Analyser)
		s.Analyse(tt.q, map[string]int32{}, nil)
		if s.Lead() != tt.want {
			t.Errorf("Analyse(%q) lead = %q, want %q", tt.q, s.Lead(), tt.want)
		}
	}
}
