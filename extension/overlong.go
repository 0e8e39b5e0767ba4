package extension

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// overLong is a host line that was too long to read, as far as it could be recovered.
type overLong struct {
	n    int    // the line's length
	head []byte // its first bytes
}

// frameHead is what could be read of a frame from the start of its line.
type frameHead struct {
	typ, id, name string
}

// scanFrameHead reads the top-level "type", "id" and "name" string members from the start
// of a JSON object that may be cut off anywhere. The host writes type and id first, so a
// tool_call whose arguments made the line too long can still be answered.
func scanFrameHead(head []byte) frameHead {
	var fh frameHead
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fh
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fh
		}
		key, _ := tok.(string)
		tok, err = dec.Token()
		if err != nil {
			return fh
		}
		if s, ok := tok.(string); ok {
			switch key {
			case "type":
				fh.typ = s
			case "id":
				fh.id = s
			case "name":
				fh.name = s
			}
			continue
		}
		if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
			// Skip a nested value token by token: it may be the part that was cut off.
			for depth := 1; depth > 0; {
				tok, err := dec.Token()
				if err != nil {
					return fh
				}
				switch tok {
				case json.Delim('{'), json.Delim('['):
					depth++
				case json.Delim('}'), json.Delim(']'):
					depth--
				}
			}
		}
	}
	return fh
}

// answerOverLong answers a tool_call the host sent on a line too long to read, when its id
// can be recovered, so the host does not wait its full deadline for nothing.
func (r *runner) answerOverLong(ol overLong) {
	fh := scanFrameHead(ol.head)
	if fh.typ != "tool_call" || fh.id == "" {
		return
	}
	r.log.Warn().Str("id", fh.id).Str("tool", fh.name).Int("bytes", ol.n).Msg("answering an over-long tool_call with an error")
	res := ToolResult{IsError: true, Content: []Content{{Type: "text", Text: fmt.Sprintf(
		"tool call %s was not run: its frame is %d bytes, over the %d-byte line limit of the extension protocol. Call it again with smaller arguments (for large content, pass a file path instead).",
		fh.name, ol.n, MaxLine)}}}
	b, err := encodeToolResult(fh.id, res, r.sess.host.Generation())
	if err != nil {
		r.log.Error().Err(err).Str("id", fh.id).Msg("cannot encode the over-long tool_call's result")
		return
	}
	r.w.send(outFrame{b: b})
}
