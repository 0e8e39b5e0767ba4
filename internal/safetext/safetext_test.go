package safetext

import (
	"encoding/json"
	"testing"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// The cases every test shares: what servers were seen to send, and text that must pass.
var cases = []struct {
	name     string
	in       string
	sanitize string
	escape   string
	hidden   int
}{
	{"plain", "List open issues.\n\tOne per line.", "List open issues.\n\tOne per line.", "List open issues.\n\tOne per line.", 0},
	{"unicode text", "Crée un ticket — 日本語 ✓ 😀", "Crée un ticket — 日本語 ✓ 😀", "Crée un ticket — 日本語 ✓ 😀", 0},
	{"clear screen", "a\x1b[2Jb", "a[2Jb", `a\x1b[2Jb`, 1},
	{"osc 8 link", "\x1b]8;;https://evil\x07click\x1b]8;;\x07", "]8;;https://evilclick]8;;", `\x1b]8;;https://evil\x07click\x1b]8;;\x07`, 4},
	{"osc 52 clipboard", "\x1b]52;c;cm0gLXJmIH4=\x1b\\", "]52;c;cm0gLXJmIH4=\\", `\x1b]52;c;cm0gLXJmIH4=\x1b\`, 2},
	{"bell and nul", "ding\x07\x00", "ding", `ding\x07\x00`, 2},
	{"del", "a\x7fb", "ab", `a\x7fb`, 1},
	{"c1 csi", "a\u009b31mb", "a31mb", `a\u009b31mb`, 1},
	{"crlf", "one\r\ntwo\rthree", "one\ntwo\nthree", `one` + "\n" + `two\x0dthree`, 0},
	{"line separator", "one\u2028two", "one\ntwo", `one\u2028two`, 0},
	{"bidi override", "file\u202egnp.exe", "filegnp.exe", `file\u202egnp.exe`, 1},
	{"bidi isolate", "a\u2066b\u2069c", "abc", `a\u2066b\u2069c`, 2},
	{"zero width", "ig\u200bnore\u200c\ufeff", "ignore", `ig\u200bnore\u200c\ufeff`, 3},
	{"tag characters", "ok\U000E0069\U000E0067\U000E006E", "ok", `ok\U000e0069\U000e0067\U000e006e`, 3},
	{"variation selector supplement", "x\U000E0100y", "xy", `x\U000e0100y`, 1},
	{"soft hyphen", "in\u00advisible", "invisible", `in\u00advisible`, 1},
	{"hangul filler", "a\u3164b", "ab", `a\u3164b`, 1},
	{"emoji joiner is not counted", "👨\u200d👩\ufe0f", "👨👩", `👨\u200d👩\ufe0f`, 0},
	{"invalid utf-8", "a\xffb", "a\ufffdb", `a\xffb`, 0},
	{"replacement char kept", "a\ufffdb", "a\ufffdb", "a\ufffdb", 0},
}

func TestSanitize(t *testing.T) {
	for _, tc := range cases {
		if got := Sanitize(tc.in); got != tc.sanitize {
			t.Errorf("%s: Sanitize(%q) = %q, want %q", tc.name, tc.in, got, tc.sanitize)
		}
		if got := Clean(tc.in); got != (tc.in == tc.sanitize) {
			t.Errorf("%s: Clean(%q) = %v", tc.name, tc.in, got)
		}
		if got := Escape(tc.in); got != tc.escape {
			t.Errorf("%s: Escape(%q) = %q, want %q", tc.name, tc.in, got, tc.escape)
		}
		if got := Hidden(tc.in); got != tc.hidden {
			t.Errorf("%s: Hidden(%q) = %d, want %d", tc.name, tc.in, got, tc.hidden)
		}
	}
}

// TestSanitizeKeepsCleanText: clean text is returned as it is, not copied.
func TestSanitizeKeepsCleanText(t *testing.T) {
	for _, s := range []string{"plain ascii", "non-ascii — é"} {
		if got := Sanitize(s); unsafe.StringData(got) != unsafe.StringData(s) {
			t.Errorf("Sanitize(%q) copied clean text", s)
		}
		if got := Escape(s); got != s {
			t.Errorf("Escape(%q) = %q", s, got)
		}
	}
}

func TestSanitizeJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain kept", `{"type":"object","properties":{"q":{"type":"string","description":"a \"quoted\" \\ word\n"}}}`, ""},
		{"non-ascii clean kept", `{"description":"Crée — ok"}`, ""},
		{"escaped esc", `{"description":"a\u001b[2Jb"}`, `{"description":"a[2Jb"}`},
		{"raw zero width", "{\"description\":\"ig\u200bnore\"}", `{"description":"ignore"}`},
		{"tag characters in a key", `{"properties":{"x\udb40\udc69":{"type":"string"}}}`, `{"properties":{"x":{"type":"string"}}}`},
		{"html kept unescaped", `{"description":"<b>\u0007","enum":["a<b"]}`, `{"description":"<b>","enum":["a<b"]}`},
		{"escaped cr", `{"description":"a\r\nb"}`, `{"description":"a\nb"}`},
		{"invalid json kept", `{"description":"a\u001b`, ""},
	}
	for _, tc := range tests {
		want := tc.want
		if want == "" {
			want = tc.in
		}
		got := string(SanitizeJSON([]byte(tc.in)))
		if got != want {
			t.Errorf("%s: SanitizeJSON(%s) = %s, want %s", tc.name, tc.in, got, want)
		}
		if tc.want != "" && !json.Valid([]byte(got)) {
			t.Errorf("%s: result is not valid JSON: %s", tc.name, got)
		}
	}
}

// FuzzSanitize checks Sanitize and Escape against what the issue asks of them: no control
// character but \n and \t, no bidi control, no zero-width or tag character, valid UTF-8,
// idempotent, and printable text unchanged.
func FuzzSanitize(f *testing.F) {
	for _, tc := range cases {
		f.Add(tc.in)
	}
	f.Add("\x1b]52;c;\x1b\\\u202e\U000E0041\u200b\r\n\xc3")
	f.Add("0123456\\u00e9 long enough for two words\x7f")
	f.Add(`{"description":"a\u001b[2J\u200b","x\udb40\udc69":["\r\n",1.5e3,null]}`)
	f.Fuzz(func(t *testing.T, s string) {
		if plain(s) != plainBytes(s) {
			t.Fatalf("plain(%q) = %v, a byte at a time %v", s, plain(s), plainBytes(s))
		}
		if _, ok := plainJSONBytes([]byte(s), 0, len(s)); plainJSON([]byte(s)) != ok {
			t.Fatalf("plainJSON(%q) = %v, a byte at a time %v", s, !ok, ok)
		}
		out := Sanitize(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Sanitize(%q) = %q is not valid UTF-8", s, out)
		}
		for _, r := range out {
			if forbidden(r) {
				t.Fatalf("Sanitize(%q) = %q keeps %U", s, out, r)
			}
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("Sanitize is not idempotent: %q -> %q -> %q", s, out, again)
		}
		if !Clean(out) {
			t.Fatalf("Clean(Sanitize(%q)) is false", s)
		}
		if Clean(s) != (out == s) {
			t.Fatalf("Clean(%q) = %v, but Sanitize gives %q", s, Clean(s), out)
		}
		if printable(s) && out != s {
			t.Fatalf("Sanitize changed printable text %q to %q", s, out)
		}
		esc := Escape(s)
		if !utf8.ValidString(esc) {
			t.Fatalf("Escape(%q) = %q is not valid UTF-8", s, esc)
		}
		for _, r := range esc {
			if forbidden(r) {
				t.Fatalf("Escape(%q) = %q keeps %U", s, esc, r)
			}
		}
		if printable(s) && esc != s {
			t.Fatalf("Escape changed printable text %q to %q", s, esc)
		}
		if Hidden(s) > utf8.RuneCountInString(s) {
			t.Fatalf("Hidden(%q) = %d counts more than the runes", s, Hidden(s))
		}
		if json.Valid([]byte(s)) {
			checkJSON(t, s)
		}
	})
}

// checkJSON: SanitizeJSON of a valid document is valid, its strings are clean, and it is
// the document itself when every string was.
func checkJSON(t *testing.T, doc string) {
	out := SanitizeJSON([]byte(doc))
	if !json.Valid(out) {
		t.Fatalf("SanitizeJSON(%s) = %s is not valid JSON", doc, out)
	}
	allClean := true
	walkStrings(t, []byte(doc), func(s string) { allClean = allClean && Clean(s) })
	walkStrings(t, out, func(s string) {
		if !Clean(s) {
			t.Fatalf("SanitizeJSON(%s) = %s keeps the string %q", doc, out, s)
		}
	})
	if allClean && string(out) != doc {
		t.Fatalf("SanitizeJSON changed %s, whose strings are clean, to %s", doc, out)
	}
}

// walkStrings calls f with every string of a JSON document, keys too.
func walkStrings(t *testing.T, doc []byte, f func(string)) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			f(x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				f(k)
				walk(e)
			}
		}
	}
	walk(v)
}

// forbidden is the oracle, written from the issue rather than from the code: controls
// (C0 but \n and \t, DEL, C1), bidi controls, zero-width characters, tag characters, and
// the other format and default-ignorable characters.
func forbidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
		return true // bidi marks, embeddings, overrides, isolates
	case r >= 0x200b && r <= 0x200d || r == 0x2060 || r == 0xfeff:
		return true // zero-width space, joiners, word joiner, zero-width no-break space
	case r >= 0xe0000 && r <= 0xe007f:
		return true // tag characters
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// printable: valid UTF-8 of nothing the oracle forbids and no \r.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if forbidden(r) || r == '\r' {
			return false
		}
	}
	return true
}

// TestUnseenEveryRune: unseen says of every code point what its definition says (control
// characters, the soft hyphen and the line and paragraph separators, and Unicode's
// format, variation selector and other default-ignorable code points), the ranges it
// answers without looking the tables up included.
func TestUnseenEveryRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0x2028 || r == 0x2029 ||
			unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
			unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
		if got := unseen(r); got != want {
			t.Errorf("unseen(%U) = %v, want %v", r, got, want)
		}
	}
}

// sanitizeJSONByDecoding is SanitizeJSON deciding of every literal that is not printable
// ASCII by decoding it, as it did before cleanLiteral: what SanitizeJSON must still give.
func sanitizeJSONByDecoding(raw []byte) []byte {
	return sanitizeJSON(raw, false)
}

// jsonLiterals are documents whose strings cleanLiteral judges without decoding, or
// leaves to decoding.
var jsonLiterals = []string{
	`{"description":"Crée un \"ticket\" \\ a/b\n\t— 日本語 😀","enum":["é"]}`,
	"{\"description\":\"a\u200bb — é\"}",
	"{\"description\":\"é\\u200b\"}",
	"{\"description\":\"é\\r\\n\"}",
	"{\"description\":\"é\x01\"}",
	"{\"description\":\"é\nraw\"}",
	"{\"description\":\"é\xff\"}",
	"{\"description\":\"é\x7f\"}",
	"{\"description\":\"é\\x\"}",
	"{\"x\u3164\":\"é\",\"y\":\"\u2066é\"}",
	`{"a":"é\\`,
}

// TestSanitizeJSONLiterals: SanitizeJSON gives what decoding every literal that is not
// printable ASCII gives.
func TestSanitizeJSONLiterals(t *testing.T) {
	for _, doc := range jsonLiterals {
		if got, want := SanitizeJSON([]byte(doc)), sanitizeJSONByDecoding([]byte(doc)); string(got) != string(want) {
			t.Errorf("SanitizeJSON(%q) = %q, want %q", doc, got, want)
		}
	}
}

// FuzzSanitizeJSONLiterals: SanitizeJSON of any document is what decoding its literals
// gives.
func FuzzSanitizeJSONLiterals(f *testing.F) {
	for _, doc := range jsonLiterals {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if got, want := SanitizeJSON(doc), sanitizeJSONByDecoding(doc); string(got) != string(want) {
			t.Errorf("SanitizeJSON(%q) = %q, want %q", doc, got, want)
		}
	})
}
