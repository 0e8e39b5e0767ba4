package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestCheck: the two faults are found wherever they are, and never in valid JSON (an
// escaped control character, brackets and quotes inside strings, the deepest nesting
// the decoders read).
func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Fault
		char byte
	}{
		{"valid", `{"a":[1,{"b":"c"}],"d":null}`, None, 0},
		{"escaped NUL", `{"a":"x\u0000y"}`, None, 0},
		{"brackets and escaped quotes in a string", `{"a":"[[{\"]]}\\"}`, None, 0},
		{"whitespace between tokens", "{\t\"a\" :\r 1 }", None, 0},
		{"deepest nesting read", nested(MaxDepth), None, 0},
		{"raw NUL in a string", "{\"a\":\"x\x00y\"}", ControlChar, 0},
		{"raw tab in a string", "{\"a\":\"x\ty\"}", ControlChar, '\t'},
		{"raw control between tokens", "{\"a\":\x01 1}", ControlChar, 1},
		{"one level too deep", nested(MaxDepth + 1), TooDeep, 0},
		{"far too deep", `{"a":` + nested(100000) + `}`, TooDeep, 0},
		{"a bracket in a string after an escaped backslash", `{"a":"\\"` + strings.Repeat("]", 3) + `}`, None, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Check([]byte(tc.in)); got != tc.want {
				t.Fatalf("Check = %v, want %v", got, tc.want)
			}
			// Piece by piece, split at every offset of a short text, gives the same.
			if len(tc.in) < 100 {
				for cut := 0; cut <= len(tc.in); cut++ {
					var s Scanner
					s.Write([]byte(tc.in[:cut]))
					s.Write([]byte(tc.in[cut:]))
					if s.Fault() != tc.want || (tc.want == ControlChar && s.Char() != tc.char) {
						t.Fatalf("split at %d: %v (0x%02x), want %v (0x%02x)", cut, s.Fault(), s.Char(), tc.want, tc.char)
					}
				}
			}
			if tc.want != None && json.Valid([]byte(tc.in)) {
				t.Fatalf("a faulted text is valid JSON: %q", tc.in)
			}
		})
	}
}

// FuzzCheck: a text Check faults is never valid JSON, and scanning it in two pieces
// finds what scanning it whole finds.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, "{\"a\":\"\x00\"}", `"\\\""`, nested(20), `{"a":"[\"{"}`} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, in string, cut int) {
		got := Check([]byte(in))
		if got != None && json.Valid([]byte(in)) {
			t.Fatalf("Check = %v for valid JSON %q", got, in)
		}
		if cut < 0 || cut > len(in) {
			return
		}
		var s Scanner
		s.Write([]byte(in[:cut]))
		s.Write([]byte(in[cut:]))
		if s.Fault() != got {
			t.Fatalf("in two pieces at %d: %v, whole: %v", cut, s.Fault(), got)
		}
	})
}
