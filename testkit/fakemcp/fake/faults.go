package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/zot-mcp/mcp-bridge/testkit/fakemcp/record"
)

// checkFaultFlags validates -forget-session-after and -sse-drop-after.
func checkFaultFlags(o *options) error {
	switch {
	case o.forgetAfter < 0 || o.sseDropAfter < 0:
		return errors.New("numeric flags must not be negative")
	case o.forgetAfter > 0 && o.httpAddr == "":
		return errors.New("-forget-session-after needs -http")
	case o.sseDropAfter > 0 && o.sseAddr == "":
		return errors.New("-sse-drop-after needs -sse")
	}
	return nil
}

// sseStream is one open GET stream that -sse-drop-after may end.
type sseStream struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the stream's handler has returned
}

// sessionFaults implements -forget-session-after and -sse-drop-after in front of
// httpMiddleware. Without either flag it is next itself.
func sessionFaults(o *options, rec *recorder, next http.Handler) http.Handler {
	if o.forgetAfter == 0 && o.sseDropAfter == 0 {
		return next
	}
	var (
		mu        sync.Mutex
		calls     int
		forgotten = map[string]bool{}
		streams   = map[*sseStream]bool{}
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		mu.Lock()
		gone := sid != "" && forgotten[sid]
		mu.Unlock()
		if gone {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(io.LimitReader(r.Body, 256<<20))
			_ = r.Body.Close()
			if err != nil {
				http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			nth := 0
			if isToolCall(body) {
				mu.Lock()
				calls++
				nth = calls
				mu.Unlock()
			}
			switch {
			case nth > 0 && nth == o.forgetAfter:
				// A restarted server: the session is unknown, the call never runs.
				mu.Lock()
				forgotten[sid] = true
				mu.Unlock()
				http.Error(w, "session not found", http.StatusNotFound)
				return
			case nth > 0 && nth == o.sseDropAfter:
				// The call is received and accepted, then the stream that would carry its
				// answer drops.
				rec.write(record.Line{Method: "http", HTTPMethod: r.Method, Path: r.URL.Path})
				rec.message(body)
				w.WriteHeader(http.StatusAccepted)
				if f, ok := w.(http.Flusher); ok {
					f.Flush()
				}
				mu.Lock()
				open := make([]*sseStream, 0, len(streams))
				for st := range streams {
					open = append(open, st)
				}
				mu.Unlock()
				for _, st := range open {
					st.cancel()
					<-st.done
				}
				return
			}
		}
		if o.sseDropAfter > 0 && r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			st := &sseStream{cancel: cancel, done: make(chan struct{})}
			mu.Lock()
			streams[st] = true
			mu.Unlock()
			defer func() {
				mu.Lock()
				delete(streams, st)
				mu.Unlock()
				cancel()
				close(st.done)
			}()
			r = r.WithContext(ctx)
		}
		next.ServeHTTP(w, r)
	})
}

// isToolCall reports whether a JSON-RPC message (not a batch) is a tools/call request.
func isToolCall(body []byte) bool {
	var m wireMessage
	return json.Unmarshal(bytes.TrimSpace(body), &m) == nil && m.Method == "tools/call"
}
