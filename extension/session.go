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

// toolFrame encodes t's register_tool frame. It fails for an empty name, a Schema or
// OutputSchema that is not valid JSON, or a frame too long for one line.
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
