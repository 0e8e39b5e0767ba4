package extension

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	gojson "github.com/goccy/go-json"
	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/internal/textcut"
	"github.com/zot-mcp/mcp-bridge/internal/textwrap"
)

// maxNotify is the longest notify message sent; longer ones are cut.
const maxNotify = 64 << 10

// Session is the handler's handle on the connection. All its methods are
// safe for concurrent use. Frames queued from one goroutine are written in
// the order they were queued.
type Session struct {
	w     *writer
	host  HostInfo
	log   zerolog.Logger
	ready chan struct{}

	screen *Screen  // nil: text goes out as it is
	name   string   // the tag the host puts before each line of a note
	notes  noteGate // closed until the host's UI can show notes (with a screen)
}

// Host returns what the host sent in hello_ack.
func (s *Session) Host() HostInfo {
	h := s.host
	h.Capabilities = slices.Clone(s.host.Capabilities)
	return h
}

// RegisterTool queues a register_tool frame for t. It fails for an empty
// name, a Schema or OutputSchema that is not valid JSON, a frame too long for
// one line, or a closed connection.
func (s *Session) RegisterTool(t Tool) error {
	frame, err := toolFrame(t)
	if err != nil {
		return err
	}
	return s.queue(frame)
}

// toolFrame encodes t's register_tool frame, checked as RegisterTool documents.
func toolFrame(t Tool) ([]byte, error) {
	if t.Name == "" {
		return nil, errors.New("extension: tool without name")
	}
	if len(bytes.TrimSpace(t.Schema)) > 0 && !gojson.Valid(t.Schema) {
		return nil, fmt.Errorf("extension: tool %s: schema is not valid JSON", t.Name)
	}
	if len(bytes.TrimSpace(t.OutputSchema)) > 0 && !gojson.Valid(t.OutputSchema) {
		return nil, fmt.Errorf("extension: tool %s: output schema is not valid JSON", t.Name)
	}
	frame := AppendToolFrame(nil, t)
	if len(frame) > maxFrame {
		return nil, fmt.Errorf("extension: tool %s: register_tool frame is %d bytes, the limit is %d", t.Name, len(frame), maxFrame)
	}
	return frame, nil
}

// RegisterToolFrame queues a pre-encoded register_tool frame, such as one
// produced by AppendToolFrame: one JSON object without a trailing newline
// (Run adds it; a single trailing newline is tolerated). It is the fast path
// for thousands of cached tools: the frame is only checked for shape (an
// object on one line that fits in MaxLine), not parsed. The frame is copied,
// so the caller may reuse its buffer.
func (s *Session) RegisterToolFrame(frame []byte) error {
	frame = bytes.TrimSuffix(frame, []byte{'\n'})
	frame = bytes.TrimSuffix(frame, []byte{'\r'})
	switch {
	case len(frame) > maxFrame:
		return fmt.Errorf("extension: register_tool frame is %d bytes, the limit is %d", len(frame), maxFrame)
	case len(frame) < 2 || frame[0] != '{' || frame[len(frame)-1] != '}':
		return fmt.Errorf("extension: register_tool frame is not a JSON object: %s", prefix(frame, 80))
	case bytes.IndexByte(frame, '\n') >= 0:
		return errors.New("extension: register_tool frame contains a newline")
	}
	return s.queue(bytes.Clone(frame))
}

// RegisterToolFrames queues many pre-encoded register_tool frames, each followed by
// '\n', so that they reach the host in one write: the startup path for thousands of cached
// tools, where a hand-off to the writer per frame costs more than the bytes. Each frame is
// checked as RegisterToolFrame checks it; one that fails is left out and named in the
// returned error, and the rest are still queued. The session takes frames over: the
// caller must not touch the slice afterwards.
func (s *Session) RegisterToolFrames(frames []byte) error {
	var errs []error
	w := 0 // frames[:w] holds the accepted frames, joined by '\n'
	for r := 0; r < len(frames); {
		end := bytes.IndexByte(frames[r:], '\n')
		if end < 0 {
			end = len(frames) - r
		}
		frame := frames[r : r+end]
		next := r + end + 1
		frame = bytes.TrimSuffix(frame, []byte{'\r'})
		switch {
		case len(frame) == 0:
		case len(frame) > maxFrame:
			errs = append(errs, fmt.Errorf("extension: register_tool frame is %d bytes, the limit is %d: %s", len(frame), maxFrame, prefix(frame, 80)))
		case frame[0] != '{' || frame[len(frame)-1] != '}':
			errs = append(errs, fmt.Errorf("extension: register_tool frame is not a JSON object: %s", prefix(frame, 80)))
		default:
			if w > 0 {
				// Before r: the previous accepted frame ended before the '\n' that
				// ended its line.
				frames[w] = '\n'
				w++
			}
			w += copy(frames[w:], frame)
		}
		r = next
	}
	if w > 0 {
		// The writer ends the batch with '\n'.
		if !s.w.send(outFrame{b: frames[:w], batch: true}) {
			return ErrClosed
		}
	}
	return errors.Join(errs...)
}

// commandFrame is the wire form of register_command.
type commandFrame struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// RegisterCommand queues a register_command frame for the slash command
// name (without the slash).
func (s *Session) RegisterCommand(name, description string) error {
	b, err := commandFrameFor(name, description)
	if err != nil {
		return err
	}
	return s.queue(b)
}

// commandFrameFor encodes the register_command frame, checked as RegisterCommand does.
func commandFrameFor(name, description string) ([]byte, error) {
	if name == "" {
		return nil, errors.New("extension: command without name")
	}
	b, err := marshalFrame(commandFrame{Type: "register_command", Name: name, Description: description})
	if err != nil {
		return nil, err
	}
	if len(b) > maxFrame {
		return nil, fmt.Errorf("extension: command %s: register_command frame is %d bytes, the limit is %d", name, len(b), maxFrame)
	}
	return b, nil
}

// notifyFrame is the wire form of notify.
type notifyFrame struct {
	Type    string `json:"type"`
	Level   string `json:"level"`
	Message string `json:"message"`
}

// Notify shows message to the user, tagged with the extension's name. level
// is info, success, warn or error; anything else is sent as info. Messages
// longer than 64 KiB are cut. With a Screen, the message is wrapped to the
// terminal's width, and held until the host's UI can show it (see Screen).
// Nothing is sent once the connection is closed.
func (s *Session) Notify(level, message string) {
	switch level {
	case "info", "success", "warn", "error":
	default:
		level = "info"
	}
	if len(message) > maxNotify {
		message = textcut.Prefix(message, maxNotify) + "… (truncated)"
	}
	if s.screen != nil {
		message = textwrap.Wrap(message, s.screen.textWidth(s.name))
	}
	b, err := marshalFrame(notifyFrame{Type: "notify", Level: level, Message: message})
	if err != nil {
		s.log.Error().Err(err).Msg("cannot encode notify")
		return
	}
	if !s.notes.send(s.w, b) {
		s.log.Debug().Str("level", level).Str("message", message).Msg("notify after close dropped")
	}
}

// ClearNotes removes the notes this extension pushed. It sends clear_notes
// only to GenNew hosts (an OLD host would log it as an unknown frame) and
// does nothing otherwise.
func (s *Session) ClearNotes() {
	if s.host.Generation() != GenNew {
		s.log.Debug().Msg("clear_notes not sent: legacy host")
		return
	}
	if !s.notes.clear() {
		return // only held notes, and they are dropped
	}
	_ = s.queue([]byte(clearNotesFrame))
}

// Ready returns a channel that is closed once ready has been written and
// flushed. It is never closed if the connection ends first.
func (s *Session) Ready() <-chan struct{} {
	return s.ready
}

// queue hands one frame to the writer.
func (s *Session) queue(b []byte) error {
	if !s.w.send(outFrame{b: b}) {
		return ErrClosed
	}
	return nil
}
