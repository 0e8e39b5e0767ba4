package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestOneAnswer: on a stream that carries the answer to request 2 (OneAnswer), a reply
// that names another id, as encoding/json reads the id (any letter case, escapes, the
// last one), is dropped and reported, and the stream goes on; the server's own requests
// and notifications pass, but only when mcp-go reads them as such on an event stream; the
// answer ends the stream; a stream that ends after a dropped reply and no answer answers
// with why. A body with another id fails with *ForeignReplyError, which shows the start
// of an id too long to keep. Before, every reply was handed on, and the first became the
// answer.
func TestOneAnswer(t *testing.T) {
	t.Parallel()
	const (
		ours    = `{"jsonrpc":"2.0","id":2,"result":{}}`
		note    = `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`
		request = `{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}}`
	)
	long := strings.Repeat("x", maxIDRaw)
	ev := func(data ...string) string {
		var b strings.Builder
		for _, d := range data {
			b.WriteString("event: message\ndata: " + d + "\n\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name    string
		framing Framing
		in      string
		want    []string // the messages read (an event stream's JSON data; a body)
		refused []string // the ids Dropped was told of
		err     bool     // the body fails with *ForeignReplyError
	}{
		{name: "another id, then the answer", framing: FrameEvents, in: ev(`{"jsonrpc":"2.0","id":3,"result":{"x":1}}`, ours),
			want: []string{ours}, refused: []string{"3"}},
		{name: "a string id where ours is a number", framing: FrameEvents, in: ev(`{"jsonrpc":"2.0","id":"2","result":{}}`, ours),
			want: []string{ours}, refused: []string{`"2"`}},
		{name: "the id in another letter case", framing: FrameEvents, in: ev(`{"result":{},"ID":3}`, ours),
			want: []string{ours}, refused: []string{"3"}},
		{name: "an escaped key", framing: FrameEvents, in: ev(`{"\u0069d":3,"result":{}}`, ours),
			want: []string{ours}, refused: []string{"3"}},
		{name: "the last of two ids", framing: FrameEvents, in: ev(`{"id":2,"id":3,"result":{}}`, ours),
			want: []string{ours}, refused: []string{"3"}},
		{name: "our id written as a float", framing: FrameEvents, in: ev(`{"jsonrpc":"2.0","id":2.0,"result":{}}`),
			want: []string{`{"jsonrpc":"2.0","id":2.0,"result":{}}`}},
		{name: "over lines of data", framing: FrameEvents,
			in:   "data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":3,\"result\":{}}\n\n" + ev(ours),
			want: []string{ours}, refused: []string{"3"}},
		{name: "behind an event ended by carriage returns", framing: FrameEvents,
			in:   "data: " + note + "\n\r\r\ndata: {\"id\":3,\"result\":{}}\n\n" + ev(ours),
			want: []string{note, ours}, refused: []string{"3"}},
		{name: "the server's own request and notification pass", framing: FrameEvents, in: ev(note, request, ours),
			want: []string{note, request, ours}},
		{name: "a method mcp-go cannot read as a request's", framing: FrameEvents, in: ev(`{"id":3,"method":{},"result":{}}`, ours),
			want: []string{ours}, refused: []string{"3"}},
		{name: "nothing after the answer is read", framing: FrameEvents, in: ev(ours, `{"jsonrpc":"2.0","id":2,"result":{"again":1}}`),
			want: []string{ours}},
		{name: "a null id is no reply to anyone", framing: FrameEvents, in: ev(`{"jsonrpc":"2.0","id":null,"result":{}}`, ours),
			want: []string{`{"jsonrpc":"2.0","id":null,"result":{}}`, ours}},
		{name: "another id and no answer", framing: FrameEvents, in: ev(`{"jsonrpc":"2.0","id":3,"result":{}}`),
			want: []string{`{"error":"named another request's id (3)","id":2}`}, refused: []string{"3"}},
		{name: "a body with the answer", framing: FrameBody, in: ours, want: []string{ours}},
		{name: "a body with another id", framing: FrameBody, in: `{"jsonrpc":"2.0","result":{"x":"}"},"id":7}`, refused: []string{"7"}, err: true},
		{name: "a body with a request's shape is still taken for the answer", framing: FrameBody, in: request, refused: []string{"3"}, err: true},
		{name: "an id too long to be ours is shown by its start", framing: FrameBody, in: `{"jsonrpc":"2.0","id":"` + long + `","result":{}}`,
			refused: []string{idText([]byte(`"` + long))}, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var refused []string
			l := NewReplyLimiter(strings.NewReader(tc.in), LimitOptions{Limit: 1 << 20, Framing: tc.framing, ID: json.RawMessage(`2`), OneAnswer: true,
				Dropped: func(err error) {
					var f *ForeignReplyError
					if !errors.As(err, &f) || f.Want != "2" {
						t.Fatalf("Dropped told of %v", err)
					}
					refused = append(refused, f.ID)
				}})
			var got []string
			var err error
			if tc.framing == FrameBody {
				var b []byte
				if b, err = io.ReadAll(l); len(b) > 0 && err == nil {
					got = append(got, string(b))
				}
			} else {
				got, err = readData(l)
			}
			var f *ForeignReplyError
			if tc.err != errors.As(err, &f) || (!tc.err && err != nil) {
				t.Fatalf("read error %v; want a *ForeignReplyError: %v", err, tc.err)
			}
			if !slices.Equal(got, tc.want) || !slices.Equal(refused, tc.refused) {
				t.Fatalf("read %q, refused ids %q; want %q, %q", got, refused, tc.want, tc.refused)
			}
		})
	}
}

// readData reads an event stream as mcp-go does and returns the data of its events that
// are JSON (what mcp-go can decode), an error reply shortened to its id and what its
// message says of the id.
func readData(r io.Reader) ([]string, error) {
	var out []string
	br := bufio.NewReader(r)
	data := ""
	dispatch := func() {
		var e struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		switch {
		case !json.Valid([]byte(data)):
		case json.Unmarshal([]byte(data), &e) == nil && e.Error != nil:
			i := strings.Index(e.Error.Message, "named another request's id")
			msg := e.Error.Message[max(i, 0):]
			msg = msg[:strings.IndexByte(msg+")", ')')+1]
			b, _ := json.Marshal(map[string]any{"id": e.ID, "error": msg})
			out = append(out, string(b))
		default:
			out = append(out, data)
		}
		data = ""
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if data != "" {
				dispatch()
			}
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		line = strings.TrimRight(line, "\r\n")
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			v = strings.TrimPrefix(v, " ")
			if data != "" {
				data += "\n"
			}
			data += v
		} else if line == "" && data != "" {
			dispatch()
		}
	}
}

// TestOneAnswerOverSizeFailsAtOnce: on a stream that carries one answer, an event that
// goes on without end fails the request with the cap's error for its id, read no
// further than the cap (a reply, or a message whose start does not say) or than the
// bound on a dropped message's discarded rest (the server's notification, which may be
// followed by the answer), and the stream ends there. Before, such an event was read
// until the request's timeout.
func TestOneAnswerOverSizeFailsAtOnce(t *testing.T) {
	t.Parallel()
	const limit = 1 << 10
	for _, tc := range []struct {
		name, start string
		most        int // bytes read from the server at most
	}{
		{"a reply that names its id first", `data: {"jsonrpc":"2.0","id":2,"result":{"text":"`, limit + 4096},
		{"a message whose start does not say", `data: {"jsonrpc":"2.0","_meta":{"n":"`, limit + 4096},
		{"another id first", `data: {"jsonrpc":"2.0","id":5,"result":{"text":"`, limit + 4096},
		{"lines that are no field", ": ", limit + 4096},
		{"the server's notification", `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`, (skipAnswerMax+1)*limit + 2*4096},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := &endless{start: tc.start, stop: 64 * limit}
			l := NewReplyLimiter(src, LimitOptions{Limit: limit, Framing: FrameEvents, ID: json.RawMessage(`2`), OneAnswer: true})
			got, err := readData(bufio.NewReaderSize(l, 4096))
			if err != nil || len(got) != 1 || !strings.Contains(got[0], `"id":2`) {
				t.Fatalf("read %q (%v); want one error for id 2", got, err)
			}
			if src.n > tc.most {
				t.Fatalf("read %d bytes of an endless event through a cap of %d; want at most %d", src.n, limit, tc.most)
			}
		})
	}
}

// endless is start, then filler without end: reading more than stop bytes is an error.
type endless struct {
	start string
	stop  int
	n     int
}

func (e *endless) Read(b []byte) (int, error) {
	if e.n > e.stop {
		return 0, errors.New("read too far")
	}
	k := copy(b, e.start[min(e.n, len(e.start)):])
	for i := k; i < len(b); i++ {
		b[i] = 'x'
	}
	e.n += len(b)
	return len(b), nil
}
