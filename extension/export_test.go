package extension

// The per-frame registration the tests of the writer and the run loop use: production
// code registers through Registrations (Session.Register) or replays encoded frames
// (Session.RegisterEncoded).

import (
	"bytes"
	"errors"
	"fmt"
)

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
