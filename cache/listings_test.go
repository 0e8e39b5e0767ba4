package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// readAll is every entry of the listings read (Listing.Read), as a File.
func readAll(l *Listings) (*File, error) {
	f := newFile()
	for name, e := range l.servers {
		s, err := e.Read()
		if err != nil {
			return nil, err
		}
		f.Servers[name] = s
	}
	for project, m := range l.projects {
		for name, e := range m {
			s, err := e.Read()
			if err != nil {
				return nil, err
			}
			if f.Projects == nil {
				f.Projects = map[string]map[string]*Server{}
			}
			if f.Projects[project] == nil {
				f.Projects[project] = map[string]*Server{}
			}
			f.Projects[project][name] = s
		}
	}
	return f, nil
}

// readListingsAll is readListings with every entry read.
func readListingsAll(data []byte) (*File, error) {
	l, err := readListings(data)
	if err != nil {
		return nil, err
	}
	return readAll(l)
}

// readListingsAs is readListings as a start in project reads it: only the entries of
// names that project sees are read, every other one is checked (Others, Check). The
// file holds the entries read, under Servers.
func readListingsAs(data []byte, project string, names ...string) (*File, error) {
	l, err := readListings(data)
	if err != nil {
		return nil, err
	}
	f, view := newFile(), l.View(project)
	for _, name := range names {
		if e, ok := view[name]; ok {
			if f.Servers[name], err = e.Read(); err != nil {
				return nil, err
			}
		}
	}
	for _, e := range l.Others(project, func(name string) bool { return slices.Contains(names, name) }) {
		if err := e.Check(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// listingsOf is what ReadListings keeps of a decoded file: per entry its fingerprint,
// instructions, tools and project.
func listingsOf(f *File) *File {
	keep := func(m map[string]*Server) map[string]*Server {
		out := make(map[string]*Server, len(m))
		for name, e := range m {
			tools := e.Tools
			if tools == nil {
				tools = []Tool{}
			}
			out[name] = &Server{Fingerprint: e.Fingerprint, Instructions: e.Instructions, Tools: tools, Project: e.Project}
		}
		return out
	}
	out := &File{Version: f.Version, Servers: keep(f.Servers)}
	for project, m := range f.Projects {
		if out.Projects == nil {
			out.Projects = map[string]map[string]*Server{}
		}
		out.Projects[project] = keep(m)
	}
	return out
}

// sameListings reports whether ReadListings' file got holds want's listings (schemas byte
// for byte; a nil and an empty schema or list of tools alike).
func sameListings(t *testing.T, got, want *File) {
	t.Helper()
	got, w := listingsOf(got), listingsOf(want)
	for _, f := range []*File{got, w} {
		for _, m := range append([]map[string]*Server{f.Servers}, slices.Collect(maps.Values(f.Projects))...) {
			for _, e := range m {
				for i := range e.Tools {
					tl := &e.Tools[i]
					if len(tl.OutputSchema) == 0 {
						tl.OutputSchema = nil
					}
				}
			}
		}
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		x, _ := json.Marshal(w)
		t.Fatalf("listings differ from the decoded file's:\n got %s\nwant %s", g, x)
	}
}

// TestReadListingsIsRead: every file the cache writes reads by its lines as the decoder
// reads it (the fields a start registers from), whatever its text holds: escapes, other
// scripts, control characters, titles, annotations, output schemas, extras, private
// listings, servers without tools, no servers at all.
func TestReadListingsIsRead(t *testing.T) {
	big, _ := catalogCache(t, 800)
	odd := &Server{Fingerprint: "f\"\\\u00e9", Instructions: "Use it.\n\tThen \"this\" \u2028 \x01 <b>&</b>", Transport: "http",
		Protocol: "2025-11-25", ProtocolKey: "k", ServerName: "odd", UpdatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
		RefreshDue: time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC),
		Tools: []Tool{
			{Name: "a \"q\"", Title: "T\u200b", Description: "line\nline2 \u65e5\u672c\u8a9e \U0001F600 \\ / \x7f",
				InputSchema:  json.RawMessage(`{"type":"object","properties":{"x":{"type":"string","description":"a\nb \"c\" \u00e9"}}}`),
				OutputSchema: json.RawMessage(`{"type":"object"}`),
				Annotations:  &Annotations{Title: "ann", ReadOnlyHint: boolp(true), DestructiveHint: boolp(false)}},
			{Name: "b", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &Annotations{}},
		},
		Resources: []Resource{{URI: "file:///x", Name: "x"}},
		Prompts:   []Prompt{{Name: "p", Description: "d"}},
	}
	files := map[string]*File{
		"empty":   newFile(),
		"catalog": big,
		"odd":     {Version: Version, Servers: map[string]*Server{"odd": odd, "none": {Fingerprint: "n", Tools: nil}, "z\u00e9": {Fingerprint: "z", Tools: []Tool{}}}},
		"projects": {Version: Version, Servers: map[string]*Server{"shared": odd},
			Projects: map[string]map[string]*Server{"/p/one": {"shared": {Fingerprint: "own", Tools: odd.Tools}, "mine": {Fingerprint: "m"}}, "/p/\"two\"": {"x": odd}}},
		"projects only": {Version: Version, Servers: map[string]*Server{}, Projects: map[string]map[string]*Server{"/p": {"x": odd}}},
	}
	for name, f := range files {
		t.Run(name, func(t *testing.T) {
			data, err := encodeFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := decodeFile(bytes.Clone(data))
			if err != nil {
				t.Fatal(err)
			}
			got, err := readListingsAll(data)
			if err != nil {
				t.Fatalf("readListings: %v", err)
			}
			sameListings(t, got, want)
			// Each project's view, as File.View gives it.
			l, _ := readListings(data)
			for _, project := range append(slices.Collect(maps.Keys(f.Projects)), "", "/elsewhere") {
				view, wantView := l.View(project), want.View(project)
				if !slices.Equal(slices.Sorted(maps.Keys(view)), slices.Sorted(maps.Keys(wantView))) {
					t.Fatalf("view of %q: %v, want %v", project, slices.Sorted(maps.Keys(view)), slices.Sorted(maps.Keys(wantView)))
				}
				for name, e := range view {
					s, err := e.Read()
					if err != nil || s.Project != wantView[name].Project || s.Fingerprint != wantView[name].Fingerprint {
						t.Fatalf("view of %q: %s: %+v, %v; want project %q", project, name, s, err, wantView[name].Project)
					}
				}
			}
		})
	}
	// Through the file, as Update writes it.
	path := filepath.Join(t.TempDir(), FileName)
	mustUpdate(t, path, map[string]*Server{"odd": odd, "s": sampleEntry("x")}, nil)
	l, err := ReadListings(path)
	if err != nil {
		t.Fatal(err)
	}
	want := mustRead(t, path)
	got, err := readAll(l)
	if err != nil {
		t.Fatal(err)
	}
	sameListings(t, got, want)
	// Updated since: Decode is of the bytes read.
	mustUpdate(t, path, map[string]*Server{"new": sampleEntry("n")}, nil)
	if whole, err := l.Decode(); err != nil || !reflect.DeepEqual(whole, want) {
		t.Fatalf("Decode: %v, or not the file read", err)
	}
}

// TestReadListingsRefusesOtherLayouts: a file laid out otherwise than the cache writes it
// (another indentation, members moved, added or repeated, a value that is not what the
// writer puts there, cut off) is left to Read, even where Read decodes it.
func TestReadListingsRefusesOtherLayouts(t *testing.T) {
	f := &File{Version: Version, Servers: map[string]*Server{"a": sampleEntry("a"), "b": sampleEntry("b")}}
	ours, err := encodeFile(f)
	if err != nil {
		t.Fatal(err)
	}
	indented, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	compact, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	replace := func(old, new string) []byte {
		t.Helper()
		if !bytes.Contains(ours, []byte(old)) {
			t.Fatalf("%q not in the file", old)
		}
		return bytes.Replace(ours, []byte(old), []byte(new), 1)
	}
	tests := []struct {
		name string
		data []byte
		read bool // Read decodes it
	}{
		{"indented by encoding/json", indented, true},
		{"one line", compact, true},
		{"another version", replace(`"version": 1`, `"version": 2`), false},
		{"member repeated", replace(`"fingerprint": "fp-a",`, `"fingerprint": "fp-a",`+"\n      \"fingerprint\": \"late\","), true},
		{"members out of order", replace(`"fingerprint": "fp-a",`+"\n      \"transport\": \"stdio\",", `"transport": "stdio",`+"\n      \"fingerprint\": \"fp-a\","), true},
		{"unknown member", replace(`"fingerprint": "fp-a",`, `"fingerprint": "fp-a",`+"\n      \"new\": 1,"), true},
		{"tool member repeated", replace(`"name": "a_tool",`, `"name": "a_tool",`+"\n          \"name\": \"other\","), true},
		{"server given twice", replace("\n    \"b\": {", "\n    \"a\": {\"fingerprint\": \"x\", \"tools\": []},\n    \"b\": {"), true},
		{"schema over lines", replace(`{"type":"object","properties":{}}`, "{\"type\":\"object\",\n\"properties\":{}}"), true},
		{"schema not an object", replace(`{"type":"object","properties":{}}`, `null`), true},
		{"annotations null", replace(`"annotations": {"title":"First","readOnlyHint":true,"openWorldHint":false}`, `"annotations": null`), true},
		{"escaped key", replace(`"description": "first a"`, `"descr\u0069ption": "first a"`), true},
		{"string not a string", replace(`"name": "a_tool"`, `"name": 7`), false},
		{"bad escape", replace(`"description": "first a"`, `"description": "first \x"`), false},
		{"cut off", ours[:len(ours)/2], false},
		{"trailing bytes", append(bytes.Clone(ours), "{}\n"...), false},
		// Valid JSON the decoder reads otherwise than the lines say, on a line of a
		// value the reader skips, of a schema, of an entry it does not read.
		{"member after a skipped value", seedAfterSkipped(ours), true},
		{"member after a schema", seedAfterSchema(ours), true},
		{"entries in an unread entry's line", seedInUnread(ours), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := readListingsAll(bytes.Clone(tt.data)); !errors.Is(err, ErrNotLaidOut) {
				t.Fatalf("readListings: %v, want ErrNotLaidOut", err)
			}
			if _, err := readListingsAs(bytes.Clone(tt.data), "", "a"); !errors.Is(err, ErrNotLaidOut) {
				t.Fatalf("readListings of a only: %v, want ErrNotLaidOut", err)
			}
			if _, err := decodeFile(bytes.Clone(tt.data)); (err == nil) != tt.read {
				t.Fatalf("decodeFile: %v; the case assumes it decodes: %v", err, tt.read)
			}
		})
	}
	if _, err := readListingsAll(ours); err != nil {
		t.Fatalf("the file as written: %v", err)
	}
}

// TestReadListingsCutInPlace: a cache file cut short in place (an editor rewriting it)
// while its listings are held, as they are from startup until the catalog is built after
// ready, changes nothing of what they read and decode: they are the bytes read. (A
// mapping of the file would die on it, SIGBUS, which no recover catches.)
func TestReadListingsCutInPlace(t *testing.T) {
	f := &File{Version: Version, Servers: map[string]*Server{"a": sampleEntry("a"), "b": sampleEntry("b")}}
	data, err := encodeFile(f)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := ReadListings(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	got := newFile()
	for name, e := range l.View("") {
		if got.Servers[name], err = e.Read(); err != nil {
			t.Fatal(err)
		}
	}
	want, err := decodeFile(bytes.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	sameListings(t, got, want)
	decoded, err := l.Decode()
	if err != nil || !reflect.DeepEqual(decoded, want) {
		t.Fatalf("decoded after the cut: %v", err)
	}
}

// TestReadListingsMissing: a missing file has no listings, as Read; an unreadable one is
// an error.
func TestReadListingsMissing(t *testing.T) {
	dir := t.TempDir()
	l, err := ReadListings(filepath.Join(dir, "none.json"))
	if err != nil || len(l.View("")) != 0 || len(l.View("/p")) != 0 {
		t.Fatalf("missing file: %+v, %v", l, err)
	}
	if f, err := l.Decode(); err != nil || len(f.Servers) != 0 {
		t.Fatalf("missing file decoded: %+v, %v", f, err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadListings(filepath.Join(dir, "d")); err == nil {
		t.Fatal("a directory read as a cache")
	}
}

// TestReadListingsNotLaidOutDecodes: a file the line reader refuses keeps its bytes, so
// that the start decodes them (Decode) without reading the file again: what Decode gives
// is the file as it was read, also after it changed, and a damaged file's error is
// Read's.
func TestReadListingsNotLaidOutDecodes(t *testing.T) {
	f := &File{Version: Version, Servers: map[string]*Server{"a": sampleEntry("a")}}
	laid, err := encodeFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, laid); err != nil {
		t.Fatal(err)
	}
	damaged := []byte(`{"version": 1, "servers": {`)
	for _, tc := range []struct {
		name    string
		data    []byte
		wantErr bool
	}{
		{"valid", compact.Bytes(), false},
		{"damaged", damaged, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			want, wantErr := Read(path)
			l, err := ReadListings(path)
			if !errors.Is(err, ErrNotLaidOut) || l == nil {
				t.Fatalf("ReadListings: %v, %v; want ErrNotLaidOut with the bytes", l, err)
			}
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
			got, err := l.Decode()
			if (err != nil) != tc.wantErr || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("Decode error %v, Read's %v", err, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Decode gave %+v, Read %+v", got, want)
			}
		})
	}
}

// replaceIn is data with old replaced by new once; nil when old is not in it.
func replaceIn(data []byte, old, new string) []byte {
	if !bytes.Contains(data, []byte(old)) {
		return nil
	}
	return bytes.Replace(data, []byte(old), []byte(new), 1)
}

// seedAfterSkipped, seedAfterSchema and seedInUnread are valid JSON that the line
// reader once read otherwise than the decoder, made from a file of entries a and b as
// encodeFile writes them: a member after a skipped value (the decoder keeps the last
// fingerprint), after a schema (the decoder names the tool evil), and entries inside the
// first line of b, which a start that reads only a never reads (the decoder's a is
// another).
func seedAfterSkipped(data []byte) []byte {
	return replaceIn(data, `"serverName": "srv-a",`, `"serverName": "srv-a", "fingerprint": "evil",`)
}

func seedAfterSchema(data []byte) []byte {
	return replaceIn(data, `"inputSchema": {"type":"object","properties":{}},`, `"inputSchema": {"type":"object","properties":{}}, "name": "evil",`)
}

func seedInUnread(data []byte) []byte {
	return replaceIn(data, `"fingerprint": "fp-b",`,
		`"fingerprint": "fp-b"}, "a": {"fingerprint": "fp-a", "tools": [{"name": "evil", "inputSchema": {}}]}, "c": {"fingerprint": "c",`)
}

// FuzzReadListings: no cache file, however damaged, makes the line reader panic, and a
// file it reads that the decoder reads too gives the decoder's listings.
func FuzzReadListings(f *testing.F) {
	odd := sampleEntry("x")
	odd.Instructions = "say \"hi\"\n"
	odd.Resources = []Resource{{URI: "file:///r", Name: "r"}}
	for _, file := range []*File{
		newFile(),
		{Version: Version, Servers: map[string]*Server{"a": sampleEntry("a"), "b\"q": odd}},
		{Version: Version, Servers: map[string]*Server{"a": odd}, Projects: map[string]map[string]*Server{"/p": {"a": sampleEntry("p")}}},
	} {
		data, err := encodeFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	two, err := encodeFile(&File{Version: Version, Servers: map[string]*Server{"a": sampleEntry("a"), "b": sampleEntry("b")}})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{seedAfterSkipped(two), seedAfterSchema(two), seedInUnread(two)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameIndexed(t, data)
		want, err := decodeFile(bytes.Clone(data))
		if err != nil {
			return // a value the line reader skips is damaged: Decode says so after ready
		}
		if got, err := readListingsAll(bytes.Clone(data)); err == nil {
			sameListings(t, got, want)
		}
		// As a start reads it: a's entry only, as each project sees it.
		for _, project := range []string{"", "/p"} {
			got, err := readListingsAs(bytes.Clone(data), project, "a")
			if err != nil {
				continue
			}
			view := want.View(project)
			w := newFile()
			if e := view["a"]; e != nil {
				w.Servers["a"] = e
			}
			for _, e := range got.Servers {
				e.Project = "" // which listing it is, not what it holds
			}
			for _, e := range w.Servers {
				c := *e
				c.Project = ""
				w.Servers["a"] = &c
			}
			sameListings(t, got, w)
		}
	})
}

// sameIndexed fails unless data reads the same with the shared entries' ends found first
// (readListingsIndexed, as a large file is read) as entry by entry.
func sameIndexed(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := readListingsIndexed(data, false)
	got, err := readListingsIndexed(data, true)
	if !errors.Is(err, wantErr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("with the ends found first: %+v, %v; entry by entry %+v, %v", got, err, want, wantErr)
	}
}

// TestReadListingsIndexed: a file reads the same with its shared entries' ends found
// first (as a large file is read) as entry by entry, whatever it holds: many entries,
// private listings (whose projects close at the shared entries' indentation), a line
// that closes an entry early, none at all, a file cut short.
func TestReadListingsIndexed(t *testing.T) {
	t.Parallel()
	many := &File{Version: Version, Servers: map[string]*Server{}, Projects: map[string]map[string]*Server{"/p": {"a": sampleEntry("p")}, "/q": {"b": sampleEntry("q")}}}
	for i := range 40 {
		many.Servers[fmt.Sprintf("s%02d", i)] = sampleEntry(fmt.Sprintf("s%02d", i))
	}
	data, err := encodeFile(many)
	if err != nil {
		t.Fatal(err)
	}
	early := bytes.Replace(data, []byte("\n      \"fingerprint\": \"fp-s07\""), []byte("\n    }\n      \"fingerprint\": \"fp-s07\""), 1)
	if bytes.Equal(early, data) {
		t.Fatal("no s07 fingerprint line to close early")
	}
	for name, d := range map[string][]byte{"many": data, "closed early": early, "cut": data[:len(data)/2], "none": []byte("{\n}\n")} {
		t.Run(name, func(t *testing.T) { sameIndexed(t, d) })
	}
	if l, err := readListingsIndexed(data, true); err != nil || len(l.servers) != 40 || len(l.projects) != 2 {
		t.Fatalf("read %v, %v; want 40 shared entries and 2 projects", l, err)
	}
}

// TestIndexAll: indexAll finds every place of sep, in order, in any number of pieces,
// sep straddling a piece's end included.
func TestIndexAll(t *testing.T) {
	t.Parallel()
	sep := []byte("\n    }")
	var data []byte
	var want []int
	for i := range 300 {
		data = append(data, strings.Repeat("x", i%11)...)
		if i%3 == 0 {
			want = append(want, len(data))
			data = append(data, sep...)
		} else {
			data = append(data, "\n     }"[:1+i%6]...) // a prefix of sep, or one space more
		}
	}
	for parts := 1; parts <= 9; parts++ {
		if got := indexAll(data, sep, parts); !slices.Equal(got, want) {
			t.Errorf("%d pieces: %v, want %v", parts, got, want)
		}
		for cut := 0; cut <= len(data); cut += 97 {
			var w []int
			for _, at := range want {
				if at+len(sep) <= cut {
					w = append(w, at)
				}
			}
			if got := indexAll(data[:cut], sep, parts); !slices.Equal(got, w) {
				t.Errorf("%d pieces of %d bytes: %v, want %v", parts, cut, got, w)
			}
		}
	}
}

// keptCases are values a schema or annotations line may hold: kept must say what oneValue
// says of each, whether goccy's Compact takes it or not, and that it is compact only when
// it is valid JSON that compacting gives back unchanged.
var keptCases = []struct {
	name, v       string
	want, compact bool
}{
	{"compact object", `{"type":"object","properties":{"a":{"type":"string"}}}`, true, true},
	{"empty object", `{}`, true, true},
	{"spaced inside", `{ "type" : "object", "properties" : { } }`, true, false},
	{"space after", `{"a":1} `, true, false},
	{"brackets in strings", `{"a":"}]{[","b":["}"]}`, true, true},
	{"escaped quotes", `{"a":"say \"}\" \\","b":"\\"}`, true, true},
	{"unicode escapes", `{"a":"\u007d\ud83d\ude00"}`, true, true},
	{"non-ASCII", `{"описание":"日本語 😀"}`, true, true},
	{"member after it", `{"a":1}, "name": "evil"`, false, false},
	{"closed early", `{"a":1}}`, false, false},
	{"second value", `{"a":1} {}`, false, false},
	{"not closed", `{"a":[1,2}`, false, false},
	{"cut in a string", `{"a":"b`, false, false},
	// Framed as the decoder frames it, invalid inside: Compact refuses it, oneValue
	// takes it (Decode says what is wrong after ready).
	{"bad scalar inside", `{"a":1x}`, true, false},
	{"comma first inside", `{,"a":1}`, true, false},
	{"control in a string", "{\"a\":\"\x01\"}", true, false},
	{"invalid UTF-8", "{\"a\":\"\xff\"}", true, true},
	{"deep", strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000), true, false},
}

func TestKeptIsOneValue(t *testing.T) {
	for _, c := range keptCases {
		t.Run(c.name, func(t *testing.T) {
			var r lines
			got, compact := r.kept([]byte(c.v))
			if got != c.want || got != oneValue([]byte(c.v)) {
				t.Errorf("kept = %v, oneValue = %v, want %v", got, oneValue([]byte(c.v)), c.want)
			}
			if compact != c.compact {
				t.Errorf("compact = %v, want %v", compact, c.compact)
			}
		})
	}
}

// FuzzKeptIsOneValue: kept (goccy's Compact first) says what oneValue says of any value,
// and a value it calls compact is valid JSON that encoding/json compacts to itself.
func FuzzKeptIsOneValue(f *testing.F) {
	for _, c := range keptCases {
		if len(c.v) < 1<<10 { // the deep one slows every mutation of it down
			f.Add([]byte(c.v))
		}
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		var r lines
		got, compact := r.kept(v)
		if want := oneValue(v); got != want {
			t.Errorf("kept(%q) = %v, oneValue = %v", v, got, want)
		}
		if compact && !compactsToItself(v) {
			t.Errorf("kept(%q) calls it compact; encoding/json compacts it otherwise or refuses it", v)
		}
	})
}

// compactsToItself says whether encoding/json takes v and compacts it to v.
func compactsToItself(v []byte) bool {
	var b bytes.Buffer
	return json.Compact(&b, v) == nil && bytes.Equal(b.Bytes(), v)
}

// TestReadHalves: a file read in two halves at once is os.ReadFile's bytes, also when it
// holds more or fewer bytes than the size it was read for (cut or grown in place meanwhile).
func TestReadHalves(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 100, parallelReadFrom - 1, parallelReadFrom, 3*parallelReadFrom + 7} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + i/251)
		}
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name  string
			delta int64
		}{{"as large as said", 0}, {"grown", -1000}, {"cut", 1000}, {"grown by one", -1}} {
			t.Run(fmt.Sprintf("%d bytes, %s", size, c.name), func(t *testing.T) {
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				got, err := readHalves(f, max(int64(size)+c.delta, 0))
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("read %d bytes (%v), want the file's %d", len(got), err, len(data))
				}
			})
		}
	}
	got, err := readWhole(filepath.Join(dir, "f"))
	if err != nil || len(got) != 3*parallelReadFrom+7 {
		t.Fatalf("readWhole: %d bytes, %v", len(got), err)
	}
}
