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

// answerOverLong answers a request the host sent on a line too long to read, when its id
// can be recovered, so the host does not wait its full deadline for nothing: a tool_call
// gets an error result, a command an error response, an intercept an allow (what the host
// assumes when we do not answer).
func (r *runner) answerOverLong(ol overLong) {
	fh := scanFrameHead(ol.head)
	if fh.id == "" {
		return
	}
	var b []byte
	var err error
	switch fh.typ {
	case "tool_call":
		res := ToolResult{IsError: true, Content: []Content{{Type: "text", Text: fmt.Sprintf(
			"tool call %s was not run: its frame is %d bytes, over the %d-byte line limit of the extension protocol. Call it again with smaller arguments (for large content, pass a file path instead).",
			fh.name, ol.n, MaxLine)}}}
		b, err = encodeToolResult(fh.id, res, r.sess.host.Generation())
	case "command_invoked":
		b, err = encodeCommandResponse(fh.id, CommandResponse{Error: fmt.Sprintf(
			"/%s was not run: its arguments make the frame %d bytes, over the %d-byte line limit", fh.name, ol.n, MaxLine)})
	case "event_intercept":
		b, err = marshalFrame(interceptResponseFrame{Type: "event_intercept_response", ID: fh.id})
	default:
		return
	}
	if err != nil {
		r.log.Error().Err(err).Str("id", fh.id).Str("type", fh.typ).Msg("cannot encode the answer to an over-long frame")
		return
	}
	r.log.Warn().Str("id", fh.id).Str("type", fh.typ).Str("name", fh.name).Int("bytes", ol.n).Msg("answered an over-long host frame")
	r.w.send(outFrame{b: b})
}
