// Package templates holds the server templates offered by `/mcp setup add` as data: each
// is a ready mcpServers entry that refers to secrets only through ${VAR} references.
package templates

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
)

//go:embed templates.json
var data []byte

// Template is one named server entry.
type Template struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Vars        []string        `json:"vars,omitempty"` // environment variables the entry refers to
	Server      json.RawMessage `json:"server"`         // the mcpServers entry, as written to mcp.json
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
