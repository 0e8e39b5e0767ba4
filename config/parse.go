package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/tailscale/hujson"

	"github.com/zot-mcp/mcp-bridge/internal/fsutil"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// fileResult is what one configuration file contributed.
type fileResult struct {
	status       FileStatus
	problems     []Problem
	servers      []*draft
	toolExposure string            // "" when not set (or invalid)
	inputs       map[string]string // VS Code "inputs": id → description
	// trustProjectServers is "trustProjectServers": true (global file only).
	trustProjectServers bool
	envPolicy           EnvPolicy
}

// draft is a server entry decoded from one file, before merge-time
// expansion and validation.
type draft struct {
	srv      Server
	hasURL   bool
	urlAlias string                     // "httpUrl" or "serverUrl" when the URL came from that spelling
	implied  Transport                  // transport implied by the URL's spelling ("" = none)
	inputs   map[string]string          // the file's VS Code inputs: id → description
	oauth    map[string]json.RawMessage // the "oauth" object (nil: none)
	bad      map[string]bool            // fields that already have a problem
	problems []Problem
	errs     []string
}

// fail records a problem with the server: it goes both to Problems and to
// the server's Err. field may be "".
func (d *draft) fail(field, msg string) {
	d.problems = append(d.problems, Problem{File: d.srv.Source, Server: d.srv.Name, Field: field, Message: msg})
	if d.bad == nil {
		d.bad = map[string]bool{}
	}
	d.bad[field] = true
	if field != "" {
		msg = field + ": " + msg
	}
	d.errs = append(d.errs, msg)
	d.srv.Err = strings.Join(d.errs, "; ")
}

// readFile reads and decodes one configuration file. path must be absolute.
func readFile(path, scope string) *fileResult {
	f := &fileResult{status: FileStatus{Path: path, Scope: scope}}
	fileFail := func(field, msg string) {
		f.problems = append(f.problems, Problem{File: path, Field: field, Message: msg})
		if f.status.Err == "" {
			if field != "" {
				msg = field + ": " + msg
			}
			f.status.Err = msg
		}
	}

	data, unsafe, err := fsutil.ReadFileChecked(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return f
		}
		f.status.Found = true
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		fileFail("", "cannot read file: "+err.Error())
		return f
	}
	f.status.Found = true
	if msg, refuse := unsafeFile(unsafe, scope); refuse {
		fileFail("", msg)
		return f
	} else if msg != "" {
		f.problems = append(f.problems, Problem{File: path, Level: LevelWarning, Message: msg})
	}

	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return f
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		fileFail("", "not valid JSON/JSONC ("+syntaxReason(data, err)+"); fix the syntax (comments and trailing commas are allowed)")
		return f
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(std, &top); err != nil {
		fileFail("", "the top level must be a JSON object")
		return f
	}
	if scope != ScopeGlobal {
		f.problems = append(f.problems, dropSettings(path, top)...)
	}
	if raw, ok := top["trustProjectServers"]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &f.trustProjectServers) != nil {
			fileFail("trustProjectServers", "must be true or false")
		}
	}

	if raw, ok := top["toolExposure"]; ok && !isNull(raw) {
		var s string
		switch {
		case json.Unmarshal(raw, &s) != nil:
			fileFail("toolExposure", `must be a string: "auto", "deferred", "proxy" or "direct"`)
		case s == ToolExposureAuto || s == ToolExposureDeferred || s == ToolExposureProxy || s == ToolExposureDirect:
			f.toolExposure = s
		default:
			fileFail("toolExposure", fmt.Sprintf(`unknown value %s; use "auto", "deferred", "proxy" or "direct"`, quoteShort(s)))
		}
	}

	if raw, ok := top["envPolicy"]; ok && !isNull(raw) {
		if p, msg, ok := parseEnvPolicy(raw); ok {
			f.envPolicy = p
		} else {
			fileFail("envPolicy", msg)
		}
	}
	if raw, ok := top["inputs"]; ok && !isNull(raw) {
		f.inputs = decodeInputs(path, raw, &f.problems)
	}

	key := "mcpServers"
	raw, ok := top[key]
	if !ok {
		key = "servers"
		raw, ok = top[key]
	}
	if !ok || isNull(raw) {
		return f
	}
	members, err := decodeObject(raw)
	if err != nil {
		fileFail(key, "must be an object mapping server names to server entries")
		return f
	}

	byName := map[string]*draft{}
	var order []string
	for _, m := range members {
		if slices.Contains(order, m.key) {
			f.problems = append(f.problems, Problem{File: path, Server: m.key,
				Message: "defined more than once in this file; the last definition is used"})
		} else {
			order = append(order, m.key)
		}
		d, ok := decodeServer(m.key, m.value, path, scope)
		if !ok {
			f.problems = append(f.problems, Problem{File: path, Server: m.key,
				Message: "server entry must be a JSON object; the entry is ignored"})
			delete(byName, m.key)
			continue
		}
		f.problems = append(f.problems, d.problems...)
		d.problems = nil
		d.inputs = f.inputs
		byName[m.key] = d
	}
	for _, k := range order {
		if d, ok := byName[k]; ok {
			f.servers = append(f.servers, d)
		}
	}
	return f
}

// unsafeFile words what fsutil.ReadFileChecked found about who else could change a config
// file of scope, and says whether the file is refused. Like ssh with its own files, the
// bridge takes no configuration from a file another user could have written: it would run
// what they put there as the user. A project file owned by another user but writable only
// by them is read (with a warning): a repository checked out by someone else is common,
// and its servers still run only with the user's approval of what they run.
func unsafeFile(unsafe error, scope string) (msg string, refuse bool) {
	var ue *fsutil.UnsafeError
	if !errors.As(unsafe, &ue) {
		return "", false
	}
	if scope == ScopeProject && ue.OwnerOnly {
		return fmt.Sprintf("%s, so they can change it; its servers run only once you approve them (to stop this warning: %s)", ue.Why, ue.Fix), false
	}
	return fmt.Sprintf("not read: it is %s, so another user could have changed it and the bridge would run what they wrote as you; check what it holds, then fix it: %s", ue.Why, ue.Fix), true
}

// serverListKeys are the top-level keys a project file may use: its server entries and
// what they refer to (VS Code's "inputs"), plus a schema reference editors add.
var serverListKeys = map[string]bool{"mcpServers": true, "servers": true, "inputs": true, "$schema": true}

// dropSettings removes every top-level setting from a non-global file's top level and
// returns one problem per key. Settings decide how the bridge treats every server (tool
// exposure, trust, environment policy), and a file that comes with a repository must not
// decide that for the user.
func dropSettings(path string, top map[string]json.RawMessage) []Problem {
	var keys []string
	for k := range top {
		if !serverListKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]Problem, 0, len(keys))
	for _, k := range keys {
		delete(top, k)
		out = append(out, Problem{File: path, Field: k, Level: LevelWarning,
			Message: "ignored: settings are read only from the global file, a project file cannot change them; move it to the global mcp.json"})
	}
	return out
}

type member struct {
	key   string
	value json.RawMessage
}

// decodeObject decodes a JSON object keeping member order and duplicates.
func decodeObject(raw json.RawMessage) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key: k, value: v})
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// quoteShort quotes a non-secret value for a message, shortening it.
func quoteShort(s string) string {
	const max = 60
	if len(s) > max {
		s = textcut.Prefix(s, max) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// decodeServer decodes one server entry. ok is false when the entry is not
// a JSON object at all.
func decodeServer(name string, raw json.RawMessage, path, scope string) (*draft, bool) {
	var fields map[string]json.RawMessage
	if isNull(raw) || json.Unmarshal(raw, &fields) != nil {
		return nil, false
	}
	d := &draft{srv: Server{
		Name:           name,
		Source:         path,
		Scope:          scope,
		ConnectTimeout: DefaultConnectTimeout,
		RequestTimeout: DefaultRequestTimeout,
		IdleTimeout:    DefaultIdleTimeout,
		Enabled:        true,
	}}
	if err := CheckServerName(name); err != nil {
		d.fail("", fmt.Sprintf("%v; rename the server, e.g. to %q", err, FixServerName(name, nil)))
	}
	get := func(k string) (json.RawMessage, bool) {
		v, ok := fields[k]
		if !ok || isNull(v) {
			return nil, false
		}
		return v, true
	}
	r := &d.srv.Raw

	v, hasCommand := get("command")
	if hasCommand {
		d.str("command", v, &r.Command)
	}
	if v, ok := get("args"); ok {
		r.Args = d.strList("args", v)
	}
	if v, ok := get("env"); ok {
		r.Env = d.strMap("env", v)
		for k := range r.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				d.fail("env", fmt.Sprintf("invalid variable name %s: it must be non-empty and contain no \"=\"", quoteShort(k)))
			}
		}
	}
	if v, ok := get("cwd"); ok {
		d.str("cwd", v, &r.Cwd)
	}
	if v, ok := get("url"); ok {
		d.hasURL = true
		d.str("url", v, &r.URL)
	}
	d.urlAliases(get)
	if v, ok := get("headers"); ok {
		r.Headers = d.strMap("headers", v)
	}
	if v, ok := get("oauth"); ok {
		d.parseOAuth(v)
	}

	d.srv.ConnectTimeout = d.duration(get, "connectTimeout", DefaultConnectTimeout, false)
	d.srv.RequestTimeout = d.duration(get, "requestTimeout", DefaultRequestTimeout, false)
	d.srv.IdleTimeout = d.duration(get, "idleTimeout", DefaultIdleTimeout, true)
	d.millisTimeout(get)

	if v, ok := get("enabled"); ok {
		var b bool
		if json.Unmarshal(v, &b) != nil {
			d.fail("enabled", "must be true or false")
		} else if !b {
			d.srv.Enabled = false
		}
	}
	if v, ok := get("disabled"); ok {
		var b bool
		if json.Unmarshal(v, &b) != nil {
			d.fail("disabled", "must be true or false")
		} else if b {
			d.srv.Enabled = false
		}
	}
	if v, ok := get("envPolicy"); ok {
		if p, msg, ok := parseEnvPolicy(v); ok {
			d.srv.EnvPolicy = p
		} else {
			d.fail("envPolicy", msg)
		}
	}
	if v, ok := get("disabledTools"); ok {
		d.srv.DisabledTools = d.strList("disabledTools", v)
	}
	if v, ok := get("instructions"); ok {
		d.str("instructions", v, &d.srv.Instructions)
	}
	if v, ok := get("pinTools"); ok {
		var b bool
		switch {
		case json.Unmarshal(v, &b) != nil:
			d.fail("pinTools", "must be true or false")
		case !b && scope != ScopeGlobal:
			d.warn("pinTools", "false has no effect here: the tools of a server from a project file are pinned when you approve it, and a tool that changes later waits for your approval again")
		default:
			d.srv.PinTools = b
		}
	}
	if v, ok := get("protocolVersion"); ok {
		d.protocolVersion(v)
	}
	d.srv.IncludeTools = d.patterns(get, "includeTools")
	d.srv.ExcludeTools = d.patterns(get, "excludeTools")
	d.srv.InteractiveTools = d.patterns(get, "interactiveTools")
	d.srv.AlwaysLoad = d.alwaysLoad(get)
	d.otherFields(fields)

	d.resolveTransport(get, hasCommand)
	return d, true
}

// resolveTransport sets Transport and TransportGuessed from "transport",
// "type", "command" and "url", and checks the transport's required field.
func (d *draft) resolveTransport(get func(string) (json.RawMessage, bool), hasCommand bool) {
	var chosen Transport
	var chosenField string
	bad := false
	for _, field := range []string{"transport", "type", "transportType"} {
		v, ok := get(field)
		if !ok {
			continue
		}
		var s string
		if !d.str(field, v, &s) {
			bad = true
			continue
		}
		t, ok := parseTransport(s)
		if !ok {
			d.fail(field, fmt.Sprintf(`unknown transport %s; use "stdio", "streamable-http" (or "http") or "sse"`, quoteShort(s)))
			bad = true
			continue
		}
		if chosen != "" && chosen != t {
			d.fail(field, fmt.Sprintf(`%q conflicts with %q in %q; remove one of them`, t, chosen, chosenField))
			bad = true
			continue
		}
		chosen, chosenField = t, field
	}
	if bad {
		return
	}
	if d.implied != "" && chosen != "" && chosen != d.implied {
		d.fail(chosenField, fmt.Sprintf(`%q conflicts with %q, which means %s; remove one of them`, chosen, d.urlAlias, d.implied))
		return
	}
	switch {
	case chosen != "":
	case d.implied != "":
		chosen = d.implied
	case hasCommand:
		chosen = TransportStdio
	case d.hasURL:
		chosen = TransportStreamableHTTP
		d.srv.TransportGuessed = true
	default:
		d.fail("", `needs "command" (stdio) or "url" (HTTP) ("httpUrl" and "serverUrl" are read too)`)
		return
	}
	d.srv.Transport = chosen
	if chosen == TransportSSE && mcp.IsModernProtocol(d.srv.ProtocolVersion) {
		d.fail("protocolVersion", fmt.Sprintf(`%q cannot be spoken over the legacy SSE transport; remove "protocolVersion", or use "streamable-http" if the server offers it`, d.srv.ProtocolVersion))
	}
	switch chosen {
	case TransportStdio:
		if strings.TrimSpace(d.srv.Raw.Command) == "" && !d.bad["command"] {
			d.fail("command", `required for the stdio transport; set "command" to the program to run`)
		}
	default:
		if strings.TrimSpace(d.srv.Raw.URL) == "" && !d.bad[d.urlField()] {
			d.fail(d.urlField(), fmt.Sprintf(`required for the %s transport; set "url" to the server's http(s) address`, chosen))
		}
	}
}

// protocolVersion reads "protocolVersion": one MCP revision the bridge knows.
func (d *draft) protocolVersion(v json.RawMessage) {
	var s string
	if !d.str("protocolVersion", v, &s) {
		return
	}
	if !mcp.IsValidProtocolVersion(s) {
		d.fail("protocolVersion", fmt.Sprintf(`unknown MCP revision %s; use %q (the modern protocol only), %q or an earlier legacy revision (%s), or remove the field to let the bridge negotiate`,
			quoteShort(s), mcp.LATEST_PROTOCOL_VERSION, mcp.LATEST_LEGACY_PROTOCOL_VERSION, strings.Join(mcp.LegacyProtocolVersions()[1:], ", ")))
		return
	}
	d.srv.ProtocolVersion = s
}

// parseTransport maps a transport/type value (with aliases) to a Transport.
func parseTransport(s string) (Transport, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "stdio":
		return TransportStdio, true
	case "streamable-http", "streamablehttp", "streamable_http", "http":
		return TransportStreamableHTTP, true
	case "sse":
		return TransportSSE, true
	}
	return "", false
}

// str decodes a string field; on a type error it records a problem.
func (d *draft) str(field string, v json.RawMessage, dst *string) bool {
	if json.Unmarshal(v, dst) != nil {
		d.fail(field, "must be a string")
		return false
	}
	return true
}

// strList decodes an array of strings, reporting bad elements by index.
func (d *draft) strList(field string, v json.RawMessage) []string {
	var elems []json.RawMessage
	if json.Unmarshal(v, &elems) != nil {
		d.fail(field, "must be an array of strings")
		return nil
	}
	out := make([]string, 0, len(elems))
	for i, e := range elems {
		var s string
		if json.Unmarshal(e, &s) != nil {
			d.fail(fmt.Sprintf("%s[%d]", field, i), "must be a string")
			continue
		}
		out = append(out, s)
	}
	return out
}

// strMap decodes an object of string values, reporting bad values by key.
// Values are never echoed.
func (d *draft) strMap(field string, v json.RawMessage) map[string]string {
	var elems map[string]json.RawMessage
	if json.Unmarshal(v, &elems) != nil {
		d.fail(field, "must be an object mapping names to string values")
		return nil
	}
	keys := slices.Sorted(maps.Keys(elems))
	out := make(map[string]string, len(elems))
	for _, k := range keys {
		var s string
		if json.Unmarshal(elems[k], &s) != nil {
			d.fail(field+"."+k, "must be a string (quote numbers and booleans)")
			continue
		}
		out[k] = s
	}
	return out
}

// maxSeconds keeps timeouts well inside time.Duration's range.
const maxSeconds = 100 * 365 * 24 * 3600

// duration decodes a timeout in seconds. allowZero is true for idleTimeout
// (0 = never sleep); otherwise the value must be > 0.
func (d *draft) duration(get func(string) (json.RawMessage, bool), field string, def time.Duration, allowZero bool) time.Duration {
	v, ok := get(field)
	if !ok {
		return def
	}
	var f float64
	if json.Unmarshal(v, &f) != nil {
		d.fail(field, "must be a number of seconds (e.g. 30 or 0.5)")
		return def
	}
	dur := time.Duration(math.Round(f * float64(time.Second)))
	switch {
	case f > maxSeconds:
		d.fail(field, "is too large; use a number of seconds below 100 years")
		return def
	case allowZero && f < 0:
		d.fail(field, "must not be negative; use a number of seconds, or 0 to never stop an idle server")
		return def
	case allowZero && f == 0:
		return 0
	case !allowZero && dur <= 0:
		d.fail(field, "must be a positive number of seconds")
		return def
	case allowZero && dur <= 0:
		d.fail(field, "is too small; use at least a millisecond, or 0 to never stop an idle server")
		return def
	}
	return dur
}
