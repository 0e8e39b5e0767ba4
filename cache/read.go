package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	gojson "github.com/goccy/go-json"
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
// decodes the catalog about five times faster than encoding/json (see
// BenchmarkRead) while validating the input just as strictly.
func decodeFile(data []byte) (f *File, err error) {
	defer func() {
		// The cache file may be damaged in any way; never let a decoder
		// bug on odd input take the bridge down at startup.
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("decoding failed: %v", r)
		}
	}()
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
	if f.Servers == nil {
		f.Servers = map[string]*Entry{}
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
	return f, nil
}

// cleanEntries drops the nil entries, compacts schemas spread over lines and sets each
// entry's Project.
func cleanEntries(entries map[string]*Entry, project string) {
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
