package cache

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	gojson "github.com/goccy/go-json"

	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
)

// ErrNotLaidOut is ReadListings' answer for a cache file that is not laid out line by
// line as this package writes it (edited by hand, written by another version, damaged):
// such a file is read with Read.
var ErrNotLaidOut = errors.New("tool cache: not laid out as the bridge writes it")

// Listings is a cache file read by its lines (ReadListings): what a start registers
// from, and the file's bytes for the whole decode after ready.
type Listings struct {
	// File holds per entry (shared and private) its Fingerprint, Instructions and Tools,
	// every other field zero; schemas point into the file's bytes.
	*File
	path string
	data []byte
}

// ReadListings reads what a start registers from the cache file at path without decoding
// the file (Listings.File). It reads the file line by line as encodeFile lays it out, one
// member per line, and gives ErrNotLaidOut for a file laid out otherwise (the caller then
// uses Read, which decodes anything valid). The members it reads are checked as the
// decoder checks them (strings unquoted, annotations decoded); the values of the members
// it skips (times, resources, prompts) and the schemas are not, so only Decode says that
// the whole file is valid JSON: what a start sends of a schema is compacted by the
// extension, which checks it. A missing file gives an empty File, as Read.
func ReadListings(path string) (*Listings, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &Listings{File: newFile(), path: path}, nil
		}
		return nil, err
	}
	f, err := readListings(data)
	if err != nil {
		return nil, err
	}
	return &Listings{File: f, path: path, data: data}, nil
}

// Decode is the whole file the listings were read from, decoded as Read decodes it (the
// same bytes: a change of the file since is not seen).
func (l *Listings) Decode() (*File, error) {
	if l.data == nil {
		return newFile(), nil // it was missing
	}
	f, err := decodeFile(l.data)
	if err != nil {
		return newFile(), ignoredError(l.path, err)
	}
	return f, nil
}

// readListings is ReadListings of the file's bytes.
func readListings(data []byte) (*File, error) {
	r := lines{data: data}
	if !r.is("{") || !r.member("  ", "version") || string(r.value) != strconv.Itoa(Version) || !r.comma {
		return nil, ErrNotLaidOut
	}
	f := newFile()
	if !r.member("  ", "servers") || !r.entries("  ", f.Servers, "") {
		return nil, ErrNotLaidOut
	}
	if r.comma {
		if !r.member("  ", "projects") || string(r.value) != "{" {
			return nil, ErrNotLaidOut
		}
		f.Projects = map[string]map[string]*Server{}
		for more := true; more; {
			// "    \"<project>\": {" then its entries, closed at the project's indentation.
			if !r.member("    ", "") {
				return nil, ErrNotLaidOut
			}
			project, ok := jsonscan.Unquote(r.key)
			m := map[string]*Server{}
			if !ok || project == "" || f.Projects[project] != nil || !r.entries("    ", m, project) {
				return nil, ErrNotLaidOut
			}
			if len(m) > 0 {
				f.Projects[project] = m
			}
			more = r.comma
		}
		if !r.is("  }") {
			return nil, ErrNotLaidOut
		}
	}
	if !r.is("}") || r.at != len(data) {
		return nil, ErrNotLaidOut
	}
	if len(f.Projects) == 0 {
		f.Projects = nil
	}
	return f, nil
}

// lines reads a file laid out by encodeFile, one line at a time.
type lines struct {
	data []byte
	at   int // start of the next line
	// The last member read (member): its key with quotes, its value and whether a comma
	// ended the line.
	key, value []byte
	comma      bool
}

// next returns the next line without its newline (it shares the file's bytes); nil past
// the end.
func (r *lines) next() []byte {
	if r.at >= len(r.data) {
		return nil
	}
	line := r.data[r.at:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
		r.at += i + 1
	} else {
		r.at = len(r.data)
	}
	return line
}

// is reads the next line and reports whether it is want.
func (r *lines) is(want string) bool { return string(r.next()) == want }

// closes reads the next line as the closing line of an object or array, close at its
// indentation, setting comma to whether another member follows it.
func (r *lines) closes(close string) bool {
	line := r.next()
	rest, ok := bytes.CutPrefix(line, []byte(close))
	if !ok || len(rest) > 1 || len(rest) == 1 && rest[0] != ',' {
		return false
	}
	r.comma = len(rest) == 1
	return true
}

// member reads the next line as a member `<pad>"<key>": <value>[,]` of the given key ("":
// any key, escapes as written), setting key, value and comma.
func (r *lines) member(pad, key string) bool {
	return r.parse(r.next(), pad, key)
}

// parse is member of line.
func (r *lines) parse(line []byte, pad, key string) bool {
	rest, ok := bytes.CutPrefix(line, []byte(pad))
	if !ok || len(rest) < 2 || rest[0] != '"' {
		return false
	}
	end := bytes.Index(rest[1:], []byte(`": `))
	if end < 0 {
		return false
	}
	// The first `": ` ends the key unless an escaped quote precedes it: the caller's
	// Unquote refuses such a key, and the file is left to Read.
	k := rest[:end+2]
	if key != "" && string(k[1:len(k)-1]) != key {
		return false
	}
	v := rest[end+4:]
	r.comma = len(v) > 0 && v[len(v)-1] == ','
	if r.comma {
		v = v[:len(v)-1]
	}
	if len(v) == 0 {
		return false
	}
	r.key, r.value = k, v
	return true
}

// entries reads the object of server entries whose key line was just read (its value
// "{", or "{}" for none) into m, for project ("" for the shared ones); the object's
// closing brace is at pad. Afterwards comma says whether another member follows it.
func (r *lines) entries(pad string, m map[string]*Server, project string) bool {
	switch string(r.value) {
	case "{}":
		return true
	case "{":
	default:
		return false
	}
	in := pad + "  "
	for {
		if !r.member(in, "") || string(r.value) != "{" {
			return false
		}
		name, ok := jsonscan.Unquote(r.key)
		if !ok {
			return false
		}
		if _, dup := m[name]; dup {
			return false // the decoder keeps the last: Read says what it is
		}
		e, ok := r.entry(in + "  ")
		if !ok {
			return false
		}
		e.Project = project
		m[name] = e
		// The entry's closing brace, a comma when another follows; then the object's.
		if !r.closes(in + "}") {
			return false
		}
		if !r.comma {
			return r.closes(pad + "}")
		}
	}
}

// entryKeys are the members encodeEntry writes, in its order; tools is where the tools'
// lines start.
var entryKeys = [...]string{"fingerprint", "transport", "protocol", "protocolKey", "serverName", "instructions",
	"updatedAt", "refreshDue", "tools", "resources", "resourceTemplates", "prompts"}

// entry reads one server entry's members at pad, up to (not including) its closing line.
func (r *lines) entry(pad string) (*Server, bool) {
	e := &Server{}
	fingerprint := false
	k := 0 // entryKeys[k:] may come next
	for more := true; more; {
		if !r.member(pad, "") {
			return nil, false
		}
		name := string(r.key[1 : len(r.key)-1])
		for k < len(entryKeys) && entryKeys[k] != name {
			k++
		}
		if k == len(entryKeys) {
			return nil, false // unknown, repeated or out of order
		}
		k++
		more = r.comma
		switch name {
		case "fingerprint", "instructions":
			s, ok := jsonscan.Unquote(r.value)
			if !ok {
				return nil, false
			}
			if name == "fingerprint" {
				e.Fingerprint, fingerprint = s, true
			} else {
				e.Instructions = s
			}
		case "tools":
			if !r.tools(pad, e) {
				return nil, false
			}
			more = r.comma
		}
	}
	if !fingerprint {
		return nil, false // always written
	}
	return e, true
}

// toolKeys are the members encodeTool writes, in its order.
var toolKeys = [...]string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}

// tools reads an entry's tools array, whose key line was just read, to its closing line
// at pad; comma then says whether another member of the entry follows.
func (r *lines) tools(pad string, e *Server) bool {
	switch string(r.value) {
	case "[]":
		e.Tools = []Tool{}
		return true
	case "[":
	default:
		return false
	}
	open, in := pad+"  {", pad+"    "
	for {
		if !r.is(open) {
			return false
		}
		var t Tool
		named := false
		k := 0
		for more := true; more; {
			if !r.member(in, "") {
				return false
			}
			name := string(r.key[1 : len(r.key)-1])
			for k < len(toolKeys) && toolKeys[k] != name {
				k++
			}
			if k == len(toolKeys) {
				return false
			}
			k++
			more = r.comma
			var ok bool
			switch name {
			case "name":
				t.Name, ok = jsonscan.Unquote(r.value)
				named = ok
			case "title":
				t.Title, ok = jsonscan.Unquote(r.value)
			case "description":
				t.Description, ok = jsonscan.Unquote(r.value)
			case "inputSchema", "outputSchema":
				// An object, as Update writes it; anything else is Read's to judge.
				v := r.value[:len(r.value):len(r.value)]
				if ok = v[0] == '{'; name == "inputSchema" {
					t.InputSchema = v
				} else {
					t.OutputSchema = v
				}
			case "annotations":
				if ok = r.value[0] == '{'; ok {
					t.Annotations = new(Annotations)
					ok = decodeAnnotations(r.value, t.Annotations) == nil
				}
			}
			if !ok {
				return false
			}
		}
		if !named || t.InputSchema == nil {
			return false // both always written
		}
		e.Tools = append(e.Tools, t)
		if !r.closes(pad + "  }") {
			return false
		}
		if !r.comma {
			return r.closes(pad + "]")
		}
	}
}

// decodeAnnotations decodes a tool's annotations as Read does.
func decodeAnnotations(raw []byte, a *Annotations) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("decoding failed: %v", p)
		}
	}()
	return gojson.Unmarshal(raw, a)
}
