package cache

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadFrames: no startup file, however damaged, makes the reader panic or allocate
// beyond what the file holds, and every accepted file holds only payloads the bridge can
// splice into a frame and writes back byte for byte. The body is fuzzed behind a correct
// header and checksum, so the fuzzer reaches the parser.
func FuzzReadFrames(f *testing.F) {
	f.Add([]byte("S\t\"a\"\tf\t1\n\"t\"\t0a1b\t\"description\":\"d\",\"schema\":{}\n"))
	f.Add([]byte("S\t\"a\"\tf\t99999999999999\n\"t\"\t\t\"p\":1\n"))
	f.Add([]byte("S\t\"a b\\tc\"\tf1\t2\n\"t\\\"1\"\t\t\"description\":\"x\\ty\"\n\"two\"\tff\t\"p\":2\nS\t\"empty\"\tf2\t0\n"))
	f.Add([]byte("S\t\"a\"\tf\t-1\n"))
	f.Add([]byte("S\t\"a\"\tf\t0\nR\t\"/p\"\tf\t1\n\"t\"\t\t\"p\":1\n"))
	f.Add([]byte(""))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte) {
		stamp := Stamp{Size: 1, ModTime: 2}
		path := filepath.Join(dir, "f.startup")
		if err := os.WriteFile(path, []byte(framesFile(stamp, string(body))), 0o600); err != nil {
			t.Fatal(err)
		}
		servers, err := ReadFrames(path, stamp)
		if err != nil {
			if bytes.IndexByte([]byte(err.Error()), '\n') >= 0 {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		n := 0
		for name, s := range servers {
			for _, tl := range s.Tools {
				n++
				if !payloadShape(tl.Payload) {
					t.Fatalf("%s/%s: accepted payload %q", name, tl.Name, tl.Payload)
				}
			}
		}
		if n > len(body) {
			t.Fatalf("%d tools from %d bytes", n, len(body))
		}
		again := filepath.Join(dir, "again.startup")
		if err := WriteStartup(again, stamp, nil, servers); err != nil {
			// A fingerprint with a tab cannot be written back; the reader never makes one.
			t.Fatalf("an accepted file cannot be written back: %v", err)
		}
		back, err := ReadFrames(again, stamp)
		if err != nil || len(back) != len(servers) {
			t.Fatalf("round trip: %v, %d vs %d servers", err, len(back), len(servers))
		}
	})
}

// FuzzDecodeFile: decoding any cache file bytes never panics, and a file that decodes
// gives a usable catalog: a servers map without nil entries and one-line schemas.
func FuzzDecodeFile(f *testing.F) {
	f.Add([]byte(`{"version":1,"servers":{}}`))
	f.Add([]byte(`{"version":1,"servers":{"a":{"fingerprint":"f","tools":[{"name":"t","inputSchema":{"type":"object",` + "\n" + `"properties":{}}}]}}}`))
	f.Add([]byte(`{"version":1,"servers":{"a":null}}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"servers":{"a":{"tools":[{"name":1}]}}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := decodeFile(data)
		if err != nil {
			return
		}
		if file.Servers == nil {
			t.Fatal("nil servers map")
		}
		for name, e := range file.Servers {
			if e == nil {
				t.Fatalf("nil entry %q", name)
			}
			for _, tl := range e.Tools {
				if bytes.ContainsAny(tl.InputSchema, "\n\r") && json.Valid(tl.InputSchema) {
					t.Fatalf("multi-line schema kept for %s/%s", name, tl.Name)
				}
			}
		}
	})
}

// FuzzNormalizeSchema: whatever a server sends as an input schema, the result is one line
// of valid JSON, an object with "type": "object" unless the schema is refused, the same
// when normalised again, and never aliases the input.
func FuzzNormalizeSchema(f *testing.F) {
	for _, s := range []string{
		``, `null`, `true`, `false`, `"x"`, `42`, `[{}]`, `{`,
		`{"type":["object","null"],"properties":{}}`,
		`{"type":"object","properties":["a"],"required":"a"}`,
		`{"$defs":{"M":{"enum":["a"]}},"properties":{"m":{"$ref":"#/$defs/M"},"n":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"required":["m"],"type":"object"}`,
		`{"$schema":"s","description":"d","definitions":{},"anyOf":[{"required":["a"]}]}`,
		`{"typ\u0065":"object","required":[1,"a"]}`,
		`{"description":"}{\"type\":[","type":7}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		in := bytes.Clone(raw)
		out, _, err := CheckInputSchema(in)
		if !json.Valid(out) || bytes.ContainsAny(out, "\n\r") {
			t.Fatalf("CheckInputSchema(%q) = %q: not one line of JSON", raw, out)
		}
		if !bytes.Equal(in, raw) {
			t.Fatal("the input was modified")
		}
		if len(out) > 0 && len(in) > 0 && &out[0] == &in[0] {
			t.Fatal("the result aliases the input")
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(out, &top) != nil {
			t.Fatalf("not an object: %q", out)
		}
		if err == nil && string(top["type"]) != `"object"` {
			t.Fatalf("accepted schema without type object: %q -> %q", raw, out)
		}
		again, fixes, err2 := CheckInputSchema(out)
		if !bytes.Equal(again, out) || (err == nil && (len(fixes) > 0 || err2 != nil)) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v, %v)", raw, out, again, fixes, err2)
		}
		if n := NormalizeSchema(in); !bytes.Equal(n, out) {
			t.Fatalf("NormalizeSchema and CheckInputSchema differ: %q vs %q", n, out)
		}
	})
}
