// Command lone is a zot extension that forwards every tool_call to one MCP server on a
// single goroutine: it reads a frame, writes one tools/call, reads the server's lines
// until the reply, and writes the tool_result, each step a plain read or write on the
// pipes, with no extension package, no mcp-go and no bookkeeping in between. It is the
// least a process that decodes and encodes both sides of a call can do, so
// testkit/bench/hostsim times it beside the byte relay: how much of the bridge's cost
// over the relay any translating process pays, and how much is the bridge's own. It
// serves one call at a time and answers the server's own requests with an error; it is
// a benchmark fixture, never a way to run servers. The server's argv comes as a JSON
// array in MCP_FLOOR_SERVER, the tool in MCP_FLOOR_TOOL (echo when unset); it registers
// mcp__srv__<tool>.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	gojson "github.com/goccy/go-json"

	"github.com/zot-mcp/mcp-bridge/internal/rawio"
)

// hostFrame is the part of a host frame lone reads.
type hostFrame struct {
	Type string          `json:"type"`
	ID   string          `json:"id"`
	Args json.RawMessage `json:"args"`
}

// serverLine is the part of a server's line lone reads: a reply (id, result or error)
// or the server's own request or notification (method).
type serverLine struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result *struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// toolResult is the tool_result frame.
type toolResult struct {
	Type    string    `json:"type"`
	ID      string    `json:"id"`
	Content []content `json:"content"`
	IsError bool      `json:"is_error"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// conn is the two pipes to one peer: lines in, bytes out.
type conn struct {
	r *bufio.Reader
	w io.Writer
}

func (c conn) line() ([]byte, error) { return c.r.ReadSlice('\n') }

func (c conn) send(b []byte) error {
	_, err := c.w.Write(b)
	return err
}

func main() {
	runtime.GOMAXPROCS(1)
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "lone:", err)
		os.Exit(1)
	}
}

func run() error {
	var argv []string
	if err := json.Unmarshal([]byte(os.Getenv("MCP_FLOOR_SERVER")), &argv); err != nil || len(argv) == 0 {
		return errors.New("MCP_FLOOR_SERVER must be the server's argv as a JSON array")
	}
	tool := os.Getenv("MCP_FLOOR_TOOL")
	if tool == "" {
		tool = "echo"
	}
	srv, err := start(argv)
	if err != nil {
		return err
	}
	host := conn{r: bufio.NewReaderSize(rawio.Reader(pollable(os.Stdin)), 64<<10), w: rawio.Writer(pollable(os.Stdout))}
	if err := host.send([]byte(`{"type":"hello","protocol_version":1,"name":"lone","version":"0","capabilities":["tools"]}` + "\n")); err != nil {
		return err
	}
	if _, err := host.line(); err != nil { // hello_ack
		return fmt.Errorf("read hello_ack: %w", err)
	}
	if err := initialize(srv); err != nil {
		return err
	}
	name, _ := json.Marshal("mcp__srv__" + tool)
	if err := host.send([]byte(`{"type":"register_tool","name":` + string(name) + `,"description":"Forwards to the server.","parameters":{"type":"object"}}` + "\n" + `{"type":"ready"}` + "\n")); err != nil {
		return err
	}
	quoted, _ := json.Marshal(tool)
	req := make([]byte, 0, 4096)
	for n := int64(1); ; n++ {
		l, err := host.line()
		if err != nil {
			return nil // the host is gone
		}
		var f hostFrame
		if err := gojson.Unmarshal(l, &f); err != nil {
			return fmt.Errorf("host frame: %w", err)
		}
		switch f.Type {
		case "shutdown":
			return host.send([]byte(`{"type":"shutdown_ack"}` + "\n"))
		case "tool_call":
		default:
			continue
		}
		req = append(req[:0], `{"jsonrpc":"2.0","id":`...)
		req = strconv.AppendInt(req, n, 10)
		req = append(req, `,"method":"tools/call","params":{"name":`...)
		req = append(req, quoted...)
		req = append(req, `,"arguments":`...)
		req = append(req, f.Args...)
		req = append(req, "}}\n"...)
		res := call(srv, req, n)
		res.Type, res.ID = "tool_result", f.ID
		b, err := gojson.Marshal(res)
		if err != nil {
			return err
		}
		if err := host.send(append(b, '\n')); err != nil {
			return err
		}
	}
}

// call sends req and reads the server's lines until the reply to id.
func call(srv conn, req []byte, id int64) toolResult {
	fail := func(err error) toolResult {
		return toolResult{IsError: true, Content: []content{{Type: "text", Text: err.Error()}}}
	}
	if err := srv.send(req); err != nil {
		return fail(err)
	}
	want := strconv.FormatInt(id, 10)
	for {
		l, err := srv.line()
		if err != nil {
			return fail(err)
		}
		var m serverLine
		if err := gojson.Unmarshal(l, &m); err != nil {
			return fail(err)
		}
		if m.Method != "" {
			if len(m.ID) > 0 { // the server's own request: refused
				if err := srv.send([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"not supported"}}` + "\n")); err != nil {
					return fail(err)
				}
			}
			continue
		}
		if string(m.ID) != want {
			continue
		}
		switch {
		case m.Error != nil:
			return fail(errors.New(m.Error.Message))
		case m.Result == nil:
			return fail(errors.New("a reply with neither result nor error"))
		}
		out := toolResult{IsError: m.Result.IsError, Content: make([]content, 0, len(m.Result.Content))}
		for _, c := range m.Result.Content {
			out.Content = append(out.Content, content(c))
		}
		return out
	}
}

// start runs the server on two pipes read and written as the relay's are (rawio).
func start(argv []string) (conn, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	childIn, in, err := os.Pipe()
	if err != nil {
		return conn{}, err
	}
	out, childOut, err := os.Pipe()
	if err != nil {
		return conn{}, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, os.Stderr
	if err := cmd.Start(); err != nil {
		return conn{}, err
	}
	_ = childIn.Close()
	_ = childOut.Close()
	return conn{r: bufio.NewReaderSize(rawio.Reader(out), 64<<10), w: rawio.Writer(in)}, nil
}

// initialize runs the MCP handshake.
func initialize(srv conn) error {
	if err := srv.send([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"lone","version":"0"}}}` + "\n")); err != nil {
		return err
	}
	for {
		l, err := srv.line()
		if err != nil {
			return fmt.Errorf("initialize: %w", err)
		}
		var m serverLine
		if gojson.Unmarshal(l, &m) == nil && m.Method == "" && string(m.ID) == "0" {
			break
		}
	}
	return srv.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
}

// pollable returns a non-blocking duplicate of f that Go's poller watches, as the
// bridge reads and writes the host's pipes, or f itself.
func pollable(f *os.File) *os.File {
	if d, _ := rawio.Duplicate(f); d != nil {
		return d
	}
	return f
}
