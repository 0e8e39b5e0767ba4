package extension

import (
	"fmt"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
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
	for m := range jsonscan.NewObject(head).All() {
		var dst *string
		switch {
		case m.Is("type"):
			dst = &fh.typ
		case m.Is("id"):
			dst = &fh.id
		case m.Is("name"):
			dst = &fh.name
		default:
			continue
		}
		if s, ok := m.Text(); ok {
			*dst = s
		}
	}
	return fh
}

// answerOverLong answers a request the host sent on a line too long to read, when its id
// can be recovered, so the host does not wait its full deadline for nothing (answerUnread).
func (r *runner) answerOverLong(ol overLong) {
	fh := scanFrameHead(ol.head)
	r.answerUnread(fh, unreadWhy{
		tool: fmt.Sprintf("its frame is %d bytes, over the %d-byte line limit of the extension protocol. Call it again with smaller arguments (for large content, pass a file path instead).", ol.n, MaxLine),
		cmd:  fmt.Sprintf("its arguments make the frame %d bytes, over the %d-byte line limit", ol.n, MaxLine),
		log: func(ev *zerolog.Event) *zerolog.Event {
			return ev.Int("bytes", ol.n)
		},
		msg: "answered an over-long host frame",
	})
}

// answerUndecodable answers a request the host sent on a line that no JSON decoder here
// reads (a jsonscan fault: arguments nested too deep, a raw control character), when its
// id can be read from the line's start; other undecodable lines are only logged (by
// parseFrame).
func (r *runner) answerUndecodable(line []byte) {
	var sc jsonscan.Scanner
	sc.Write(line)
	fault := sc.Fault()
	if fault == jsonscan.None {
		return
	}
	what := "its frame "
	if fault == jsonscan.TooDeep {
		what = "its arguments "
	}
	why := what + jsonscan.Reason(fault, sc.Char())
	r.answerUnread(scanFrameHead(line[:min(len(line), overLongHead)]), unreadWhy{
		tool: why + ". Call it again with arguments that are plain JSON, nested less deeply.",
		cmd:  why,
		log: func(ev *zerolog.Event) *zerolog.Event {
			return ev.Stringer("fault", fault)
		},
		msg: "answered a host frame that cannot be decoded",
	})
}

// unreadWhy is why a host request was not read, for its answer: tool and cmd follow
// "tool call <name> was not run: " and "/<name> was not run: "; log adds the log's
// fields, msg is its message.
type unreadWhy struct {
	tool, cmd string
	log       func(*zerolog.Event) *zerolog.Event
	msg       string
}

// answerUnread answers a request the host sent on a line that could not be read, when its
// id could be recovered (fh), so the host does not wait its full deadline for nothing: a
// tool_call gets an error result, a command an error response, an intercept an allow (what
// the host assumes when we do not answer).
func (r *runner) answerUnread(fh frameHead, why unreadWhy) {
	if fh.id == "" {
		return
	}
	var b []byte
	var err error
	switch fh.typ {
	case "tool_call":
		res := ToolResult{IsError: true, Content: []Content{{Type: "text", Text: fmt.Sprintf("tool call %s was not run: %s", fh.name, why.tool)}}}
		b, err = encodeToolResult(fh.id, res, r.sess.host.Generation())
	case "command_invoked":
		b, err = encodeCommandResponse(fh.id, CommandResponse{Error: fmt.Sprintf("/%s was not run: %s", fh.name, why.cmd)})
	case "event_intercept":
		b, err = marshalFrame(interceptResponseFrame{Type: "event_intercept_response", ID: fh.id})
	default:
		return
	}
	if err != nil {
		r.log.Error().Err(err).Str("id", fh.id).Str("type", fh.typ).Msg("cannot encode the answer to an unreadable frame")
		return
	}
	why.log(r.log.Warn().Str("id", fh.id).Str("type", fh.typ).Str("name", fh.name)).Msg(why.msg)
	r.w.send(outFrame{b: b})
}
