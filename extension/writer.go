package extension

import (
	"bufio"
	"io"
	"sync"

	"github.com/rs/zerolog"
)

// outFrame is one queued frame: the encoded JSON object without '\n'.
type outFrame struct {
	b []byte
	// batch marks b as several frames joined by '\n', each already checked against the
	// line limit (Session.Register, Session.RegisterEncoded).
	batch bool
	// flushed, if non-nil, is closed once the frame has been written and
	// flushed to the underlying writer.
	flushed chan struct{}
	// pooled, when set, is the writer's buffer that b lives in: it goes back once written.
	pooled *[]byte
	// spare, when set, takes b's buffer once it is written (Registrations.Piece).
	spare chan<- []byte
}

// writer owns the extension's stdout. Frames are queued on ch and written by
// a single goroutine (loop) through a bufio.Writer, which is flushed whenever
// the queue is momentarily empty.
type writer struct {
	log zerolog.Logger
	ch  chan outFrame

	// mu guards closed. Senders hold it shared while they enqueue, so close
	// (which holds it exclusively) knows no sender is mid-send when it closes
	// ch.
	mu     sync.RWMutex
	closed bool

	dead chan struct{} // closed when a write failed; err is set before
	err  error
	done chan struct{} // closed when loop has returned

	// bufs holds encode buffers (*[]byte) for tool results, so a call's answer is
	// encoded into memory an earlier answer used.
	bufs sync.Pool
}

// pooledBufferMax is the largest buffer kept for reuse; a rare huge result does not
// pin its memory.
const pooledBufferMax = 64 << 10

// writerQueue is the queue length between senders and the write loop.
const writerQueue = 256

// writerBuffer is the size of the bufio.Writer in front of stdout.
const writerBuffer = 64 << 10

func newWriter(log zerolog.Logger) *writer {
	return &writer{
		log:  log,
		ch:   make(chan outFrame, writerQueue),
		dead: make(chan struct{}),
		done: make(chan struct{}),
	}
}

// loop writes queued frames to out until the queue is closed or a write
// fails. It is the only code that touches out.
func (w *writer) loop(out io.Writer) {
	defer close(w.done)
	bw := bufio.NewWriterSize(out, writerBuffer)
	var waiting []chan struct{}
	fail := func(err error) {
		w.err = err
		close(w.dead)
	}
	for f := range w.ch {
		_, err := bw.Write(f.b)
		if f.pooled != nil {
			// bufio copied f.b or wrote it through: nothing refers to it any more.
			*f.pooled = f.b
			w.putBuf(f.pooled)
		}
		if f.spare != nil {
			select {
			case f.spare <- f.b[:0]:
			default:
			}
		}
		if err != nil {
			fail(err)
			return
		}
		if err := bw.WriteByte('\n'); err != nil {
			fail(err)
			return
		}
		if f.flushed != nil {
			waiting = append(waiting, f.flushed)
		}
		if len(w.ch) > 0 && len(waiting) == 0 {
			continue
		}
		if err := bw.Flush(); err != nil {
			fail(err)
			return
		}
		for _, c := range waiting {
			close(c)
		}
		waiting = waiting[:0]
	}
	if err := bw.Flush(); err != nil {
		fail(err)
	}
}

// send queues one frame. It returns false, without queueing, when the frame
// is too long for a line, the writer has been closed, or a write failed.
// It blocks while the queue is full.
func (w *writer) send(f outFrame) bool {
	if !f.batch && len(f.b) > maxFrame {
		w.log.Error().Int("bytes", len(f.b)).Str("frame", prefix(f.b, 80)).
			Msg("dropping frame longer than the host's line limit")
		return false
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		return false
	}
	select {
	case w.ch <- f:
		return true
	case <-w.dead:
		return false
	}
}

// sendToolResult encodes r as the tool_result frame for id into a reused buffer and
// queues it, as send does.
func (w *writer) sendToolResult(id string, r ToolResult, gen Generation) bool {
	p := w.getBuf()
	b := appendToolResult((*p)[:0], id, r, gen)
	*p = b
	if !w.send(outFrame{b: b, pooled: p}) {
		w.putBuf(p)
		return false
	}
	return true
}

// getBuf returns a buffer for one frame. Buffers travel as *[]byte, the pointer the pool
// holds, so putting one back allocates nothing.
func (w *writer) getBuf() *[]byte {
	if p, ok := w.bufs.Get().(*[]byte); ok {
		return p
	}
	b := make([]byte, 0, 512)
	return &b
}

func (w *writer) putBuf(p *[]byte) {
	if cap(*p) <= pooledBufferMax {
		*p = (*p)[:0]
		w.bufs.Put(p)
	}
}

// close stops accepting frames. If final is non-nil it is queued as the very
// last frame. Frames queued before close are still written; wait for done to
// know they were flushed.
func (w *writer) close(final []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.closed = true
	if final != nil {
		select {
		case w.ch <- outFrame{b: final}:
		case <-w.dead:
		}
	}
	close(w.ch)
}

// prefix returns at most n bytes of b as a string, for log messages.
func prefix(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
