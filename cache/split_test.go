package cache

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	gojson "github.com/goccy/go-json"
)

// decodeWhole is what decodeFile gives without the split: the file decoded in one piece.
func decodeWhole(t *testing.T, data []byte) (*File, error) {
	t.Helper()
	f := new(File)
	if err := gojson.Unmarshal(data, f); err != nil {
		return nil, err
	}
	cleanFile(f)
	return f, nil
}

// TestDecodeSplit: a file decoded in parts is the file decoded whole, for every layout
// that carries the cues the cut looks for; a layout where a cut falls inside an entry, a
// damaged part or rest, another version, are never decoded in parts (decodeFile then
// decodes the whole and says what is wrong).
func TestDecodeSplit(t *testing.T) {
	f, _ := catalogCache(t, 300)
	f.Projects = map[string]map[string]*Server{"p1": {"solo": {Fingerprint: "f", Tools: []Tool{{Name: "x", InputSchema: json.RawMessage(`{"type":"object"}`)}}}}}
	ours, err := encodeFile(f)
	if err != nil {
		t.Fatal(err)
	}
	indented, err := json.MarshalIndent(f, "", "  ") // the same cues, other whitespace within entries
	if err != nil {
		t.Fatal(err)
	}
	// A name given twice, in entries far apart: the last one wins, as in the whole decode.
	dup := bytes.Replace(ours, []byte("\n  }"), []byte(",\n    \"solo\": {\"fingerprint\": \"late\", \"tools\": []}\n  }"), 1)
	dup = bytes.Replace(dup, []byte("\n  \"servers\": {"), []byte("\n  \"servers\": {\n    \"solo\": {\"fingerprint\": \"early\", \"tools\": []},"), 1)
	// One large entry whose own fields sit at the entries' indentation: the cuts fall
	// inside it.
	tools, err := json.Marshal(f.Servers[firstName(f)].Tools)
	if err != nil {
		t.Fatal(err)
	}
	flat := []byte("{\n  \"version\": 1,\n  \"servers\": {\n    \"flat\": {\"fingerprint\": \"a\",\n    \"tools\": " + string(tools) +
		",\n    \"serverName\": \"b\",\n    \"transport\": \"http\"}\n  }\n}\n")
	// The servers object's close cue inside an entry, then more entries.
	early := bytes.Replace(ours, []byte("\n  \"servers\": {"), []byte("\n  \"servers\": {\n    \"odd\": {\"fingerprint\": \"a\", \"tools\": [], \"x\": {\n  }},"), 1)
	brokenPart := bytes.Replace(ours, []byte(`"fingerprint": `), []byte(`"fingerprint": ,`), 1)
	brokenRest := bytes.Replace(ours, []byte(`"projects": {`), []byte(`"projects": {,`), 1)
	version2 := bytes.Replace(ours, []byte(`"version": 1`), []byte(`"version": 2`), 1)
	version2Split := bytes.Replace(ours, []byte(`"version": 1`), []byte(`"version": 1, "version": 2`), 1)

	tests := []struct {
		name  string
		data  []byte
		split bool // decoded in parts
		bad   bool // decodeFile refuses it
	}{
		{"as Update writes it", ours, true, false},
		{"indented by encoding/json", indented, true, false},
		{"a name twice", dup, true, false},
		{"fields at the entries' indentation", flat, false, false},
		{"close cue inside an entry", early, false, false},
		{"damaged entry", brokenPart, false, true},
		{"damaged rest", brokenRest, false, true},
		{"another version", version2, false, true},
		{"version given twice", version2Split, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := decodeWhole(t, tc.data)
			before := bytes.Clone(tc.data)
			got, ok := decodeSplit(tc.data, 0, 4)
			if !bytes.Equal(tc.data, before) {
				t.Fatal("decodeSplit left the file's bytes changed")
			}
			if ok != tc.split {
				t.Fatalf("decoded in parts: %v, want %v", ok, tc.split)
			}
			if ok {
				cleanFile(got)
				if wantErr != nil {
					t.Fatalf("decoded in parts a file the whole decode rejects: %v", wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatal("decoded in parts differs from the whole decode")
				}
			}
			// decodeFile agrees with the whole decode, whichever way it went.
			viaFile, err := decodeFile(tc.data)
			if (err != nil) != tc.bad {
				t.Fatalf("decodeFile error %v, want one: %v", err, tc.bad)
			}
			if err == nil && !reflect.DeepEqual(viaFile, want) {
				t.Fatal("decodeFile differs from the whole decode")
			}
		})
	}
}

// firstName is the first of f's server names in sorted order.
func firstName(f *File) string {
	first := ""
	for name := range f.Servers {
		if first == "" || name < first {
			first = name
		}
	}
	return first
}

// TestDecodeFileSplitsLargeFiles: a file over splitFrom, as Update writes it, is decoded
// in several parts by decodeFile itself, and the result is the whole decode's; a second
// servers member (a hand edit, which wins in the whole decode) is never decoded in parts.
func TestDecodeFileSplitsLargeFiles(t *testing.T) {
	f, _ := catalogCache(t, 3000)
	data, err := encodeFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 2*splitFrom {
		t.Fatalf("the file is %d bytes: too small to show the split", len(data))
	}
	rest, _ := bytes.CutPrefix(data, []byte(serversOpen))
	start := len(serversOpen) + bytes.Index(rest, []byte(serversAfter)) + len(serversAfter)
	end := start + bytes.Index(data[start:], []byte(serversClose))
	if n := len(cutEntries(data, start, end, 8)); n < 2 {
		t.Fatalf("cut into %d part, want several", n)
	}
	want, err := decodeWhole(t, bytes.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := decodeSplit(bytes.Clone(data), splitFrom, 4); !ok {
		t.Fatal("a large file in our layout was not decoded in parts")
	}
	got, err := decodeFile(bytes.Clone(data))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeFile gave another file than the whole decode (err %v)", err)
	}
	twice := bytes.Replace(data, []byte("\n}"), []byte(",\n  \"servers\": {\"late\": {\"fingerprint\": \"f\", \"tools\": []}}\n}"), 1)
	if _, ok := decodeSplit(twice, splitFrom, 4); ok {
		t.Fatal("a file with a second servers member was decoded in parts")
	}
}
