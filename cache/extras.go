package cache

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Resource is one MCP resource (resources/list) as its server lists it.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// ResourceTemplate is one MCP resource template (resources/templates/list).
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// PromptArgument is one argument of an MCP prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Prompt is one MCP prompt (prompts/list).
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// encodeExtras writes the entry's resources, templates and prompts after its tools, each
// list compact on one line and left out when empty, so an entry of a tools-only server
// reads exactly as before and older bridges (which ignore unknown keys) still load it.
// in starts each line (a newline and the entry's field indentation).
func encodeExtras(b *bytes.Buffer, e *Server, in string) error {
	for _, l := range []struct {
		key  string
		n    int
		list any
	}{
		{"resources", len(e.Resources), e.Resources},
		{"resourceTemplates", len(e.ResourceTemplates), e.ResourceTemplates},
		{"prompts", len(e.Prompts), e.Prompts},
	} {
		if l.n == 0 {
			continue
		}
		raw, err := json.Marshal(l.list)
		if err != nil {
			return err
		}
		b.WriteString("," + in + `"` + l.key + `": `)
		b.Write(raw)
	}
	return nil
}

// sameExtras reports whether two entries list the same resources, templates and prompts.
func sameExtras(a, b *Server) bool {
	return slices.Equal(a.Resources, b.Resources) && slices.Equal(a.ResourceTemplates, b.ResourceTemplates) &&
		slices.EqualFunc(a.Prompts, b.Prompts, func(x, y Prompt) bool {
			return x.Name == y.Name && x.Title == y.Title && x.Description == y.Description && slices.Equal(x.Arguments, y.Arguments)
		})
}
