package jsonscan

import (
	"encoding/json"
	"testing"
)

// TestUnquoteIsEncodingJSON: Unquote decodes every JSON string as encoding/json does and
// refuses what it refuses, whichever way it takes (plain, short escapes, \u escapes,
// invalid UTF-8).
func TestUnquoteIsEncodingJSON(t *testing.T) {
	for _, s := range unquoteCases {
		checkUnquote(t, []byte(s))
	}
}

var unquoteCases = []string{
	`""`, `"plain"`, `"line\nbreak"`, `"tab\tquote\"slash\/back\\"`, `"\b\f\r"`,
	`"\u00e9t\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"mixed \n and \u2028"`,
	"\"\u65e5\u672c \\n \U0001F600\"", "\"bad \xff utf8 \\n\"", "\"bad \xff\"",
	`"\x"`, `"\"`, `"a\"`, "\"ctrl \x01\"", "\"ctrl \x01 \\n\"", `"\u12"`, `"unterminated`, `x`, ``, `"`,
	`"a"b"`, `"" `, ` ""`,
}

func checkUnquote(t *testing.T, b []byte) {
	t.Helper()
	var want string
	wantErr := json.Unmarshal(b, &want)
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		wantErr = errNotString // Unquote reads a string alone, no space around it
	}
	got, ok := Unquote(b)
	if ok != (wantErr == nil) || ok && got != want {
		t.Fatalf("Unquote(%q) = %q, %v; encoding/json: %q, %v", b, got, ok, want, wantErr)
	}
}

var errNotString = json.Unmarshal([]byte("x"), new(string))

// FuzzUnquote: Unquote agrees with encoding/json on any text.
func FuzzUnquote(f *testing.F) {
	for _, s := range unquoteCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkUnquote(t, b)
	})
}
