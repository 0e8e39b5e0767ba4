package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/zot-mcp/mcp-bridge/internal/fsutil"
)

var utf8BOM = []byte("\xef\xbb\xbf")

// emptyFile is what AddServer starts from when the target does not exist yet.
const emptyFile = "{\n  \"mcpServers\": {}\n}\n"

// AddServer adds the server entry name to the JSONC config file at path, creating the file
// (and its directories) when missing. An existing entry of that name is an error unless
// force is set, in which case it is replaced. The file is patched, not re-serialised: its
// comments, formatting and unknown keys are kept. The write is atomic with mode 0600.
// entry must be a JSON object. It reports whether an entry was replaced.
func AddServer(path, name string, entry json.RawMessage, force bool) (replaced bool, err error) {
	if strings.TrimSpace(name) == "" {
		return false, errors.New("server name is empty")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(entry, &obj); err != nil || obj == nil {
		return false, fmt.Errorf("server entry for %q is not a JSON object", name)
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	// Load accepts a UTF-8 byte order mark; keep it, but parse without it.
	bom := bytes.HasPrefix(data, utf8BOM)
	data = bytes.TrimPrefix(data, utf8BOM)
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte(emptyFile)
	}
	v, err := hujson.Parse(data)
	if err != nil {
		// syntaxReason keeps the position but never echoes an unquoted token (a secret?).
		return false, fmt.Errorf("parse %s: not valid JSON/JSONC (%s); fix the file first (nothing was changed)", path, syntaxReason(err))
	}
	std := v.Clone()
	std.Standardize()
	var root map[string]json.RawMessage
	if err := json.Unmarshal(std.Pack(), &root); err != nil {
		return false, fmt.Errorf("parse %s: the top level must be a JSON object (nothing was changed)", path)
	}
	key := "mcpServers"
	if _, ok := root[key]; !ok {
		if _, vs := root["servers"]; vs {
			key = "servers"
		}
	}
	var patch []map[string]any
	if raw, ok := root[key]; !ok || isNull(raw) {
		// A null servers object means none (as Load reads it); "add" replaces it.
		patch = append(patch, map[string]any{"op": "add", "path": "/" + key, "value": map[string]any{}})
	} else {
		var servers map[string]json.RawMessage
		if err := json.Unmarshal(raw, &servers); err != nil {
			return false, fmt.Errorf("%s: %q must be an object (nothing was changed)", path, key)
		}
		if _, exists := servers[name]; exists {
			if !force {
				return false, fmt.Errorf("server %q already exists in %s; use --force to replace it", name, path)
			}
			replaced = true
		}
	}
	op := "add"
	if replaced {
		op = "replace"
	}
	patch = append(patch, map[string]any{"op": op, "path": "/" + key + "/" + pointerEscape(name), "value": json.RawMessage(entry)})
	pj, err := json.Marshal(patch)
	if err != nil {
		return false, err
	}
	if err := v.Patch(pj); err != nil {
		return false, fmt.Errorf("patch %s: %w", path, err)
	}
	indentMember(&v, key, name, entry)
	out := v.Pack()
	if bom {
		out = append(append([]byte{}, utf8BOM...), out...)
	}
	if err := fsutil.WriteFileAtomic(path, out); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return replaced, nil
}

// pointerEscape escapes one JSON Pointer reference token (RFC 6901).
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// indentMember lays out the member just added like its siblings: on its own line, with
// the entry pretty-printed at the member's indentation. Only the new member is touched.
func indentMember(root *hujson.Value, key, name string, entry json.RawMessage) {
	parent := root.Find("/" + key)
	if parent == nil {
		return
	}
	obj, ok := parent.Value.(*hujson.Object)
	if !ok {
		return
	}
	indent := "    "
	for _, m := range obj.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() != name {
			if ws := lastLineIndent(m.Name.BeforeExtra); ws != "" {
				indent = ws
			}
		}
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		lit, ok := m.Name.Value.(hujson.Literal)
		if !ok || lit.String() != name {
			continue
		}
		unit := "  "
		if strings.HasSuffix(indent, "\t") {
			unit = "\t"
		}
		var buf bytes.Buffer
		if json.Indent(&buf, entry, indent, unit) != nil {
			return
		}
		val, err := hujson.Parse(buf.Bytes())
		if err != nil {
			return
		}
		val.BeforeExtra = hujson.Extra(" ")
		m.Value = val
		// Keep any comment that ended up before the new member (e.g. after the old last
		// member's trailing comma); only its trailing whitespace is replaced.
		kept := bytes.TrimRight(m.Name.BeforeExtra, " \t\r\n")
		m.Name.BeforeExtra = append(append(hujson.Extra{}, kept...), "\n"+indent...)
		if i == len(obj.Members)-1 {
			closing := strings.TrimSuffix(indent, unit)
			if !bytes.Contains(obj.AfterExtra, []byte("\n")) {
				obj.AfterExtra = hujson.Extra("\n" + closing)
			}
		}
	}
	root.UpdateOffsets()
}

// lastLineIndent returns the whitespace after the last newline of extra ("" if none).
func lastLineIndent(extra hujson.Extra) string {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 {
		return ""
	}
	ws := string(extra[i+1:])
	if strings.Trim(ws, " \t") != "" {
		return ""
	}
	return ws
}
