package extension

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"

	"github.com/zot-mcp/mcp-bridge/internal/plainjson"
)

// maxFrame is the largest encoded frame (without its '\n') that may be
// written: the frame plus its newline must stay below MaxLine.
const maxFrame = MaxLine - 2

// emptyObjectSchema replaces a missing or invalid tool schema.
const emptyObjectSchema = `{"type":"object","properties":{}}`

// AppendToolFrame appends the register_tool frame for t to dst and returns the
// extended slice. It is meant for callers that cache encoded frames and replay
// them later (Registrations.AddPayload, Session.RegisterEncoded). The frame is one JSON object
// without a trailing newline; its keys come in the order type, name,
// description, schema, then deferred, interactive, output_schema, namespace,
// namespace_description and namespace_instructions when set.
//
// Schemas are compacted, so a pretty-printed schema still yields a single
// line. An empty or invalid Schema is replaced by an empty object schema and
// an invalid OutputSchema is left out; use Registrations.AddTool to have such
// input reported as an error instead.
func AppendToolFrame(dst []byte, t Tool) []byte {
	dst = append(dst, `{"type":"register_tool","name":`...)
	dst = appendJSONString(dst, t.Name)
	return append(appendToolMembers(append(dst, ','), t, false), '}')
}

// appendToolMembers appends the members of t's frame after its name (AppendToolFrame),
// without the braces. compact: the caller vouches that t's schemas are each empty or
// valid JSON that compacting gives back unchanged, so they are copied as they are (the
// same bytes).
func appendToolMembers(dst []byte, t Tool, compact bool) []byte {
	dst = append(dst, `"description":`...)
	dst = appendJSONString2(dst, t.Description, t.DescriptionSuffix)
	dst = append(dst, `,"schema":`...)
	if compact && len(t.Schema) > 0 {
		dst = append(dst, t.Schema...)
	} else {
		dst = appendCompactJSON(dst, t.Schema, emptyObjectSchema)
	}
	if t.Deferred {
		dst = append(dst, `,"deferred":true`...)
	}
	if t.Interactive {
		dst = append(dst, `,"interactive":true`...)
	}
	switch {
	case compact:
		if len(t.OutputSchema) > 0 {
			dst = append(append(dst, `,"output_schema":`...), t.OutputSchema...)
		}
	case len(bytes.TrimSpace(t.OutputSchema)) > 0 && gojson.Valid(t.OutputSchema):
		dst = append(dst, `,"output_schema":`...)
		dst = appendCompactJSON(dst, t.OutputSchema, "{}")
	}
	return appendNamespace(dst, t.Namespace)
}

// appendNamespace appends ns's non-empty fields as members of a register_tool frame, each
// preceded by a comma.
func appendNamespace(dst []byte, ns Namespace) []byte {
	for _, f := range [...]struct{ key, val string }{
		{`,"namespace":`, ns.Name},
		{`,"namespace_description":`, ns.Description},
		{`,"namespace_instructions":`, ns.Instructions},
	} {
		if f.val != "" {
			dst = appendJSONString(append(dst, f.key...), f.val)
		}
	}
	return dst
}

// appendCompactJSON appends raw compacted, or fallback when raw is empty or
// not valid JSON. It uses github.com/goccy/go-json's Compact, which gives the
// same output and the same verdict on invalid input as encoding/json's but
// copies an input that is already compact and valid (every cached schema)
// far faster: this is on the startup path, once per cached tool.
func appendCompactJSON(dst []byte, raw json.RawMessage, fallback string) []byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		return append(dst, fallback...)
	}
	buf := bytes.NewBuffer(dst)
	if err := gojson.Compact(buf, raw); err != nil {
		// The buffer never rewrites dst's first len(dst) bytes; anything it
		// appended after them is simply overwritten.
		return append(dst, fallback...)
	}
	return buf.Bytes()
}

// appendJSONString appends s as a JSON string literal. Invalid UTF-8 is
// replaced by U+FFFD, as encoding/json does.
func appendJSONString(dst []byte, s string) []byte {
	return append(appendJSONChars(append(dst, '"'), s), '"')
}

// appendJSONString2 is appendJSONString(dst, s+more), without making s+more.
func appendJSONString2(dst []byte, s, more string) []byte {
	if more != "" && more[0] >= utf8.RuneSelf {
		// A rune cut at the end of s may go on in more: escaped apart, its bytes would
		// each become U+FFFD.
		return appendJSONString(dst, s+more)
	}
	return append(appendJSONChars(appendJSONChars(append(dst, '"'), s), more), '"')
}

// appendJSONChars appends s as the inside of a JSON string literal.
func appendJSONChars(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// marshalFrame encodes v as one compact JSON line without HTML escaping and
// without the trailing newline.
func marshalFrame(v any) ([]byte, error) { return plainjson.Marshal(v) }

// helloFrame is the first line on stdout.
type helloFrame struct {
	Type         string   `json:"type"`
	Name         string   `json:"name"`
	Version      string   `json:"version"`
	Capabilities []string `json:"capabilities"`
}

// panelFrame is the wire form of a Panel.
type panelFrame struct {
	ID     string   `json:"id"`
	Title  string   `json:"title,omitempty"`
	Lines  []string `json:"lines"`
	Footer string   `json:"footer,omitempty"`
}

// commandResponseFrame is the wire form of a CommandResponse.
type commandResponseFrame struct {
	Type      string      `json:"type"`
	ID        string      `json:"id"`
	Action    string      `json:"action"`
	Prompt    string      `json:"prompt,omitempty"`
	Insert    string      `json:"insert,omitempty"`
	Display   string      `json:"display,omitempty"`
	OpenPanel *panelFrame `json:"open_panel,omitempty"`
	Error     string      `json:"error,omitempty"`
}

// encodeCommandResponse encodes r as the command_response frame for id. An
// empty action becomes noop. A response that would not fit in a line is
// replaced by a noop carrying an error, so the host is not left waiting.
func encodeCommandResponse(id string, r CommandResponse) ([]byte, error) {
	f := commandResponseFrame{
		Type:    "command_response",
		ID:      id,
		Action:  r.Action,
		Prompt:  r.Prompt,
		Insert:  r.Insert,
		Display: r.Display,
		Error:   r.Error,
	}
	if f.Action == "" {
		f.Action = "noop"
	}
	if r.Panel != nil {
		p := &panelFrame{ID: r.Panel.ID, Title: r.Panel.Title, Lines: r.Panel.Lines, Footer: r.Panel.Footer}
		if p.Lines == nil {
			p.Lines = []string{}
		}
		f.OpenPanel = p
	}
	b, err := marshalFrame(f)
	if err != nil {
		return nil, err
	}
	if len(b) <= maxFrame {
		return b, nil
	}
	return marshalFrame(commandResponseFrame{
		Type:   "command_response",
		ID:     id,
		Action: "noop",
		Error:  fmt.Sprintf("command response too large to deliver (%d bytes; the limit is %d)", len(b), maxFrame),
	})
}
