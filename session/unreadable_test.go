package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/jsonscan"
	"github.com/zot-mcp/mcp-bridge/testkit/testutil"
)

// deepJSON is an array nested n levels deep.
func deepJSON(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestReplyLimiterUnreadableLine: a line within the cap that mcp-go's decoder rejects (a
// raw NUL, nesting past jsonscan.MaxDepth) passes as it is and, when it is a reply whose
// id is found at its start or end, is followed by a JSON-RPC error for that id whose data
// names the fault; the server's own request or notification, and a reply without an id,
// get none; Unreadable is told of each; the lines behind go on. Stray output that is no
// message is left alone. Before, mcp-go dropped such a line without a word and its call
// waited for requestTimeout.
func TestReplyLimiterUnreadableLine(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":8,"result":{}}`
	nul := "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\x00b\"}]}}"
	nulIDLast := "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\x00b\"}]},\"jsonrpc\":\"2.0\",\"id\":\"call-3\"}"
	deep := `{"jsonrpc":"2.0","id":9,"result":{"structuredContent":{"a":` + deepJSON(jsonscan.MaxDepth) + `}}}`
	deepIDLast := `{"result":{"a":` + deepJSON(jsonscan.MaxDepth) + `},"jsonrpc":"2.0","id":10}`
	deepEnough := `{"jsonrpc":"2.0","id":11,"result":{"a":` + deepJSON(jsonscan.MaxDepth-2) + `}}`
	note := "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"a\x01b\"}}"
	noteMethodLast := "{\"params\":{\"data\":\"a\x01b\"},\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}"
	serverReq := "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"roots/list\",\"params\":{\"x\":\"\x02\"}}"
	noID := "{\"jsonrpc\":\"2.0\",\"result\":{\"text\":\"a\x00b\"},\"x\":{}}"
	stray := "\x1b[31mserver started\x1b[0m"
	tests := []struct {
		name  string
		in    string
		want  []string // ids of the lines that parse as JSON, in order ("err:<id>": an error)
		told  []UnreadableError
		fault jsonscan.Fault
	}{
		{name: "a raw NUL in a reply fails its id", in: nul + "\n" + ok + "\n", want: []string{"err:7", "8"},
			told: []UnreadableError{{Fault: jsonscan.ControlChar, ID: "7"}}, fault: jsonscan.ControlChar},
		{name: "a raw NUL in a reply whose id is last", in: nulIDLast + "\n" + ok + "\n", want: []string{`err:"call-3"`, "8"},
			told: []UnreadableError{{Fault: jsonscan.ControlChar, ID: `"call-3"`}}, fault: jsonscan.ControlChar},
		{name: "a reply nested too deep fails its id", in: deep + "\n" + ok + "\n", want: []string{"err:9", "8"},
			told: []UnreadableError{{Fault: jsonscan.TooDeep, ID: "9"}}, fault: jsonscan.TooDeep},
		{name: "a reply nested too deep whose id is last", in: deepIDLast + "\n" + ok + "\n", want: []string{"err:10", "8"},
			told: []UnreadableError{{Fault: jsonscan.TooDeep, ID: "10"}}, fault: jsonscan.TooDeep},
		{name: "the deepest nesting a decoder reads passes", in: deepEnough + "\n", want: []string{"11"}},
		{name: "a notification is only told of", in: note + "\n" + ok + "\n", want: []string{"8"},
			told: []UnreadableError{{Fault: jsonscan.ControlChar, NotReply: true, Method: "notifications/message"}}},
		{name: "a notification with its method last is only told of", in: noteMethodLast + "\n" + ok + "\n", want: []string{"8"},
			told: []UnreadableError{{Fault: jsonscan.ControlChar, NotReply: true, Method: "notifications/message"}}},
		{name: "a server request is not answered as ours", in: serverReq + "\n" + ok + "\n", want: []string{"8"},
			told: []UnreadableError{{Fault: jsonscan.ControlChar, NotReply: true, Method: "roots/list"}}},
		{name: "a reply without an id is only told of", in: noID + "\n" + ok + "\n", want: []string{"8"},
			told: []UnreadableError{{Fault: jsonscan.ControlChar}}},
		{name: "stray output is left alone", in: stray + "\n" + ok + "\n", want: []string{"8"}},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				var src io.Reader = strings.NewReader(tt.in)
				if oneByte {
					src = iotest.OneByteReader(src)
				}
				var told []UnreadableError
				lim := NewReplyLimiter(src, LimitOptions{Limit: 1 << 20, Unreadable: func(err error) {
					var bad *UnreadableError
					if !errors.As(err, &bad) {
						t.Fatalf("told of %v", err)
					}
					told = append(told, UnreadableError{Fault: bad.Fault, ID: bad.ID, NotReply: bad.NotReply, Method: bad.Method})
				}})
				br := bufio.NewReader(lim)
				var got []string
				passed := 0
				for {
					line, err := br.ReadString('\n')
					if line != "" {
						passed++
					}
					var msg struct {
						ID    json.RawMessage          `json:"id"`
						Error *mcp.JSONRPCErrorDetails `json:"error"`
					}
					if json.Unmarshal([]byte(line), &msg) == nil && len(msg.ID) > 0 {
						id := string(msg.ID)
						if msg.Error != nil {
							id = "err:" + id
							if e := unreadableFrom(msg.Error); e == nil || e.Fault != tt.fault {
								t.Fatalf("the error's data names %+v, want fault %v: %s", e, tt.fault, line)
							}
						}
						got = append(got, id)
					}
					if err != nil {
						if !errors.Is(err, io.EOF) {
							t.Fatal(err)
						}
						break
					}
				}
				if strings.Join(got, " ") != strings.Join(tt.want, " ") {
					t.Fatalf("messages %q, want %q", got, tt.want)
				}
				if len(told) != len(tt.told) {
					t.Fatalf("told of %+v, want %+v", told, tt.told)
				}
				for i := range told {
					if told[i] != tt.told[i] {
						t.Fatalf("told of %+v, want %+v", told[i], tt.told[i])
					}
				}
				// Every line of the input still reaches the reader, the unreadable ones
				// too, and one error for each reply whose id was found.
				want := strings.Count(tt.in, "\n")
				for _, e := range told {
					if e.ID != "" {
						want++
					}
				}
				if passed != want {
					t.Fatalf("%d lines read, want %d", passed, want)
				}
			})
		}
	}
}

// TestStdioUnreadableReplyFailsItsCall: a stdio server's reply that mcp-go's decoder
// rejects (a raw NUL in its text; a result nested past what the decoders read) fails its
// call at once with an *UnreadableError that names the fault, the log says so with the
// server and the id, and the session goes on. Before, mcp-go dropped the reply without a
// word and the call waited for requestTimeout (here: until the test's guard).
func TestStdioUnreadableReplyFailsItsCall(t *testing.T) {
	t.Parallel()
	var log testutil.SyncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, never a measurement
	defer cancel()
	sess := openCapServer(ctx, t, &log, nil)
	for _, tc := range []struct {
		tool  string
		fault jsonscan.Fault
		text  string
	}{
		{"nul", jsonscan.ControlChar, "byte 0x00"},
		{"deep", jsonscan.TooDeep, "10000 levels"},
	} {
		_, err := sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tc.tool}})
		var bad *UnreadableError
		if !errors.As(err, &bad) || bad.Fault != tc.fault || !strings.Contains(err.Error(), tc.text) || !strings.Contains(err.Error(), "the request ran") {
			t.Fatalf("%s: %v (session end %v)", tc.tool, err, sess.End())
		}
		if strings.HasPrefix(err.Error(), "transport error") {
			t.Fatalf("%s: worded as a transport failure: %v", tc.tool, err)
		}
		if res, err := sess.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "any"}}); err != nil || len(res.Content) != 1 {
			t.Fatalf("the call after %s: %v %v", tc.tool, res, err)
		}
	}
	l := log.String()
	for _, want := range []string{`"fault":"control character"`, `"fault":"nesting too deep"`, `"server":"capped"`, "the call it answers fails"} {
		if !strings.Contains(l, want) {
			t.Fatalf("log lacks %s: %s", want, l)
		}
	}
}
