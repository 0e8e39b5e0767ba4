// Package record is the format of the fake MCP server's -record file (testkit/fakemcp
// writes it, tests read it): one JSON object a line for each message, HTTP request or
// tool event the server saw.
package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Line is one line of a fake server (testkit/fakemcp) -record file. Which fields are set
// depends on what was recorded:
//
//   - a notification: Method and Params
//     (e.g. notifications/cancelled with params {"requestId":...})
//   - a request: Method and ID; tools/call also sets Tool and Arguments
//   - an HTTP request (-http/-sse): Method "http", HTTPMethod, Path,
//     Rejected, and Headers holding the -require-header key if it was sent
//   - "fake/slow_cancelled" with Tool "slow": the slow tool saw its context
//     cancelled
type Line struct {
	Method     string              `json:"method"`
	ID         json.RawMessage     `json:"id,omitempty"`
	Tool       string              `json:"tool,omitempty"`
	Arguments  json.RawMessage     `json:"arguments,omitempty"`
	Params     json.RawMessage     `json:"params,omitempty"`
	HTTPMethod string              `json:"httpMethod,omitempty"`
	Path       string              `json:"path,omitempty"`
	Headers    map[string][]string `json:"headers,omitempty"`
	Rejected   bool                `json:"rejected,omitempty"`
}

// IDString returns the JSON-RPC id as compact JSON text: 3 for a numeric id,
// "\"abc\"" for a string id, "" if there is none.
func (l Line) IDString() string {
	return compactJSON(l.ID)
}

// RequestID returns params.requestId (as found in notifications/cancelled) as
// compact JSON text comparable with IDString, or "" if absent.
func (l Line) RequestID() string {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(l.Params, &p) != nil {
		return ""
	}
	return compactJSON(p.RequestID)
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// Read parses the -record file at path. A missing file yields no lines; a trailing line
// without a newline (still being written) is ignored.
func Read(path string) ([]Line, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	var lines []Line
	for n, raw := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l Line
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("line %d: %w: %q", n+1, err, raw)
		}
		lines = append(lines, l)
	}
	return lines, nil
}
