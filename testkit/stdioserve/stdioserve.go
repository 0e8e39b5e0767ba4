// Package stdioserve runs an mcp-go server over a reader and a writer, one JSON-RPC
// message a line, as a stdio server process speaks on its stdin and stdout: the server
// end of an in-process pipe session (session.OpenPipe) in tests.
//
// Why not mcp-go's own StdioServer: it keeps its one client session in a package
// variable, which every StdioServer of a process shares (its notifications and its
// writer), so two servers in one process (parallel tests) would answer each other's
// client. Here every Serve has a session of its own.
//
// What it leaves out: the server cannot ask the client anything (its session offers no
// elicitation, sampling or roots), so a server under test that does so gets mcp-go's
// not-supported error here where a process would reach the client.
package stdioserve

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Options tune Serve.
type Options struct {
	// Workers bounds the tools/call requests run at once, as mcp-go's stdio worker pool
	// does (0: 5, mcp-go's default); the others wait their turn.
	Workers int
}

const defaultWorkers = 5

// Serve speaks MCP for srv on in and out until in ends (nil) or ctx is cancelled (its
// error). As mcp-go's stdio server does, notifications are handled in the order they
// came, every request on a goroutine of its own (one may block, as subscriptions/listen
// does), tools/call requests up to Options.Workers at once. Serve returns once every
// request it started has returned.
func Serve(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, o Options) error {
	sess := &clientSession{id: "stdioserve-" + rand.Text(), notes: make(chan mcp.JSONRPCNotification, 100)}
	if err := srv.RegisterSession(ctx, sess); err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	defer srv.UnregisterSession(context.Background(), sess.id)
	ctx, cancel := context.WithCancel(srv.WithContext(ctx, sess))
	defer cancel()

	w := &lineWriter{w: out}
	workers := o.Workers
	if workers <= 0 {
		workers = defaultWorkers
	}
	slots := make(chan struct{}, workers)
	var running sync.WaitGroup
	running.Add(1)
	go func() { // the one writer of notifications
		defer running.Done()
		for {
			select {
			case n := <-sess.notes:
				w.write(n)
			case <-ctx.Done():
				return
			}
		}
	}()

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() { // the one reader of in; it ends with in (the pipe's owner closes it)
		br := bufio.NewReader(in)
		for {
			line, err := br.ReadBytes('\n')
			if len(strings.TrimSpace(string(line))) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()

	var err error
loop:
	for {
		select {
		case <-ctx.Done():
			err = ctx.Err()
			break loop
		case rerr := <-readErr:
			if !errors.Is(rerr, io.EOF) {
				err = rerr
			}
			break loop
		case line := <-lines:
			var m struct {
				Method string `json:"method"`
				ID     any    `json:"id,omitempty"`
			}
			if json.Unmarshal(line, &m) != nil {
				w.write(mcp.NewJSONRPCError(mcp.NewRequestId(nil), mcp.PARSE_ERROR, "Parse error", nil))
				continue
			}
			if m.ID == nil { // a notification: no answer, and it waits for none
				handle(ctx, srv, w, nil, line)
				continue
			}
			running.Add(1)
			go func() {
				defer running.Done()
				if m.Method == string(mcp.MethodToolsCall) {
					select {
					case slots <- struct{}{}:
					case <-ctx.Done():
						return
					}
					defer func() { <-slots }()
				}
				handle(ctx, srv, w, m.ID, line)
			}()
		}
	}
	// As mcp-go's stdio server does at the end of input: requests still running are
	// cancelled and waited for.
	cancel()
	running.Wait()
	return err
}

// handle runs one message, a panicking handler answered as mcp-go's stdio server
// answers it (an internal error for a request, nothing for a notification).
func handle(ctx context.Context, srv *server.MCPServer, w *lineWriter, id any, line []byte) {
	defer func() {
		if r := recover(); r != nil && id != nil {
			w.write(mcp.NewJSONRPCError(mcp.NewRequestId(id), mcp.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", r), nil))
		}
	}()
	w.write(srv.HandleMessage(ctx, line))
}

// lineWriter writes one message a line; messages from several goroutines never
// interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) write(msg any) {
	if msg == nil {
		return
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(append(b, '\n'))
}

// clientSession is the one client of a Serve.
type clientSession struct {
	id          string
	notes       chan mcp.JSONRPCNotification
	initialized atomic.Bool
	level       atomic.Value // mcp.LoggingLevel
}

func (s *clientSession) SessionID() string { return s.id }
func (s *clientSession) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.notes
}
func (s *clientSession) Initialize()       { s.initialized.Store(true) }
func (s *clientSession) Initialized() bool { return s.initialized.Load() }

// SetLogLevel keeps the level the client asked for (logging/setLevel).
func (s *clientSession) SetLogLevel(level mcp.LoggingLevel) { s.level.Store(level) }

// GetLogLevel is the level the client asked for (error until it asks).
func (s *clientSession) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.level.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}
