package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

func newReplyLimiter(r io.Reader, limit int) *ReplyLimiter {
	return NewReplyLimiter(r, LimitOptions{Limit: limit})
}

// TestReplyLimiter: lines up to the limit pass untouched; a longer one is cut, the rest
// of it discarded, and an error for its id takes its place; without an id the stream
// ends. A server request or notification (a method, or params, wherever the message
// names them) is dropped and reported with its method when found, and the stream goes
// on. Read the way mcp-go reads: ReadString('\n') over a bufio.Reader.
func TestReplyLimiter(t *testing.T) {
	const limit = 64
	big := `{"jsonrpc":"2.0","id":7,"result":{"text":"` + strings.Repeat("x", 500) + `"}}`
	late := `{"result":{"text":"` + strings.Repeat("x", 500) + `"},"id":7,"jsonrpc":"2.0"}`
	ok := `{"jsonrpc":"2.0","id":8,"result":{}}`
	idLast := `{"result":{"text":"` + strings.Repeat("x", 500) + `"},"jsonrpc":"2.0","id":"call-4"}`
	notification := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 500) + `"}}`
	methodLast := `{"jsonrpc":"2.0","params":{"data":"` + strings.Repeat("x", 500) + `"},"method":"notifications/message"}`
	serverReq := `{"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{"t":"` + strings.Repeat("x", 500) + `"}}`
	methodMiddle := `{"params":{"data":"` + strings.Repeat("x", 500) + `"},"method":"notifications/message","jsonrpc":"2.0"}`
	methodBetween := `{"jsonrpc":"2.0","params":{"data":"` + strings.Repeat("x", 500) + `"},"method":"notifications/message","_meta":{"n":"` + strings.Repeat("y", 500) + `"}}`
	serverReqIDFirst := `{"jsonrpc":"2.0","id":2,"params":{"t":"` + strings.Repeat("x", 500) + `"},"method":"sampling/createMessage"}`
	serverReqIDLast := `{"params":{"t":"` + strings.Repeat("x", 500) + `"},"method":"sampling/createMessage","id":2}`
	idThird := `{"result":{"text":"` + strings.Repeat("x", 500) + `"},"id":7,"jsonrpc":"2.0","n":-1.5e3}`
	idBehindObject := `{"result":{"text":"` + strings.Repeat("x", 500) + `"},"id":7,"_meta":{"n":1}}`
	idBehindArray := `{"result":{"text":"` + strings.Repeat("x", 500) + `"},"id":7,"tags":["a"],"jsonrpc":"2.0"}`
	serverReqIDBehind := `{"params":{"t":"` + strings.Repeat("x", 500) + `"},"method":"sampling/createMessage","id":2,"jsonrpc":"2.0"}`
	exact := `{"id":9,"r":"` + strings.Repeat("y", limit-len(`{"id":9,"r":""}`)) + `"}`
	// The kept start (headKeep bytes) ends inside the id 4242, after "42".
	cutStart := `{"jsonrpc":"2.0","_meta":{"note":"`
	cutPad := headKeep - len(cutStart) - len(`"},"id":42`)
	idCutAtStart := cutStart + strings.Repeat("n", cutPad) + `"},"id":4242,"result":{"text":"` + strings.Repeat("x", 500) + `"}}`
	nullIDLast := `{"error":{"code":1,"message":"` + strings.Repeat("x", 500) + `"},"jsonrpc":"2.0","id":null}`
	cutByEOF := `{"jsonrpc":"2.0","result":{"text":"` + strings.Repeat("x", 500) + `","items":[{"id":1,"title":"a"},{"id":5,"title":"b"}`
	escapedBehindMethod := `{"jsonrpc":"2.0","_meta":{"pad":"` + strings.Repeat("x", 500) + `"},"method":"notifications/message","x":"a\"b"}`
	methodThenID := `{"jsonrpc":"2.0","_meta":{"pad":"` + strings.Repeat("x", 500) + `"},"method":"sampling/createMessage","id":2}`
	// A server request without params: its start shows only an id (found by FuzzReplyLimiter).
	serverReqIDFirstNoParams := `{"jsonrpc":"2.0","id":2,"_meta":{"n":"` + strings.Repeat("x", 500) + `"},"method":"ping"}`
	cutInMethod := `{"jsonrpc":"2.0","method":"` + strings.Repeat("m", headKeep) + `","params":{"data":"` + strings.Repeat("x", 500) + `"},"x":{}}`
	tests := []struct {
		name     string
		in       string
		want     []string // lines that parse as JSON, in order
		wantLost bool
		dropped  []string // the methods Dropped is told of, in order ("": not found)
	}{
		{name: "small lines pass", in: ok + "\n" + ok + "\n", want: []string{ok, ok}},
		{name: "a notification written params first is dropped; the stream goes on", in: methodLast + "\n" + ok + "\n", want: []string{ok}, dropped: []string{"notifications/message"}},
		{name: "exactly the limit passes", in: exact + "\n", want: []string{exact}},
		{name: "over-size reply becomes an error for its id", in: big + "\n" + ok + "\n",
			want: []string{`{"error":{"code":-32603,"message":"` + tooLargeText(limit) + `"},"id":7,"jsonrpc":"2.0"}`, ok}},
		{name: "over-size reply without a newline yet at EOF", in: big, want: []string{`"id":7`}},
		{name: "id second-to-last, behind a scalar member, is found in the reply's end", in: late + "\n" + ok + "\n",
			want: []string{`{"error":{"code":-32603,"message":"` + tooLargeText(limit) + `"},"id":7,"jsonrpc":"2.0"}`, ok}},
		{name: "id third-from-last, behind scalar members, is found in the reply's end", in: idThird + "\n" + ok + "\n",
			want: []string{`{"error":{"code":-32603,"message":"` + tooLargeText(limit) + `"},"id":7,"jsonrpc":"2.0"}`, ok}},
		{name: "id behind an object last member is not known: the stream ends", in: idBehindObject + "\n" + ok + "\n", wantLost: true},
		{name: "id behind an array member is not known: the stream ends", in: idBehindArray + "\n" + ok + "\n", wantLost: true},
		{name: "a server request written params first that ends with its own id is not answered as ours", in: serverReqIDBehind + "\n" + ok + "\n",
			want: []string{ok}, dropped: []string{"sampling/createMessage"}},
		{name: "id written last is found in the reply's end", in: idLast + "\n" + ok + "\n",
			want: []string{`"id":"call-4"`, ok}},
		{name: "a server request over the cap is dropped, not answered as ours", in: serverReq + "\n" + ok + "\n", want: []string{ok}, dropped: []string{"sampling/createMessage"}},
		{name: "a notification over the cap is dropped; the stream goes on", in: notification + "\n" + ok + "\n", want: []string{ok}, dropped: []string{"notifications/message"}},
		{name: "a notification whose method sits mid-message is dropped; the reply behind it arrives", in: methodMiddle + "\n" + ok + "\n", want: []string{ok}, dropped: []string{"notifications/message"}},
		{name: "a notification whose method sits between two long members is dropped", in: methodBetween + "\n" + ok + "\n", want: []string{ok}, dropped: []string{""}},
		{name: "a server request with its id first and method last is not answered as ours", in: serverReqIDFirst + "\n" + ok + "\n", want: []string{ok}, dropped: []string{"sampling/createMessage"}},
		{name: "a server request with its id after its method is not answered as ours", in: serverReqIDLast + "\n" + ok + "\n", want: []string{ok}, dropped: []string{"sampling/createMessage"}},
		{name: "a number id cut by the end of the kept start is not read short: the stream ends", in: idCutAtStart + "\n" + ok + "\n", wantLost: true},
		{name: "a null id at the reply's end names no request: the stream ends", in: nullIDLast + "\n" + ok + "\n", wantLost: true},
		{name: "a reply cut off by the end of the stream is not read from its end", in: cutByEOF, wantLost: true},
		{name: "an escaped quote behind the method does not hide it", in: escapedBehindMethod + "\n" + ok + "\n", want: []string{ok}, dropped: []string{"notifications/message"}},
		{name: "a method is read before an id behind it: the server's request is not answered as ours", in: methodThenID + "\n" + ok + "\n", want: []string{ok}, dropped: []string{"sampling/createMessage"}},
		{name: "a server request with its id first, no params and its method last is not answered as ours", in: serverReqIDFirstNoParams + "\n" + ok + "\n",
			want: []string{ok}, dropped: []string{"ping"}},
		{name: "a start cut inside a long method is the server's message, not a reply", in: cutInMethod + "\n" + ok + "\n", want: []string{ok}, dropped: []string{""}},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				var src io.Reader = strings.NewReader(tt.in)
				if oneByte {
					src = iotest.OneByteReader(src)
				}
				var dropped []string
				lim := NewReplyLimiter(src, LimitOptions{Limit: limit, Dropped: func(err error) {
					var big *TooLargeError
					if !errors.As(err, &big) {
						t.Fatalf("dropped with %v", err)
					}
					dropped = append(dropped, big.Method)
				}})
				br := bufio.NewReader(lim)
				var got []string
				for {
					line, err := br.ReadString('\n')
					if l := strings.TrimSpace(line); strings.HasPrefix(l, "{") && strings.HasSuffix(l, "}") {
						got = append(got, l)
					} else if len(l) > limit+1 {
						t.Fatalf("a line of %d bytes got through", len(l))
					}
					if err != nil {
						if !errors.Is(err, io.EOF) {
							t.Fatal(err)
						}
						break
					}
				}
				lost := false
				select {
				case <-lim.lost:
					lost = true
				default:
				}
				if lost != tt.wantLost {
					t.Fatalf("lost = %v, want %v", lost, tt.wantLost)
				}
				if strings.Join(dropped, ",") != strings.Join(tt.dropped, ",") || len(dropped) != len(tt.dropped) {
					t.Fatalf("dropped %q, want %q", dropped, tt.dropped)
				}
				if len(got) != len(tt.want) {
					t.Fatalf("got lines %q, want %d like %q", got, len(tt.want), tt.want)
				}
				for i := range got {
					if !strings.Contains(got[i], tt.want[i]) {
						t.Fatalf("line %d = %q, want %q", i, got[i], tt.want[i])
					}
				}
			})
		}
	}
}

// TestReplyLimiterClipsMethod: a dropped message's method is the server's text; it is
// reported (and so logged) clipped to maxMethodText.
func TestReplyLimiterClipsMethod(t *testing.T) {
	in := `{"jsonrpc":"2.0","method":"` + strings.Repeat("m", 300) + `","params":{"data":"` + strings.Repeat("x", 500) + `"}}` + "\n"
	var methods []string
	lim := NewReplyLimiter(strings.NewReader(in), LimitOptions{Limit: 64, Dropped: func(err error) {
		var big *TooLargeError
		if errors.As(err, &big) {
			methods = append(methods, big.Method)
		}
	}})
	if _, err := io.Copy(io.Discard, lim); err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("m", maxMethodText-len("…")) + "…"
	if len(methods) != 1 || methods[0] != want {
		t.Fatalf("dropped methods %q, want one %q", methods, want)
	}
}

// hugeLine is an io.Reader of one JSON-RPC reply line whose text field holds n bytes,
// produced piece by piece so that the test itself allocates nothing in proportion to n.
type hugeLine struct {
	head, tail string
	n          int // filler bytes still to produce
	sent       int // bytes of head already produced
	tailSent   int
}

func (h *hugeLine) Read(p []byte) (int, error) {
	switch {
	case h.sent < len(h.head):
		k := copy(p, h.head[h.sent:])
		h.sent += k
		return k, nil
	case h.n > 0:
		k := min(len(p), h.n)
		for i := range p[:k] {
			p[i] = 'x'
		}
		h.n -= k
		return k, nil
	case h.tailSent < len(h.tail):
		k := copy(p, h.tail[h.tailSent:])
		h.tailSent += k
		return k, nil
	}
	return 0, io.EOF
}

// TestReplyLimiterMemoryIsBounded: reading a message far over the cap the way mcp-go
// reads (bufio ReadString per line) allocates about the cap, not the message: the rest
// is discarded as it streams past, also while the limiter looks for where a
// notification names its method. Without the limiter the whole line is buffered (and
// grown by doubling), which is what took the bridge to gigabytes on a huge result.
func TestReplyLimiterMemoryIsBounded(t *testing.T) {
	const limit, reply = 1 << 20, 64 << 20
	ok := `{"jsonrpc":"2.0","id":4,"result":{}}`
	for _, tc := range []struct {
		name, head, tail string
		want             string // in the last line read
	}{
		{"reply, id first", `{"jsonrpc":"2.0","id":3,"result":{"text":"`, "\"}}\n", `"id":3`},
		{"notification, method mid-message", `{"params":{"data":"`, `"},"method":"notifications/message","jsonrpc":"2.0"}` + "\n" + ok + "\n", ok},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &hugeLine{head: tc.head, n: reply, tail: tc.tail}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			br := bufio.NewReader(newReplyLimiter(src, limit))
			last := ""
			for {
				line, err := br.ReadString('\n')
				if l := strings.TrimSpace(line); strings.HasPrefix(l, "{") && strings.HasSuffix(l, "}") {
					last = l
				}
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Fatal(err)
					}
					break
				}
			}
			runtime.ReadMemStats(&after)
			if !strings.Contains(last, tc.want) {
				t.Fatalf("last message %.200q, want %q", last, tc.want)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Fatalf("reading a %d MiB message through a %d MiB cap allocated %d MiB; want about the cap",
					reply>>20, limit>>20, grew>>20)
			}
		})
	}
}

// readEvents reads an event stream the way mcp-go does (ReadString per line, data fields
// joined, an event dispatched at an empty line) and returns the data of the events it
// would read as messages.
func readEvents(t *testing.T, r io.Reader) []string {
	t.Helper()
	br := bufio.NewReader(r)
	var got []string
	event, data := "", ""
	for {
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && data != "":
			if event == "" || event == "message" {
				got = append(got, data)
			}
			event, data = "", ""
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			v := strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
			if data != "" {
				v = data + "\n" + v
			}
			data = v
		}
		if err != nil {
			return got
		}
	}
}

// TestReplyLimiterEvents: in an event stream a message is an event's data, however many
// data lines carry it. An over-size event is cut, dispatched under a type readers ignore,
// and followed by an error event for its id (found at its start, at its end, or the id of
// the request the stream answers); an event that fails no request of ours is dropped and
// reported, and the stream goes on; a reply whose id is nowhere to be found ends the
// stream (Lost), as on stdio, so that its caller fails at once instead of waiting.
func TestReplyLimiterEvents(t *testing.T) {
	const limit = 64
	fill := strings.Repeat("x", 500)
	ok := "data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n\n"
	errFor := func(id string) string {
		return `{"error":{"code":-32603,"message":"` + tooLargeText(limit) + `"},"id":` + id + `,"jsonrpc":"2.0"}`
	}
	tests := []struct {
		name        string
		in          string
		id          string // LimitOptions.ID
		want        []string
		wantDropped int
		wantMethod  string // the method Dropped was told of
		wantLost    bool   // the stream ends at the over-size message (want: nothing)
		unread      bool   // LimitOptions.RepliesUnread
	}{
		{name: "small events pass", in: "event: message\nid: 1\n" + ok + ok, want: []string{`"id":8`, `"id":8`}},
		{name: "id first", in: "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"" + fill + "\"}\n\n" + ok,
			want: []string{errFor("7"), `"id":8`}},
		{name: "one message over many data lines", in: "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":[\n" + strings.Repeat("data: 1,\n", 40) + "data: 1]}\r\n\r\n" + ok,
			want: []string{errFor("7"), `"id":8`}},
		{name: "id last", in: "data: {\"result\":\"" + fill + "\",\"jsonrpc\":\"2.0\",\"id\":7}\n\n" + ok,
			want: []string{errFor("7"), `"id":8`}},
		{name: "id last, event fields after the data", in: "data: {\"result\":\"" + fill + "\",\"jsonrpc\":\"2.0\",\"id\":7}\nid: 99\nretry: 10\n\n" + ok,
			want: []string{errFor("7"), `"id":8`}},
		{name: "id last, on a data line of its own", in: "data: {\"result\":\"" + fill + "\",\"jsonrpc\":\"2.0\",\r\ndata: \"id\":7}\r\n\r\n" + ok,
			want: []string{errFor("7"), `"id":8`}},
		{name: "method last, event fields after the data", in: "data: {\"jsonrpc\":\"2.0\",\"_meta\":{\"p\":\"" + fill + "\"},\"method\":\"notifications/message\"}\nid: 4\n\n" + ok,
			want: []string{`"id":8`}, wantDropped: 1, wantMethod: "notifications/message"},
		{name: "no id: the request the stream answers", id: "12", in: "data: {\"result\":\"" + fill + "\",\"jsonrpc\":\"2.0\"}\n\n" + ok,
			want: []string{errFor("12"), `"id":8`}},
		{name: "no id and no request: the stream ends", in: "data: {\"result\":\"" + fill + "\",\"jsonrpc\":\"2.0\"}\n\n" + ok,
			wantLost: true},
		{name: "id behind a scalar member and no request", in: "data: {\"result\":\"" + fill + "\",\"id\":7,\"jsonrpc\":\"2.0\"}\n\n" + ok,
			want: []string{errFor("7"), `"id":8`}},
		{name: "id behind scalar members on a request's stream: its own id, not the request's", id: "12",
			in:   "data: {\"result\":\"" + fill + "\",\"id\":7,\"jsonrpc\":\"2.0\",\"n\":null}\n\n" + ok,
			want: []string{errFor("7"), `"id":8`}},
		{name: "id in the middle, behind an object member, and no request: the stream ends",
			in:       "data: {\"result\":\"" + fill + "\",\"id\":7,\"_meta\":{\"n\":1},\"jsonrpc\":\"2.0\"}\n\n" + ok,
			wantLost: true},
		{name: "id first on a stream whose replies reach no caller: the stream ends", unread: true,
			in: "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"" + fill + "\"}\n\n" + ok, wantLost: true},
		{name: "id behind a scalar member on a stream whose replies reach no caller: the stream ends", unread: true,
			in: "data: {\"result\":\"" + fill + "\",\"id\":7,\"jsonrpc\":\"2.0\"}\n\n" + ok, wantLost: true},
		{name: "notification on a stream whose replies reach no caller: dropped, the stream goes on", unread: true,
			in:   "data: {\"params\":\"" + fill + "\",\"method\":\"notifications/message\",\"jsonrpc\":\"2.0\"}\n\n" + ok,
			want: []string{`"id":8`}, wantDropped: 1, wantMethod: "notifications/message"},
		{name: "notification written params first: dropped, the stream goes on", in: "data: {\"jsonrpc\":\"2.0\",\"params\":\"" + fill + "\",\"method\":\"notifications/message\"}\n\n" + ok,
			want: []string{`"id":8`}, wantDropped: 1, wantMethod: "notifications/message"},
		{name: "notification written params first on a request's stream: not that request's error", id: "12",
			in:   "data: {\"params\":\"" + fill + "\",\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n" + ok,
			want: []string{`"id":8`}, wantDropped: 1, wantMethod: "notifications/progress"},
		{name: "notification: dropped even on a request's stream", id: "12", in: "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":\"" + fill + "\"}\n\n" + ok,
			want: []string{`"id":8`}, wantDropped: 1, wantMethod: "notifications/message"},
		{name: "notification with its method mid-message: dropped, the stream goes on", in: "data: {\"params\":{\"data\":\"" + fill + "\"},\"method\":\"notifications/message\",\"jsonrpc\":\"2.0\"}\n\n" + ok,
			want: []string{`"id":8`}, wantDropped: 1, wantMethod: "notifications/message"},
		{name: "notification with its method mid-message on a request's stream: not that request's error", id: "12",
			in:   "data: {\"jsonrpc\":\"2.0\",\"params\":{\"progress\":\"" + fill + "\"},\"method\":\"notifications/progress\",\"x\":1}\n\n" + ok,
			want: []string{`"id":8`}, wantDropped: 1, wantMethod: "notifications/progress"},
		{name: "notification with its method between two long members: dropped though its method is not found",
			in:   "data: {\"jsonrpc\":\"2.0\",\"params\":\"" + fill + "\",\"method\":\"notifications/message\",\"_meta\":{\"n\":\"" + fill + "\"}}\n\n" + ok,
			want: []string{`"id":8`}, wantDropped: 1},
		// "data: " and 58 bytes of message make a line of 64 bytes: only the event's empty
		// line takes it over the cap (found by FuzzReplyLimiter).
		{name: "over the cap only at the event's empty line: the next event is not skipped",
			in:   "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"" + fill[:22] + "\"}\n\n" + ok,
			want: []string{errFor("7"), `"id":8`}},
		{name: "over the cap only at the \\r of the event's empty line: the next event is not skipped",
			in:   "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"" + fill[:21] + "\"}\r\n\r\n" + ok,
			want: []string{errFor("7"), `"id":8`}},
		{name: "server request with its id first and its method last: dropped, not answered as ours",
			in:   "data: {\"jsonrpc\":\"2.0\",\"id\":8,\"params\":\"" + fill + "\",\"method\":\"sampling/createMessage\"}\n\n" + ok,
			want: []string{`"id":8`}, wantDropped: 1, wantMethod: "sampling/createMessage"},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				var src io.Reader = strings.NewReader(tt.in)
				if oneByte {
					src = iotest.OneByteReader(src)
				}
				dropped := 0
				o := LimitOptions{Limit: limit, Framing: FrameEvents, RepliesUnread: tt.unread, Dropped: func(err error) {
					var big *TooLargeError
					if !errors.As(err, &big) || !errors.Is(err, ErrReplyTooLarge) || !strings.Contains(err.Error(), "64 bytes") {
						t.Errorf("dropped with %v", err)
					} else if big.Method != tt.wantMethod {
						t.Errorf("dropped naming method %q, want %q", big.Method, tt.wantMethod)
					}
					dropped++
				}}
				if tt.id != "" {
					o.ID = json.RawMessage(tt.id)
				}
				lim := NewReplyLimiter(src, o)
				got := readEvents(t, lim)
				if dropped != tt.wantDropped {
					t.Errorf("dropped %d, want %d", dropped, tt.wantDropped)
				}
				select {
				case <-lim.Lost():
					if !tt.wantLost {
						t.Fatal("the stream ended")
					}
					if len(got) > 0 { // not even the cut-off start, which a reader would fail to parse
						t.Fatalf("read %q from a stream lost to an over-size reply", got)
					}
					return
				default:
					if tt.wantLost {
						t.Fatalf("the stream went on (got %q); the reply's caller would wait for ever", got)
					}
				}
				if len(got) != len(tt.want) {
					t.Fatalf("got %q, want %d like %q", got, len(tt.want), tt.want)
				}
				for i := range got {
					if !strings.Contains(got[i], tt.want[i]) && !jsonEqual(got[i], tt.want[i]) {
						t.Fatalf("message %d = %q, want %q", i, got[i], tt.want[i])
					}
				}
			})
		}
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// TestReplyLimiterBody: a body over the cap fails with *TooLargeError after about the
// cap, whatever its size; one under it passes untouched.
func TestReplyLimiterBody(t *testing.T) {
	for _, n := range []int{100, 64 << 20} {
		src := &hugeLine{head: `{"jsonrpc":"2.0","id":3,"result":{"text":"`, n: n, tail: "\"}}"}
		var m map[string]any
		err := json.NewDecoder(NewReplyLimiter(src, LimitOptions{Limit: 1 << 20, Framing: FrameBody})).Decode(&m)
		var tl *TooLargeError
		if big := n > 1<<20; big != errors.As(err, &tl) || (!big && err != nil) {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if n > 1<<20 && src.n < n-(2<<20) {
			t.Fatalf("%d bytes: read %d before failing; want about the cap", n, n-src.n)
		}
	}
}

// eventReader logs each Read and serves one chunk per call.
type eventReader struct {
	chunks []string
	log    *testutil.EventLog
}

func (r *eventReader) Read(p []byte) (int, error) {
	r.log.Add("read")
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks = r.chunks[1:]
	return n, nil
}

// Once a whole message has been handed on, the limiter yields before its next read of
// the pipe, so that the goroutine the message was handed to (mcp-go passes it over a
// channel to the caller) can run first; on one P the reader would otherwise go first,
// into a read that finds the pipe empty. Whether the scheduler then runs the taker first
// is its choice (it takes from the global queue now and then, and shuffles in race
// builds), so the test checks the yield's place: only before a read that follows a whole
// message, not before one in the middle of a message or one served from bytes carried
// over.
func TestReplyLimiterYieldsAfterAWholeMessage(t *testing.T) {
	log := &testutil.EventLog{}
	lim := newReplyLimiter(&eventReader{chunks: []string{`{"id":`, "1}\n{\"id\":2}\n"}, log: log}, 64)
	lim.yield = func() { log.Add("yield") }
	br := bufio.NewReader(lim)
	for _, want := range []string{`{"id":1}`, `{"id":2}`} {
		line, err := br.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != want {
			t.Fatalf("ReadString = %q, %v; want %s", line, err, want)
		}
		log.Add("handed")
	}
	if _, err := br.ReadString('\n'); err != io.EOF {
		t.Fatalf("last ReadString: %v, want EOF", err)
	}
	if got, want := log.String(), "read,read,handed,handed,yield,read"; got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
}
