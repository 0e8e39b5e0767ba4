package commands

import (
	"reflect"
	"testing"
)

func TestSplitQuoted(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"gh review pr=12", []string{"gh", "review", "pr=12"}, false},
		{`s p city="New York"  state='N Y'`, []string{"s", "p", "city=New York", "state=N Y"}, false},
		{`s p note=""`, []string{"s", "p", "note="}, false},
		{`s p city="New`, nil, true},
		{"", nil, false},
	} {
		got, err := SplitQuoted(tt.in)
		if (err != nil) != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitQuoted(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}
