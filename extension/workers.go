package extension

import "sync/atomic"

// maxIdleWorkers bounds the goroutines kept waiting for the next tool call.
const maxIdleWorkers = 8

// workers runs tool calls on goroutines that outlive one call. A call's path (frame
// decoding, the handler, JSON encoding in mcp-go, the result's encoding) needs a stack
// several times a new goroutine's, so a goroutine per call grew and copied its stack on
// every call; a worker keeps the stack it grew. A call finds an idle worker or starts a
// new one, so calls never wait for each other.
type workers struct {
	jobs chan func()     // unbuffered: a send succeeds only when a worker is waiting
	idle atomic.Int32    // workers waiting on jobs, or about to
	done <-chan struct{} // closed when the connection ends: idle workers return
}

func newWorkers(done <-chan struct{}) *workers {
	return &workers{jobs: make(chan func()), done: done}
}

// run runs job on an idle worker, or on a new one when none is waiting.
func (w *workers) run(job func()) {
	select {
	case w.jobs <- job:
	default:
		go w.loop(job)
	}
}

// loop runs job, then waits for more until the connection ends, unless enough workers
// are waiting already.
func (w *workers) loop(job func()) {
	for {
		job()
		if w.idle.Add(1) > maxIdleWorkers {
			w.idle.Add(-1)
			return
		}
		select {
		case job = <-w.jobs:
			w.idle.Add(-1)
		case <-w.done:
			w.idle.Add(-1)
			return
		}
	}
}
