// Package templates holds the server templates offered by `/mcp setup add` as data: each
// is a ready mcpServers entry that refers to secrets only through ${VAR} references.
package templates

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed templates.json
var data []byte

// Template is one named server entry.
type Template struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Vars        []string        `json:"vars,omitempty"` // environment variables the entry refers to
	Server      json.RawMessage `json:"server"`         // the mcpServers entry, as written to mcp.json
	// Path, when set, means the entry runs something from a local directory the user
	// names with --path; every PathPlaceholder in Server's strings becomes that directory.
	Path *PathParam `json:"path,omitempty"`
	// Notes are shown when the template is added: what to pin, what never to write.
	Notes []string `json:"notes,omitempty"`
}

// PathParam describes the directory a template needs.
type PathParam struct {
	What        string `json:"what"`        // what the directory is, for messages
	MustContain string `json:"mustContain"` // a file below it (slash-separated) that proves it is the right one
}

// PathPlaceholder stands for the --path directory in a template's server entry.
const PathPlaceholder = "{path}"

// Entry returns the server entry to write to mcp.json. dir is the --path value, "" when
// none was given: a template with Path needs one, an absolute path to an existing
// directory holding Path.MustContain (mcp.json is read from any project directory, so a
// relative path would point somewhere else); a template without Path takes none.
func (t Template) Entry(dir string) (json.RawMessage, error) {
	if t.Path == nil {
		if dir != "" {
			return nil, fmt.Errorf("template %q takes no --path", t.Name)
		}
		return t.Server, nil
	}
	if dir == "" {
		return nil, fmt.Errorf("template %q needs --path DIR: the absolute path of %s", t.Name, t.Path.What)
	}
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("--path %q is relative; give the absolute path of %s (mcp.json is used from every project directory)", dir, t.Path.What)
	}
	dir = filepath.Clean(dir)
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("--path %s: %w; give the absolute path of %s", dir, err, t.Path.What)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("--path %s is not a directory; give the absolute path of %s", dir, t.Path.What)
	}
	if t.Path.MustContain != "" {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(t.Path.MustContain))); err != nil {
			return nil, fmt.Errorf("--path %s has no %s; is it %s?", dir, t.Path.MustContain, t.Path.What)
		}
	}
	var v any
	if err := json.Unmarshal(t.Server, &v); err != nil {
		return nil, fmt.Errorf("template %q: %w", t.Name, err)
	}
	out, err := json.Marshal(fillPath(v, filepath.ToSlash(dir)))
	if err != nil {
		return nil, fmt.Errorf("template %q: %w", t.Name, err)
	}
	return out, nil
}

// fillPath replaces PathPlaceholder in every string of a decoded JSON value.
func fillPath(v any, dir string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, PathPlaceholder, dir)
	case []any:
		for i, e := range x {
			x[i] = fillPath(e, dir)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = fillPath(e, dir)
		}
	}
	return v
}

// All returns every template sorted by name. It fails only if the embedded data is broken,
// which the package tests rule out.
func All() ([]Template, error) {
	var ts []Template
	if err := json.Unmarshal(data, &ts); err != nil {
		return nil, fmt.Errorf("templates.json: %w", err)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	return ts, nil
}

// Get returns the template called name.
func Get(name string) (Template, bool) {
	ts, err := All()
	if err != nil {
		return Template{}, false
	}
	for _, t := range ts {
		if t.Name == name {
			return t, true
		}
	}
	return Template{}, false
}
