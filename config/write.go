package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
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
	v, root, err := parseForEdit(path, data)
	if err != nil {
		return false, err
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
		if old, exists := servers[name]; exists {
			if !force {
				return false, &ExistsError{Name: name, Path: path, Same: equalJSON(old, entry)}
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

// ExistsError is AddServer's refusal to replace an entry without force.
type ExistsError struct {
	Name, Path string
	// Same is whether the entry in the file equals the one offered, so that a repeated
	// import can say "already imported" rather than "a different one is there".
	Same bool
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("server %q already exists in %s; use --force to replace it", e.Name, e.Path)
}

// equalJSON reports whether two JSON values are equal as data (member order and layout aside).
func equalJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
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

// MaxServerNameLen is the longest server name AddServer's callers accept.
const MaxServerNameLen = 64

// CheckServerName accepts the names the CLI and /mcp setup write: letters, digits, '-'
// and '_', at most MaxServerNameLen long. Such a name is the same in the file, in tool
// names (mcp__<server>__<tool>) and on a command line, without quoting.
func CheckServerName(name string) error {
	if name == "" {
		return errors.New("server name is empty; use letters, digits, '-' and '_'")
	}
	if len(name) > MaxServerNameLen {
		return fmt.Errorf("server name is %d characters long; the limit is %d (letters, digits, '-' and '_')", len(name), MaxServerNameLen)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("server name %q has the character %q; use only letters, digits, '-' and '_' (at most %d)", name, r, MaxServerNameLen)
		}
	}
	if ReservedServerName(name) {
		return fmt.Errorf("server name %q is a /mcp subcommand word, so /mcp %s could not reach the server; choose another name", name, name)
	}
	return nil
}

// RemoveServer deletes the server entry name from the JSONC config file at path, keeping
// the file's comments, formatting and other keys, and reports whether it was there. A
// missing file or entry is not an error (removed is false). The write is atomic with
// mode 0600.
func RemoveServer(path, name string) (removed bool, err error) {
	f, err := readServersFile(path)
	if err != nil || f == nil {
		return false, err
	}
	key := ""
	for _, k := range []string{"mcpServers", "servers"} {
		if _, ok := f.servers[k][name]; ok {
			key = k
			break
		}
	}
	if key == "" {
		return false, nil
	}
	removeMember(&f.v, key, name)
	out := f.v.Pack()
	if f.bom {
		out = append(append([]byte{}, utf8BOM...), out...)
	}
	if err := fsutil.WriteFileAtomic(path, out); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, nil
}

// FileHasServer reports whether the config file at path has an entry name (a missing
// file has none). A file that cannot be parsed is an error naming it.
func FileHasServer(path, name string) (bool, error) {
	f, err := readServersFile(path)
	if err != nil || f == nil {
		return false, err
	}
	for _, k := range []string{"mcpServers", "servers"} {
		if _, ok := f.servers[k][name]; ok {
			return true, nil
		}
	}
	return false, nil
}

// serversFile is a parsed config file: its JSONC tree and its server objects by key.
type serversFile struct {
	v       hujson.Value
	bom     bool
	servers map[string]map[string]json.RawMessage // "mcpServers"/"servers" → name → entry
}

// readServersFile parses a config file for editing; nil without error when it is missing
// or empty.
func readServersFile(path string) (*serversFile, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	bom := bytes.HasPrefix(data, utf8BOM)
	data = bytes.TrimPrefix(data, utf8BOM)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	v, root, err := parseForEdit(path, data)
	if err != nil {
		return nil, err
	}
	f := &serversFile{v: v, bom: bom, servers: map[string]map[string]json.RawMessage{}}
	for _, k := range []string{"mcpServers", "servers"} {
		var m map[string]json.RawMessage
		if raw, ok := root[k]; ok && json.Unmarshal(raw, &m) == nil {
			f.servers[k] = m
		}
	}
	return f, nil
}

// parseForEdit parses the JSONC text of the config file at path (without its byte order
// mark) into the tree that edits patch and, read through a standardized copy, its top-level
// object.
func parseForEdit(path string, data []byte) (v hujson.Value, root map[string]json.RawMessage, err error) {
	v, err = hujson.Parse(data)
	if err != nil {
		// syntaxReason keeps the position but never echoes an unquoted token (a secret?).
		return v, nil, fmt.Errorf("parse %s: not valid JSON/JSONC (%s); fix the file first (nothing was changed)", path, syntaxReason(err))
	}
	std := v.Clone()
	std.Standardize()
	if err := json.Unmarshal(std.Pack(), &root); err != nil {
		return v, nil, fmt.Errorf("parse %s: the top level must be a JSON object (nothing was changed)", path)
	}
	return v, root, nil
}

// removeMember deletes one member of the object at /key, with the comment and line
// break before it; whatever follows the object's last member (up to the closing brace)
// stays.
func removeMember(root *hujson.Value, key, name string) {
	parent := root.Find("/" + key)
	if parent == nil {
		return
	}
	obj, ok := parent.Value.(*hujson.Object)
	if !ok {
		return
	}
	for i := range obj.Members {
		lit, ok := obj.Members[i].Name.Value.(hujson.Literal)
		if !ok || lit.String() != name {
			continue
		}
		// On one line ({"a": {}, "b": {}}), the next member takes the removed one's
		// spacing, so the object still opens as it did.
		if i+1 < len(obj.Members) {
			gone, next := obj.Members[i].Name.BeforeExtra, &obj.Members[i+1].Name
			if len(bytes.TrimSpace(gone)) == 0 && len(bytes.TrimSpace(next.BeforeExtra)) == 0 &&
				!bytes.ContainsRune(next.BeforeExtra, '\n') {
				next.BeforeExtra = append(hujson.Extra(nil), gone...)
			}
		}
		obj.Members = append(obj.Members[:i:i], obj.Members[i+1:]...)
		break
	}
	root.UpdateOffsets()
}
