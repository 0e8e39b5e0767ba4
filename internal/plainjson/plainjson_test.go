package plainjson

import "testing"

func TestMarshalKeepsAngleBrackets(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{map[string]any{"q": "<message>"}, `{"q":"<message>"}`},
		{"a & b", `"a & b"`},
		{[]int{1, 2}, `[1,2]`},
		{"line\nnext", `"line\nnext"`},
	} {
		got, err := Marshal(c.in)
		if err != nil || string(got) != c.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}
