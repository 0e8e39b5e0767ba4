package jsonscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

type readOut struct {
	members []string // name=value
	closed  bool
}

// readAll reads src's members with Object, and whether the object closed as Members
// tells it.
func readAll(src string) readOut {
	o := NewObject([]byte(src))
	var out readOut
	for m := range o.All() {
		if string(src[m.At:m.At+len(m.Key)]) != string(m.Key) || src[m.ValueAt:m.End()] != string(m.Value) {
			panic("offsets do not locate the member")
		}
		out.members = append(out.members, m.Name()+"="+string(m.Value))
	}
	out.closed = streamed(src, len(src)+1).closed
	return out
}

// streamed reads src's members with Members, fed in pieces of chunk bytes, keeping the
// parts of keys and values as a streaming caller does.
func streamed(src string, chunk int) readOut {
	var s Members
	var out readOut
	var key, value []byte
	name := ""
	for p := []byte(src); ; {
		piece := p[:min(chunk, len(p))]
		p = p[len(piece):]
		for {
			n, ev := s.Step(piece)
			switch part, what := s.Part(piece[:n]); what {
			case InKey:
				key = append(key, part...)
			case InValue:
				value = append(value, part...)
			}
			piece = piece[n:]
			switch ev {
			case KeyEnd:
				name, key = Member{Key: key}.Name(), key[:0]
			case ValueEnd:
				out.members = append(out.members, name+"="+string(value))
				value = value[:0]
			case Closed, Stopped:
				out.closed = ev == Closed
				// Told once: the rest of the text is read with More.
				if n, ev := s.Step(piece); n != len(piece) || ev != More {
					panic("Step went on after the end")
				}
				piece = nil
			}
			if ev == More {
				break
			}
		}
		if len(p) == 0 {
			return out
		}
	}
}

// TestObject: whole members are read in order with their offsets, a member the text is
// cut off inside is not, and reading stops where the member grammar breaks; fed in pieces
// of any size, Members tells the same members.
func TestObject(t *testing.T) {
	long := strings.Repeat("ab", 20) + `\"\\` + strings.Repeat("c", 40) + `\\\"x\\`
	tests := []struct {
		name string
		in   string
		want readOut
	}{
		{"compact", `{"a":1,"b":"x","c":[1,{"d":"}"}],"e":{"f":null}}`,
			readOut{[]string{"a=1", `b="x"`, `c=[1,{"d":"}"}]`, `e={"f":null}`}, true}},
		{"white space", " {\n \"a\" : true ,\t\"b\":\"\\\"]\" } ",
			readOut{[]string{"a=true", `b="\"]"`}, true}},
		{"empty", `{}`, readOut{nil, true}},
		{"escaped key", `{"\u0061b":1}`, readOut{[]string{"ab=1"}, true}},
		{"escapes before a quote", `{"a\\":"\\\"\\","b":["\\\\"]}`, readOut{[]string{`a\="\\\"\\"`, `b=["\\\\"]`}, true}},
		{"not an object", `[1,2]`, readOut{nil, false}},
		{"empty text", ``, readOut{nil, false}},
		{"cut in a number", `{"id":42,"n":42`, readOut{[]string{"id=42"}, false}},
		{"cut after a number", `{"id":42,"n":42 `, readOut{[]string{"id=42", "n=42"}, false}},
		{"cut in a string", `{"id":1,"s":"ab`, readOut{[]string{"id=1"}, false}},
		{"cut after a backslash", `{"id":1,"s":"ab\`, readOut{[]string{"id=1"}, false}},
		{"string closed at the end", `{"id":1,"s":"ab"`, readOut{[]string{"id=1", `s="ab"`}, false}},
		{"cut in a nested value", `{"t":"x","a":{"b":[1,2`, readOut{[]string{`t="x"`}, false}},
		{"cut after the colon", `{"t":"x","a": `, readOut{[]string{`t="x"`}, false}},
		{"cut in a key", `{"t":"x","ab`, readOut{[]string{`t="x"`}, false}},
		{"missing comma", `{"a":1 "b":2}`, readOut{[]string{"a=1"}, false}},
		{"key not a string", `{a:1}`, readOut{nil, false}},
		{"missing value", `{"a":,"b":1}`, readOut{nil, false}},
		{"missing colon", `{"a" 1}`, readOut{nil, false}},
		{"a comma before the end", `{"a":1,}`, readOut{[]string{"a=1"}, false}},
		{"only the first value", `{"a":1} {"b":2}`, readOut{[]string{"a=1"}, true}},
		{"long strings with escapes", `{"s":"` + long + `","` + long + `":[1,"` + long + `"]}`,
			readOut{[]string{`s="` + long + `"`, strings.ReplaceAll(strings.ReplaceAll(long, `\\`, `\`), `\"`, `"`) + `=[1,"` + long + `"]`}, true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := readAll(tc.in)
			if !slices.Equal(got.members, tc.want.members) || got.closed != tc.want.closed {
				t.Fatalf("read %q:\n got %+v\nwant %+v", tc.in, got, tc.want)
			}
			for chunk := 1; chunk <= len(tc.in); chunk++ {
				if s := streamed(tc.in, chunk); !slices.Equal(s.members, got.members) || s.closed != got.closed {
					t.Fatalf("fed in pieces of %d: %+v; whole: %+v", chunk, s, got)
				}
			}
		})
	}
}

func TestMemberText(t *testing.T) {
	tests := []struct {
		value string
		want  string
		ok    bool
	}{
		{`"plain"`, "plain", true},
		{`"a\"b\u00e9"`, `a"bé`, true},
		{`"bad\q"`, "", false},
		{`12`, "", false},
		{`"`, "", false},
	}
	for _, tc := range tests {
		m := Member{Key: []byte(`"k"`), Value: []byte(tc.value)}
		if got, ok := m.Text(); got != tc.want || ok != tc.ok {
			t.Errorf("Text of %s = %q, %v; want %q, %v", tc.value, got, ok, tc.want, tc.ok)
		}
	}
	if !(Member{Key: []byte(`"\u0069d"`)}).Is("id") || (Member{Key: []byte(`"idx"`)}).Is("id") {
		t.Fatal("Is compares the decoded key")
	}
}

// decodedMembers is what encoding/json reads as the top-level members of a valid object.
func decodedMembers(t *testing.T, src []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(src))
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return nil
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, tok.(string)+"="+string(v))
	}
	return out
}

// FuzzObject: on a valid object the members are those encoding/json reads, whole and fed
// in pieces; on every start of it the whole members are a prefix of them.
func FuzzObject(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":"x"}`, `{"id":42,"r":{"c":[1,"]"]}}`, ` { "k\"" : null , "e":[] } `, `{"\u00e9":-1.5e3}`} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, in string, cut int) {
		src := []byte(in)
		if !json.Valid(src) || !strings.HasPrefix(strings.TrimLeft(in, " \t\r\n"), "{") {
			readAll(in) // must not panic
			return
		}
		var cmp bytes.Buffer
		if json.Compact(&cmp, src) != nil {
			return
		}
		want := decodedMembers(t, src)
		// encoding/json's RawMessage of a member keeps no outer white space, as ours.
		got := readAll(in)
		if !slices.Equal(got.members, want) || !got.closed {
			t.Fatalf("members of %q: %q (closed %v), encoding/json: %q", in, got.members, got.closed, want)
		}
		chunk := 1 + (cut&0xff)%16
		if s := streamed(in, chunk); !slices.Equal(s.members, want) || !s.closed {
			t.Fatalf("members of %q fed in pieces of %d: %q (closed %v), encoding/json: %q", in, chunk, s.members, s.closed, want)
		}
		if cut < 0 || cut > len(in) {
			return
		}
		part := readAll(in[:cut])
		if len(part.members) > len(want) || !slices.Equal(part.members, want[:len(part.members)]) {
			t.Fatalf("cut at %d: %q, not a prefix of %q", cut, part.members, want)
		}
		if s := streamed(in[:cut], chunk); !slices.Equal(s.members, part.members) {
			t.Fatalf("cut at %d, fed in pieces of %d: %q; whole: %q", cut, chunk, s.members, part.members)
		}
	})
}

func TestArgs(t *testing.T) {
	for in, want := range map[string]string{
		"":                "{}",
		" \n":             "{}",
		"null":            "{}",
		" null ":          "{}",
		`{"a":1}`:         `{"a":1}`,
		" {\"a\":null}\n": `{"a":null}`,
		"[1]":             "[1]",
	} {
		if got := Args([]byte(in)); string(got) != want {
			t.Errorf("Args(%q) = %s, want %s", in, got, want)
		}
	}
}

// BenchmarkObject: the members of a tool's input schema, read whole.
func BenchmarkObject(b *testing.B) {
	src := []byte(`{"type":"object","properties":{"path":{"type":"string","description":"The file to read, \"relative\" to the root"},"limit":{"type":"integer","minimum":1}},"required":["path"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		for m := range NewObject(src).All() {
			_ = m
		}
	}
}
