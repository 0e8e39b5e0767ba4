package cache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"sync"

	gojson "github.com/goccy/go-json"

	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
	"github.com/zot-mcp/mcp-bridge/internal/parallel"
)

// ErrNotLaidOut is ReadListings' answer for a cache file that is not laid out line by
// line as this package writes it (edited by hand, written by another version, damaged):
// such a file is decoded instead (Listings.Decode).
var ErrNotLaidOut = errors.New("tool cache: not laid out as the bridge writes it")

// Listings is a cache file read by its lines (ReadListings): each entry's lines, read
// when it is asked for (Listing.Read), and the file's bytes for the whole decode after
// ready.
type Listings struct {
	path     string
	data     []byte
	servers  map[string]Listing
	projects map[string]map[string]Listing
}

// Listing is one entry of a cache file's Listings, not read yet.
type Listing struct {
	lines   []byte // the entry's member lines, newlines included
	pad     string // their indentation
	project string // the project of a private listing; "" for a shared one
}

// ReadListings reads the cache file at path for a start that registers from it without
// decoding it: it finds each entry's lines (every entry on lines of its own, one member
// a line, as encodeFile lays the file out), and Listing.Read reads an entry's fields
// that a start registers from. It gives ErrNotLaidOut for a file laid out otherwise,
// with listings that hold no entries, only the file's bytes for Decode (which decodes
// anything valid, as Read does); any other error is the file's reading. What it reads is checked
// as the decoder checks it (strings unquoted, annotations decoded); every value it skips
// (times, resources, prompts) or keeps as written (schemas), and every entry a start
// does not read (Listing.Check), is checked to be framed as the decoder frames it, so
// that valid JSON is never read otherwise than the decoder reads it. What is inside
// those values is not checked: only Decode says that the whole file is valid JSON
// (a start sends a schema the reader found compact as it is, and compacts any other). A
// missing file has no entries, as Read gives none.
//
// The file is read into memory, not mapped: a mapping dies (SIGBUS, which no recover
// catches) when the file is cut short in place while it is held, and it is held until the
// catalog is built after ready. Entries read from it point into those bytes.
func ReadListings(path string) (*Listings, error) {
	data, err := readWhole(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &Listings{path: path, servers: map[string]Listing{}}, nil
		}
		return nil, err
	}
	l, err := readListings(data)
	if err != nil {
		// Kept for Decode: the caller decodes the file without reading it again.
		return &Listings{path: path, data: data}, err
	}
	l.path = path
	return l, nil
}

// readWhole is os.ReadFile of path; a large file is read in two halves at once, which
// on a start's path (nothing else runs meanwhile) takes the kernel's copy and the faults
// of the fresh buffer's pages onto two cores.
func readWhole(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readHalves(f, info.Size())
}

// parallelReadFrom is the file size from which readWhole reads two halves at once.
const parallelReadFrom = 1 << 20

// readHalves reads f, whose size was size, in two halves at once; what reads otherwise
// than size said (the file was cut or grown in place meanwhile) is read again from its
// start as os.ReadFile reads it.
func readHalves(f *os.File, size int64) ([]byte, error) {
	if size < parallelReadFrom {
		return readFrom(f, size)
	}
	data := make([]byte, size)
	mid := size / 2
	var errs [2]error
	var wg sync.WaitGroup
	wg.Go(func() { _, errs[1] = f.ReadAt(data[mid:], mid) })
	_, errs[0] = f.ReadAt(data[:mid], 0)
	wg.Wait()
	var past [1]byte
	if n, err := f.ReadAt(past[:], size); errs[0] == nil && errs[1] == nil && n == 0 && err == io.EOF {
		return data, nil
	}
	return readFrom(f, size)
}

// readFrom reads f from its start to its end, into a buffer sized for about size bytes.
func readFrom(f *os.File, size int64) ([]byte, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, max(size, 0)+512))
	_, err := buf.ReadFrom(f)
	return buf.Bytes(), err
}

// View is the entries a session in project sees, by server name, as File.View gives
// them: the shared ones, with project's private listings in their place.
func (l *Listings) View(project string) map[string]Listing {
	return view(l.servers, l.projects, project)
}

// Others is every entry of the file that a start in project never reads (Listing.Read):
// all but those View(project) gives under a name read reports true for. The start
// Checks them instead.
func (l *Listings) Others(project string, read func(name string) bool) []Listing {
	own := l.projects[project]
	if project == "" {
		own = nil
	}
	var out []Listing
	for name, e := range l.servers {
		if _, mine := own[name]; mine || !read(name) {
			out = append(out, e)
		}
	}
	for p, m := range l.projects {
		for name, e := range m {
			if project == "" || p != project || !read(name) {
				out = append(out, e)
			}
		}
	}
	return out
}

// Decode is the whole file the listings were read from, decoded as Read decodes it (the
// same bytes: a change of the file since is not seen). Nothing it gives points into the
// file's bytes.
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

// Read reads what a start registers from of the entry: its Fingerprint, Instructions
// and Tools (schemas pointing into the file's bytes) and Project, every other field left
// zero. ErrNotLaidOut: the entry is not laid out as the bridge writes it (Read the file
// then). Entries may be read at once on several goroutines.
func (e Listing) Read() (*Server, error) {
	s, _, err := e.ReadCompact()
	return s, err
}

// ReadCompact is Read that also says, per tool of the entry (by index), whether its
// schemas are compact: each absent or one valid JSON value with no white space between
// its tokens, which compacting gives back unchanged. Update writes them so; the reader
// checks them anyway (by compacting them), so what frames them may copy them as they
// are instead of compacting them a second time (extension.AppendCompactToolPayload).
func (e Listing) ReadCompact() (*Server, []bool, error) {
	r := lines{data: e.lines}
	s, ok := r.entry(e.pad)
	if !ok || r.at != len(r.data) {
		return nil, nil, ErrNotLaidOut
	}
	s.Project = e.project
	return s, r.compacted, nil
}

// Check says whether the decoder reads the entry, one not read (Others), as the lines
// ReadListings found for it: lines that close it early (`"fingerprint": "x"}, "a": {`)
// would have the decoder read entries the reader never found. ErrNotLaidOut: it does not
// (Read the file then). What the entry holds is the decoder's to check, after ready.
func (e Listing) Check() error {
	if _, ok := framed([]byte("{"), e.lines); !ok {
		return ErrNotLaidOut
	}
	return nil
}

// readListings is ReadListings of the file's bytes.
func readListings(data []byte) (*Listings, error) {
	return readListingsIndexed(data, len(data) >= parallelReadFrom)
}

// readListingsIndexed is readListings; with index, where the shared entries end is found
// first, searching pieces of data at once (indexAll), rather than entry by entry.
func readListingsIndexed(data []byte, index bool) (*Listings, error) {
	r := lines{data: data}
	if !r.is("{") || !r.member("  ", "version") || string(r.value) != strconv.Itoa(Version) || !r.comma {
		return nil, ErrNotLaidOut
	}
	l := &Listings{data: data, servers: map[string]Listing{}}
	if index {
		// Finding where each shared entry ends is a search of nearly the whole file,
		// which would otherwise run on one core while the start waits.
		r.closings = indexAll(data, closingLine(sharedPad), 2)
	}
	if !r.member("  ", "servers") || !r.entries("  ", l.servers, "") {
		return nil, ErrNotLaidOut
	}
	if r.comma {
		if !r.member("  ", "projects") || string(r.value) != "{" {
			return nil, ErrNotLaidOut
		}
		l.projects = map[string]map[string]Listing{}
		for more := true; more; {
			// "    \"<project>\": {" then its entries, closed at the project's indentation.
			if !r.member("    ", "") {
				return nil, ErrNotLaidOut
			}
			project, ok := jsonscan.Unquote(r.key)
			m := map[string]Listing{}
			if _, dup := l.projects[project]; !ok || project == "" || dup || !r.entries("    ", m, project) {
				return nil, ErrNotLaidOut
			}
			l.projects[project] = m
			more = r.comma
		}
		if !r.is("  }") {
			return nil, ErrNotLaidOut
		}
	}
	if !r.is("}") || r.at != len(data) {
		return nil, ErrNotLaidOut
	}
	return l, nil
}

// lines reads a file laid out by encodeFile, one line at a time.
type lines struct {
	data []byte
	at   int // start of the next line
	// The last member read (member): its key with quotes, its value and whether a comma
	// ended the line.
	key, value []byte
	comma      bool
	compact    bytes.Buffer // kept's output, thrown away
	// compacted says, per tool read (tools), whether its schemas are compact
	// (Listing.ReadCompact).
	compacted []bool
	// closings, when not nil, are the places in data of every closing line of a shared
	// entry ("\n" and its indentation, then "}"), in order: entries looks them up there
	// instead of searching the data.
	closings []int
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

// sharedPad is the indent of the shared servers' map in the file: its entries'
// ends are what indexAll finds ahead.
const sharedPad = "  "

// closingLine is the line that closes an entry of a map at pad: an entry's
// members are indented further, so the first line at pad+"  " that starts
// with its brace closes it.
func closingLine(pad string) []byte { return []byte("\n" + pad + "  }") }

// entries finds the entries of the object of server entries whose key line was just
// read (its value "{", or "{}" for none) and puts their lines in m, for project ("" for
// the shared ones); the object's closing brace is at pad. Afterwards comma says whether
// another member follows it.
func (r *lines) entries(pad string, m map[string]Listing, project string) bool {
	switch string(r.value) {
	case "{}":
		return true
	case "{":
	default:
		return false
	}
	in := pad + "  "
	closing := closingLine(pad)
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
		end := -1
		if from := r.at - 1; r.closings != nil && pad == sharedPad {
			// The first closing line at or after from, as searching from there finds.
			for len(r.closings) > 0 && r.closings[0] < from {
				r.closings = r.closings[1:]
			}
			if len(r.closings) > 0 {
				end = r.closings[0] - from
			}
		} else {
			end = bytes.Index(r.data[from:], closing)
		}
		if end < 0 {
			return false
		}
		m[name] = Listing{lines: r.data[r.at : r.at+end], pad: in + "  ", project: project}
		r.at += end
		// The entry's closing brace, a comma when another follows; then the object's.
		if !r.closes(in + "}") {
			return false
		}
		if !r.comma {
			return r.closes(pad + "}")
		}
	}
}

// indexAll lists every place in data where sep starts, in order, searching parts pieces
// of data at once (sep must not overlap itself, as a line's "\n" and indentation then a
// brace does not: every place is then one search's find).
func indexAll(data, sep []byte, parts int) []int {
	found := make([][]int, parts)
	size := (len(data) + parts - 1) / parts
	parallel.Each(parts, parts, func(k int) {
		// Piece k holds the places from k*size on, before (k+1)*size: a sep that starts
		// in it may end in the next one.
		start := min(k*size, len(data))
		end := min(start+size, len(data))
		in := data[start:min(end+len(sep)-1, len(data))]
		for at := 0; at < end-start; {
			i := bytes.Index(in[at:], sep)
			if i < 0 || at+i >= end-start {
				break
			}
			found[k] = append(found[k], start+at+i)
			at += i + len(sep)
		}
	})
	return slices.Concat(found...)
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
		key := r.key[1 : len(r.key)-1]
		for k < len(entryKeys) && entryKeys[k] != string(key) {
			k++
		}
		if k == len(entryKeys) {
			return nil, false // unknown, repeated or out of order
		}
		name := entryKeys[k]
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
		default:
			// Skipped, but the decoder must read the line as this member alone.
			if !oneValue(r.value) {
				return nil, false
			}
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
		named, compact := false, true
		k := 0
		for more := true; more; {
			if !r.member(in, "") {
				return false
			}
			key := r.key[1 : len(r.key)-1]
			for k < len(toolKeys) && toolKeys[k] != string(key) {
				k++
			}
			if k == len(toolKeys) {
				return false
			}
			name := toolKeys[k]
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
				asIs := false
				if ok = v[0] == '{'; ok {
					ok, asIs = r.kept(v)
				}
				if compact = compact && asIs; name == "inputSchema" {
					t.InputSchema = v
				} else {
					t.OutputSchema = v
				}
			case "annotations":
				if ok = r.value[0] == '{'; ok {
					ok, _ = r.kept(r.value)
				}
				if ok {
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
		r.compacted = append(r.compacted, compact)
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

// oneValue says whether v is exactly one JSON value, framed as the decoder frames it
// (jsonscan.Members): a value the reader skips or keeps as written that ends before the
// line does (`"a", "fingerprint": "b"`) would have the decoder read members the reader
// never saw. What is inside a nested value is not checked: a file invalid there fails
// the decode after ready (Decode), which says so.
func oneValue(v []byte) bool {
	members, ok := framed([]byte(`{"":`), v)
	return ok && members == 1
}

// kept is oneValue for a value the reader keeps as written (a schema, annotations), of
// which there is one or more per tool: nearly all are valid compact JSON as Update writes
// it, which goccy's Compact tells in a fraction of oneValue's time, and a value that is
// one valid JSON value is framed as the decoder frames it. Any other value (Compact
// refuses it, or panics) is oneValue's to judge, so ok says what oneValue says. compact
// says that v is valid JSON that compacting gives back unchanged (Compact only leaves
// white space out, so its output is v when it is as long).
func (r *lines) kept(v []byte) (ok, compact bool) {
	if r.compacts(v) {
		return true, r.compact.Len() == len(v)
	}
	return oneValue(v), false
}

// compacts says whether goccy's Compact takes v.
func (r *lines) compacts(v []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	r.compact.Reset()
	return gojson.Compact(&r.compact, v) == nil
}

// framed feeds head, then body, then a closing brace to a member scanner, and says
// whether the object head opens closes exactly at that brace, and how many members it
// had.
func framed(head, body []byte) (members int, ok bool) {
	var s jsonscan.Members
	pieces := [...][]byte{head, body, []byte("}")}
	for i, p := range pieces {
		for len(p) > 0 {
			n, ev := s.Step(p)
			p = p[n:]
			switch ev {
			case jsonscan.ValueEnd:
				members++
			case jsonscan.Closed:
				return members, i == len(pieces)-1 && len(p) == 0
			case jsonscan.Stopped:
				return members, false
			}
		}
	}
	return members, false
}
