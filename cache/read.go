package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"

	gojson "github.com/goccy/go-json"

	"github.com/zot-mcp/mcp-bridge/internal/parallel"
)

// Read loads the cache file at path.
//
// A missing file gives an empty File and a nil error. A file that cannot be
// read, is not valid JSON or has a version other than Version gives an empty
// File and an error naming the path and saying that the file was ignored and
// will be rewritten on the next refresh; the caller should log it as a
// warning and go on. The returned File is never nil, its Servers map is never
// nil, and neither it nor Projects holds nil entries.
//
// Read is on the startup path: schemas are handed out as they are stored
// (compact, as Update writes them) and are never decoded.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return newFile(), nil
		}
		return newFile(), ignoredError(path, err)
	}
	f, err := decodeFile(data)
	if err != nil {
		return newFile(), ignoredError(path, err)
	}
	return f, nil
}

func ignoredError(path string, err error) error {
	return fmt.Errorf("tool cache %s ignored, it will be rewritten on the next refresh: %w", path, err)
}

// decodeFile parses a cache file. It uses github.com/goccy/go-json, which
// decodes the catalog several times faster than encoding/json (BenchmarkRead
// measures it) while validating the input just as strictly.
func decodeFile(data []byte) (f *File, err error) {
	defer func() {
		// The cache file may be damaged in any way; never let a decoder
		// bug on odd input take the bridge down at startup.
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("decoding failed: %v", r)
		}
	}()
	if f, ok := decodeSplit(data, splitFrom, min(runtime.GOMAXPROCS(0), 8)); ok {
		cleanFile(f)
		return f, nil
	}
	f = new(File)
	if err := gojson.Unmarshal(data, f); err != nil {
		var probe struct {
			Version int `json:"version"`
		}
		if gojson.Unmarshal(data, &probe) == nil && probe.Version != Version {
			return nil, versionError(probe.Version)
		}
		return nil, err
	}
	if f.Version != Version {
		return nil, versionError(f.Version)
	}
	cleanFile(f)
	return f, nil
}

// cleanFile gives a decoded file of this version what Read promises: a Servers map, no
// nil entries, each entry's Project set and no private listings of no project.
func cleanFile(f *File) {
	if f.Servers == nil {
		f.Servers = map[string]*Server{}
	}
	cleanEntries(f.Servers, "")
	for project, m := range f.Projects {
		if project == "" {
			// Never written: a private listing always names its project.
			delete(f.Projects, project)
			continue
		}
		cleanEntries(m, project)
		if len(m) == 0 {
			delete(f.Projects, project)
		}
	}
}

// splitFrom is the size of a servers object worth decoding in parts (decodeSplit).
const splitFrom = 1 << 20

// serversOpen starts every file encodeFile writes, up to the version's digits; after them
// comes serversAfter, then the servers' entries, each on a line of its own at the
// entries' indentation (entrySep between two), then serversClose.
const (
	serversOpen  = "{\n  \"version\": "
	serversAfter = ",\n  \"servers\": {"
	entrySep     = ",\n    \""
	serversClose = "\n  }"
)

// decodeSplit decodes a large file laid out as encodeFile writes it on up to GOMAXPROCS
// goroutines when its servers object has at least from bytes, in parts cut between entries: a large catalog decodes in
// a fraction of the time, inside the host's registration window. ok is false, and
// nothing is decoded, for a file of another layout (edited by hand), another version, a
// smaller one or one that does not decode; decodeFile then decodes it whole, and says why
// it cannot.
//
// It never reads a file otherwise than the whole decode would: the parts and the rest
// are the file's bytes cut at commas between members of the servers object, each part
// decoded as an object of its own and the rest with that object empty. If a cut fell
// anywhere but between two of its members (a layout like ours by chance), a part or the
// rest would not be valid JSON and the whole file is decoded instead. Members are merged
// in file order, so a name given twice keeps its last entry, as in the whole decode.
func decodeSplit(data []byte, from, workers int) (f *File, ok bool) {
	rest, found := bytes.CutPrefix(data, []byte(serversOpen))
	if !found {
		return nil, false
	}
	digits := 0
	for digits < len(rest) && '0' <= rest[digits] && rest[digits] <= '9' {
		digits++
	}
	if string(rest[:digits]) != strconv.Itoa(Version) || !bytes.HasPrefix(rest[digits:], []byte(serversAfter)) {
		return nil, false
	}
	start := len(serversOpen) + digits + len(serversAfter) // just after the servers object's '{'
	n := bytes.Index(data[start:], []byte(serversClose))
	if n < from || workers < 2 {
		return nil, false
	}
	// The rest: the file with an empty servers object, copied before the parts are
	// framed.
	head := make([]byte, 0, len(data)-n)
	head = append(append(head, data[:start]...), data[start+n:]...)
	parts := cutEntries(data, start, start+n, workers*2)
	// Each part is framed as an object in place, on bytes no other part reads: the
	// newline that starts it (the servers object's own brace for the first) and the comma
	// or newline that ends it. The decoder copies its input, so data is restored as soon
	// as every part is decoded.
	saved := make([]byte, 0, 2*len(parts))
	for _, p := range parts {
		saved = append(saved, data[p.from], data[p.to])
		data[p.from], data[p.to] = '{', '}'
	}
	defer func() {
		for i, p := range parts {
			data[p.from], data[p.to] = saved[2*i], saved[2*i+1]
		}
	}()
	decoded := make([]map[string]*Server, len(parts))
	failed := make([]bool, len(parts))
	wait := parallel.Start(len(parts), workers, func(i int) bool {
		decoded[i], failed[i] = decodePart(data[parts[i].from : parts[i].to+1])
		return true
	})
	f = new(File)
	restErr := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("decoding failed: %v", r)
			}
		}()
		return gojson.Unmarshal(head, f)
	}()
	wait()
	// A servers member in the rest too (a hand edit) would win in the whole decode and
	// lose here: such a file is decoded whole.
	if restErr != nil || f.Version != Version || slices.Contains(failed, true) || len(f.Servers) != 0 {
		return nil, false
	}
	if f.Servers == nil {
		f.Servers = map[string]*Server{}
	}
	for _, m := range decoded {
		maps.Copy(f.Servers, m)
	}
	return f, true
}

// part is one part of the servers object's members: data[from+1:to], framed as an
// object by data[from] and data[to].
type part struct{ from, to int }

// cutEntries cuts the servers object's members, data[start:end], into about n parts of
// similar size, each cut at an entrySep: a part ends at its comma, and the next one starts
// at the newline after it.
func cutEntries(data []byte, start, end, n int) []part {
	var parts []part
	size := (end-start)/n + 1
	from := start - 1 // the servers object's '{'
	for {
		i := -1
		if end-(from+1) > size {
			i = bytes.Index(data[from+1+size:end], []byte(entrySep))
		}
		if i < 0 {
			return append(parts, part{from: from, to: end}) // end: the newline of serversClose
		}
		comma := from + 1 + size + i
		parts = append(parts, part{from: from, to: comma})
		from = comma + 1
	}
}

// decodePart decodes a part of the servers object framed as an object of its own; failed
// when it is not one (the file is then decoded whole).
func decodePart(obj []byte) (m map[string]*Server, failed bool) {
	defer func() {
		if r := recover(); r != nil {
			m, failed = nil, true
		}
	}()
	if err := gojson.Unmarshal(obj, &m); err != nil {
		return nil, true
	}
	return m, false
}

// cleanEntries drops the nil entries, compacts schemas spread over lines and sets each
// entry's Project.
func cleanEntries(entries map[string]*Server, project string) {
	for name, e := range entries {
		if e == nil {
			delete(entries, name)
			continue
		}
		e.Project = project
		for i := range e.Tools {
			t := &e.Tools[i]
			t.InputSchema = compactLines(t.InputSchema)
			t.OutputSchema = compactLines(t.OutputSchema)
		}
	}
}

func versionError(v int) error {
	return fmt.Errorf("unknown version %d (this bridge reads version %d)", v, Version)
}

// compactLines compacts raw if it spans several lines (a hand-edited file),
// so that a schema can always be sent inside a one-line frame. Update writes
// schemas compact, so this is normally a single fast byte search.
func compactLines(raw json.RawMessage) json.RawMessage {
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		return raw
	}
	var b bytes.Buffer
	if gojson.Compact(&b, raw) != nil {
		return raw
	}
	return json.RawMessage(b.Bytes())
}
