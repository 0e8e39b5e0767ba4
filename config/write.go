package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/zot-mcp/mcp-bridge/internal/fsutil"
)

var utf8BOM = []byte("\xef\xbb\xbf")

// emptyFile is what AddServer starts from when the target does not exist yet.
const emptyFile = "{\n  \"mcpServers\": {}\n}\n"

// AddServer adds the server entry name to the JSONC config file at path, creating the file
// (and its directories, 0700) when missing. An existing entry of that name is an error
// unless force is set, in which case it is replaced. name must pass CheckServerName and
// must not look like another server of the file (CheckNewServerName). The file is patched,
// not re-serialised: its comments, formatting and unknown keys are kept. It is read and
// written under the file's cross-process lock, so concurrent edits all land, and written
// atomically (see editFile: mode 0600, or through a symbolic link). entry must be a JSON
// object. It reports whether an entry was replaced.
func AddServer(ctx context.Context, path, name string, entry json.RawMessage, force bool) (replaced bool, err error) {
	if err := CheckServerName(name); err != nil {
		return false, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(entry, &obj); err != nil || obj == nil {
		return false, fmt.Errorf("server entry for %q is not a JSON object", name)
	}
	err = editFile(ctx, path, func(data []byte) ([]byte, bool, error) {
		var err error
		replaced, data, err = addToFile(path, data, name, entry, force)
		return data, err == nil, err
	})
	return replaced, err
}

// addToFile is AddServer's edit of the file's bytes (nil when it does not exist).
func addToFile(path string, data []byte, name string, entry json.RawMessage, force bool) (replaced bool, out []byte, err error) {
	// Load accepts a UTF-8 byte order mark; keep it, but parse without it.
	bom := bytes.HasPrefix(data, utf8BOM)
	data = bytes.TrimPrefix(data, utf8BOM)
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte(emptyFile)
	}
	v, root, err := parseForEdit(path, data)
	if err != nil {
		return false, nil, err
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
			return false, nil, fmt.Errorf("%s: %q must be an object (nothing was changed)", path, key)
		}
		if old, exists := servers[name]; exists {
			if !force {
				return false, nil, &ExistsError{Name: name, Path: path, Same: equalJSON(old, entry)}
			}
			replaced = true
		}
		if err := CheckNewServerName(name, slices.Sorted(maps.Keys(servers))); err != nil {
			return false, nil, fmt.Errorf("%w (in %s; nothing was changed)", err, path)
		}
	}
	op := "add"
	if replaced {
		op = "replace"
	}
	patch = append(patch, map[string]any{"op": op, "path": "/" + key + "/" + pointerEscape(name), "value": json.RawMessage(entry)})
	pj, err := json.Marshal(patch)
	if err != nil {
		return false, nil, err
	}
	if err := v.Patch(pj); err != nil {
		return false, nil, fmt.Errorf("patch %s: %w", path, err)
	}
	indentMember(&v, key, name, entry)
	out = v.Pack()
	if bom {
		out = append(append([]byte{}, utf8BOM...), out...)
	}
	return replaced, out, nil
}

// editFile runs one read-modify-write of the config file at path under its cross-process
// lock (path+".lock", the directory created 0700 when missing), with the read done under
// the lock so that no other edit can come between it and the write. It refuses a file
// another user could change (fsutil.CheckWriters): rewriting it would launder what they
// put there into a file of the user's. edit gets the file's bytes (nil when it is missing)
// and returns the new content and whether to write it; the write replaces the file
// atomically, through a symbolic link to its target (fsutil.ReplaceFile: a link stays a
// link and its target keeps its mode; a regular or new file gets 0600).
func editFile(ctx context.Context, path string, edit func(data []byte) (out []byte, write bool, err error)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create the directory of %s: %w", path, err)
	}
	unlock, err := fsutil.Lock(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("waiting for the lock %s.lock (another mcp-bridge is editing the file?): %w", path, err)
	}
	defer unlock()
	data, unsafe, err := fsutil.ReadFileChecked(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return fmt.Errorf("read %s: %w", path, err)
	case unsafe != nil:
		return fmt.Errorf("%w; the bridge neither reads nor edits a config file another user could have changed: check what it holds, then fix it (nothing was changed)", unsafe)
	}
	out, write, err := edit(data)
	if err != nil || !write {
		return err
	}
	if err := fsutil.ReplaceFile(path, out); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
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

// RemoveServer deletes the server entry name from the JSONC config file at path, keeping
// the file's comments, formatting and other keys, and reports whether it was there. A
// missing file or entry is not an error (removed is false). It is read and written under
// the file's lock, like AddServer (see editFile). Any name can be removed, also one that
// CheckServerName refuses.
func RemoveServer(ctx context.Context, path, name string) (removed bool, err error) {
	err = editFile(ctx, path, func(data []byte) ([]byte, bool, error) {
		f, err := parseServersFile(path, data)
		if err != nil || f == nil {
			return nil, false, err
		}
		key := ""
		for _, k := range []string{"mcpServers", "servers"} {
			if _, ok := f.servers[k][name]; ok {
				key = k
				break
			}
		}
		if key == "" {
			return nil, false, nil
		}
		removeMember(&f.v, key, name)
		out := f.v.Pack()
		if f.bom {
			out = append(append([]byte{}, utf8BOM...), out...)
		}
		removed = true
		return out, true, nil
	})
	if err != nil {
		return false, err
	}
	return removed, nil
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
	return parseServersFile(path, data)
}

// parseServersFile parses the bytes of the config file at path for editing; nil without
// error when they are empty.
func parseServersFile(path string, data []byte) (*serversFile, error) {
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
		return v, nil, fmt.Errorf("parse %s: not valid JSON/JSONC (%s); fix the file first (nothing was changed)", path, syntaxReason(data, err))
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
