package trust

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/zot-mcp/mcp-bridge/cache"
)

// A server the user approved could change its tools afterwards: turn a description into an
// instruction for the model, or add a tool. So an approval pins each tool: its name and the
// fingerprint of its definition (ToolFingerprint). A tool whose definition differs from
// its pin, or that has no pin, is held back until the user approves the tools again. A
// renamed tool is a removed one plus an added one, so a rename never carries an approval.

// toolPurpose tags the pinned definition, so its hash never equals another fingerprint.
const toolPurpose = "mcp-bridge tool pin v1"

// definitionJSON is the canonical JSON that ToolFingerprint hashes: everything of a tool
// that the model is shown or that decides what a call sends, in a fixed order, schemas
// canonical (canonicalJSON), absent parts as null:
//
//	{"purpose":…,"name":…,"title":…,"description":…,"inputSchema":…,"outputSchema":…,"annotations":…}
//
// The input schema is normalized as the cache stores it first, so a live listing and its
// cached copy give the same bytes. Built by hand: it runs for every tool of every pinned
// server, and encoding a struct would check the canonical parts once more.
func definitionJSON(t *cache.Tool) []byte {
	in := canonicalJSON(cache.NormalizeSchema(t.InputSchema))
	out := canonicalJSON(t.OutputSchema)
	b := make([]byte, 0, 128+len(t.Name)+len(t.Title)+len(t.Description)+len(in)+len(out))
	b = append(b, `{"purpose":"`+toolPurpose+`","name":`...)
	b = appendJSONString(b, t.Name)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, t.Title)
	b = append(b, `,"description":`...)
	b = appendJSONString(b, t.Description)
	b = append(append(b, `,"inputSchema":`...), in...)
	b = append(append(b, `,"outputSchema":`...), out...)
	b = append(append(b, `,"annotations":`...), annotationsJSON(t.Annotations)...)
	return append(b, '}')
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// ToolFingerprint is the hex SHA-256 of t's canonical definition: name, title,
// description, input and output schema, and annotations. Any change of those changes it.
func ToolFingerprint(t *cache.Tool) string {
	return hashHex(definitionJSON(t))
}

// PinsOf pins tools: tool name → ToolFingerprint. A name listed twice keeps its first
// definition, as the catalog does.
func PinsOf(tools []cache.Tool) map[string]string {
	pins := make(map[string]string, len(tools))
	for i := range tools {
		if _, dup := pins[tools[i].Name]; !dup {
			pins[tools[i].Name] = ToolFingerprint(&tools[i])
		}
	}
	return pins
}

// Changes is how a server's tools differ from its pinned ones, each list sorted.
type Changes struct {
	Added   []string // listed but not pinned (new, or a new name of a renamed tool)
	Changed []string // pinned, with another definition now
	Removed []string // pinned but no longer listed
}

// Empty reports whether the tools are the pinned ones.
func (c Changes) Empty() bool { return len(c.Added)+len(c.Changed)+len(c.Removed) == 0 }

// Held lists the tools held back until the user approves them: the added and the
// changed ones, sorted.
func (c Changes) Held() []string {
	held := append(slices.Clone(c.Added), c.Changed...)
	slices.Sort(held)
	return held
}

// Compare says how tools differ from pins. With nil pins (none pinned yet) nothing
// differs.
func Compare(pins map[string]string, tools []cache.Tool) Changes {
	var c Changes
	if pins == nil {
		return c
	}
	listed := PinsOf(tools)
	for name, fp := range listed {
		switch old, ok := pins[name]; {
		case !ok:
			c.Added = append(c.Added, name)
		case old != fp:
			c.Changed = append(c.Changed, name)
		}
	}
	for name := range pins {
		if _, ok := listed[name]; !ok {
			c.Removed = append(c.Removed, name)
		}
	}
	slices.Sort(c.Added)
	slices.Sort(c.Changed)
	slices.Sort(c.Removed)
	return c
}

// Held reports whether a tool with that name and fingerprint is held back by pins: nil
// pins hold nothing back; otherwise every tool without the same pin is held.
func Held(pins map[string]string, name, fingerprint string) bool {
	return pins != nil && pins[name] != fingerprint
}

// ChangedParts names what differs between two definitions of a tool: "title",
// "description", "input schema", "output schema", "annotations", in that order.
func ChangedParts(old, cur *cache.Tool) []string {
	var parts []string
	if old.Title != cur.Title {
		parts = append(parts, "title")
	}
	if old.Description != cur.Description {
		parts = append(parts, "description")
	}
	if !bytes.Equal(canonicalJSON(cache.NormalizeSchema(old.InputSchema)), canonicalJSON(cache.NormalizeSchema(cur.InputSchema))) {
		parts = append(parts, "input schema")
	}
	if !bytes.Equal(canonicalJSON(old.OutputSchema), canonicalJSON(cur.OutputSchema)) {
		parts = append(parts, "output schema")
	}
	if !bytes.Equal(annotationsJSON(old.Annotations), annotationsJSON(cur.Annotations)) {
		parts = append(parts, "annotations")
	}
	return parts
}

// annotationsJSON is the canonical JSON of a tool's annotations: null when it has none
// (an empty set included).
func annotationsJSON(a *cache.Annotations) []byte {
	if a != nil && a.Title == "" && a.ReadOnlyHint == nil && a.DestructiveHint == nil && a.IdempotentHint == nil && a.OpenWorldHint == nil {
		a = nil
	}
	b, _ := json.Marshal(a)
	return b
}
