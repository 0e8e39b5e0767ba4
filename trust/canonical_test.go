package trust

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestCanonicalJSON: the same value spelled with other key orders or spacing gives the
// same bytes; arrays keep their order; what is not JSON is null.
func TestCanonicalJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":1,"a":{"d":[3,{"z":1,"y":2}],"c":"x"}}`, `{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}`},
		{` { "a" : [ 1 , 2.50 , "s p" ] , "\u0041" : true } `, `{"\u0041":true,"a":[1,2.50,"s p"]}`},
		{`{"a":"quote \" and } ] ,","b":{}}`, `{"a":"quote \" and } ] ,","b":{}}`},
		{`[]`, `[]`},
		{`"s"`, `"s"`},
		{`null`, `null`},
		{``, `null`},
		{`{"a":`, `null`},
		{`{} {}`, `null`},
	}
	for _, tc := range cases {
		if got := string(canonicalJSON(json.RawMessage(tc.in))); got != tc.want {
			t.Errorf("canonicalJSON(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzCanonicalJSON: for any valid JSON the canonical form is valid JSON of the same
// value, and canonical already (a second pass changes nothing); nothing panics.
func FuzzCanonicalJSON(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"b":{"type":"string"},"a":{"enum":[1,"x",null]}},"required":["b"]}`))
	f.Add([]byte(`[{"\u00e9":1,"e":2},[[]],"\\\""]`))
	f.Add([]byte(`{"a":1,"a":2}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got := canonicalJSON(raw)
		if !json.Valid(got) {
			t.Fatalf("canonicalJSON(%q) = %q is not JSON", raw, got)
		}
		if again := canonicalJSON(got); !bytes.Equal(again, got) {
			t.Fatalf("not idempotent: %q then %q", got, again)
		}
		if !json.Valid(raw) || bytes.Contains(raw, []byte(`"`)) && hasDuplicateKeys(raw) {
			return
		}
		var a, b any
		da, db := json.NewDecoder(bytes.NewReader(raw)), json.NewDecoder(bytes.NewReader(got))
		da.UseNumber()
		db.UseNumber()
		if da.Decode(&a) != nil || db.Decode(&b) != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("canonicalJSON(%q) = %q decodes to another value", raw, got)
		}
	})
}

// hasDuplicateKeys reports whether some object in raw has a key twice (decoding keeps
// the last, the canonical form keeps all, so the values are not comparable).
func hasDuplicateKeys(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var walk func() bool
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, _ := dec.Token()
				if seen[k.(string)] || walk() {
					return true
				}
				seen[k.(string)] = true
			}
			_, _ = dec.Token()
		case json.Delim('['):
			for dec.More() {
				if walk() {
					return true
				}
			}
			_, _ = dec.Token()
		}
		return false
	}
	return walk()
}
