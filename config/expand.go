package config

import (
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// expandResult is the outcome of expanding one field value.
type expandResult struct {
	value     string
	missing   []string // references without a value, in order, deduplicated (e.g. "TOKEN", "input:key")
	why       []string // for each missing reference, what to do about it
	malformed int      // byte offset of a malformed reference, or -1
	bad       string   // what is wrong with the malformed reference
	expanded  bool     // the value contained at least one ${...} reference
}

// Variables that other MCP clients predefine (VS Code, Cursor) and the bridge fills in.
const (
	varWorkspaceFolder         = "workspaceFolder"
	varWorkspaceFolderBasename = "workspaceFolderBasename"
	varUserHome                = "userHome"
)

// Getenv is the value of the environment variable name as lookup (os.LookupEnv, or a
// fake in tests) gives it; "" when it is unset or lookup is nil (no environment).
func Getenv(lookup func(string) (string, bool), name string) string {
	if lookup == nil {
		return ""
	}
	v, _ := lookup(name)
	return v
}

// InputEnvPrefix starts the environment variable that holds the value of a VS Code
// ${input:ID} reference: the bridge never prompts, so the user exports the value instead.
const InputEnvPrefix = "MCP_INPUT_"

// InputEnvVar returns the environment variable read for ${input:ID}: InputEnvPrefix
// followed by ID upper-cased, each character other than A-Z and 0-9 becoming "_"
// (e.g. "github-token" → MCP_INPUT_GITHUB_TOKEN).
func InputEnvVar(id string) string { return InputEnvPrefix + EnvVarName(id) }

// EnvVarName upper-cases s and replaces every character other than A-Z, 0-9 and _
// by "_", the way names are turned into environment variable names.
func EnvVarName(s string) string {
	b := []byte(strings.ToUpper(s))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// supportedRefs is the list of reference forms, for error messages.
const supportedRefs = "use ${NAME}, ${NAME:-default}, ${env:NAME}, ${input:ID}, ${workspaceFolder}, ${workspaceFolderBasename} or ${userHome} (NAME: letters, digits, _; not starting with a digit)"

// vars is what a ${...} reference can name.
type vars struct {
	lookup     func(string) (string, bool)
	projectDir string            // absolute, or "" when there is no project
	home       string            // the user's home directory, or "" when unknown
	inputs     map[string]string // VS Code input id → its description, for messages
}

// expand performs one pass of ${NAME} / ${NAME:-default} substitution on s with only
// environment variables. See Load for the rules.
func expand(s string, lookup func(string) (string, bool)) expandResult {
	return (&vars{lookup: lookup}).expand(s)
}

// expand performs one pass of substitution on s. Besides ${NAME} and
// ${NAME:-default} it reads the other clients' forms: ${env:NAME} (the same
// as ${NAME}), ${input:ID} (from the environment variable InputEnvVar(ID)),
// ${workspaceFolder}, ${workspaceFolderBasename} and ${userHome}. On a
// malformed reference expansion stops, malformed holds its byte offset and
// bad says what is wrong.
func (v *vars) expand(s string) expandResult {
	res := expandResult{malformed: -1}
	var b strings.Builder
	pos := 0
	for {
		start, end := nextRef(s, pos)
		if start < 0 {
			b.WriteString(s[pos:])
			break
		}
		b.WriteString(s[pos:start])
		res.expanded = true
		if end < 0 {
			res.malformed, res.bad = start, "no closing }"
			return res
		}
		body := s[start+2 : end-1]
		pos = end

		ref, val, ok, why, bad := v.resolve(body)
		if bad != "" {
			res.malformed, res.bad = start, bad
			return res
		}
		switch {
		case ok:
			b.WriteString(val)
		case !slices.Contains(res.missing, ref):
			res.missing = append(res.missing, ref)
			res.why = append(res.why, why)
		}
	}
	res.value = b.String()
	return res
}

// nextRef finds the first "${" at or after pos: start is its offset (-1 when there is
// none) and end the offset just past its "}" (-1 when it is never closed).
func nextRef(s string, pos int) (start, end int) {
	i := strings.Index(s[pos:], "${")
	if i < 0 {
		return -1, -1
	}
	start = pos + i
	j := strings.IndexByte(s[start+2:], '}')
	if j < 0 {
		return start, -1
	}
	return start, start + 2 + j + 1
}

// parsedRef is the body of one well-formed ${...} reference.
type parsedRef struct {
	kind       string // "", "env" or "input"
	name       string // the variable name, or the input ID
	hasDefault bool
	def        string
}

// parseRef reads the body of one ${...} reference; bad is non-empty when it is malformed.
func parseRef(body string) (r parsedRef, bad string) {
	if k, rest, found := strings.Cut(body, ":"); found && (k == "env" || k == "input") && !strings.HasPrefix(rest, "-") {
		r.kind, body = k, rest
	}
	if r.kind == "input" {
		n := inputIDLen(body)
		if n == 0 || n != len(body) {
			return r, "malformed ${input:ID}: ID must be letters, digits, '-', '_' or '.' (no default)"
		}
		r.name = body
		return r, ""
	}
	n := identLen(body)
	if n == 0 {
		return r, "not a variable name"
	}
	r.name = body[:n]
	rest := body[n:]
	switch {
	case rest == "":
	case strings.HasPrefix(rest, ":-"):
		r.hasDefault, r.def = true, rest[2:]
	case strings.HasPrefix(rest, ":"):
		return r, fmt.Sprintf("unsupported ${%s:...} reference", r.name)
	default:
		return r, "unexpected text after the variable name"
	}
	return r, ""
}

// builtin reports whether r names one of the predefined variables rather than the environment.
func (r parsedRef) builtin() bool {
	return r.kind == "" && (r.name == varWorkspaceFolder || r.name == varWorkspaceFolderBasename || r.name == varUserHome)
}

// Ref is one ${...} reference in a config value as written.
type Ref struct {
	// Name is the reference without its default, as it would be written between "${"
	// and "}": "TOKEN", "env:TOKEN", "input:api-key", "workspaceFolder". It never
	// carries the default, which may be a literal secret.
	Name string
	// Var is the environment variable the reference reads ("TOKEN"; InputEnvVar(ID)
	// for ${input:ID}), or "" for ${workspaceFolder}, ${workspaceFolderBasename} and
	// ${userHome}.
	Var string
	// Default reports a ":-default" part.
	Default bool
	// Start and End are the byte offsets of the whole reference in the value.
	Start, End int
}

// Refs returns the references in s, in order, read exactly as Load reads them. It
// stops at the first malformed reference, as Load does (which then refuses the value).
func Refs(s string) []Ref {
	var refs []Ref
	for pos := 0; ; {
		start, end := nextRef(s, pos)
		if start < 0 || end < 0 {
			return refs
		}
		p, bad := parseRef(s[start+2 : end-1])
		if bad != "" {
			return refs
		}
		r := Ref{Name: p.name, Var: p.name, Default: p.hasDefault, Start: start, End: end}
		switch {
		case p.kind != "":
			r.Name = p.kind + ":" + p.name
			if p.kind == "input" {
				r.Var = InputEnvVar(p.name)
			}
		case p.builtin():
			r.Var = ""
		}
		refs = append(refs, r)
		pos = end
	}
}

// resolve looks up the body of one ${...} reference. ok is false when the reference has
// no value (why says what to do); bad is non-empty when the body is malformed.
func (v *vars) resolve(body string) (ref, val string, ok bool, why, bad string) {
	p, bad := parseRef(body)
	if bad != "" {
		return "", "", false, "", bad
	}
	if p.kind == "input" {
		env := InputEnvVar(p.name)
		if val, ok := v.lookup(env); ok {
			return "", val, true, "", ""
		}
		what := fmt.Sprintf("input %q", p.name)
		if d := v.inputs[p.name]; d != "" {
			what += " (" + quoteShort(d) + ")"
		}
		return "input:" + p.name, "", false, fmt.Sprintf("%s has no value: set the environment variable %s to it (the bridge never prompts for inputs)", what, env), ""
	}
	name, hasDefault, def := p.name, p.hasDefault, p.def
	ref = name
	if p.builtin() {
		switch name {
		case varWorkspaceFolder, varWorkspaceFolderBasename:
			if v.projectDir != "" {
				if name == varWorkspaceFolder {
					return "", v.projectDir, true, "", ""
				}
				return "", filepath.Base(v.projectDir), true, "", ""
			}
			if hasDefault {
				return "", def, true, "", ""
			}
			return name, "", false, fmt.Sprintf("${%s} names the project directory, and there is none here; use an absolute path or ${%s:-default}", name, name), ""
		case varUserHome:
			if v.home != "" {
				return "", v.home, true, "", ""
			}
			if hasDefault {
				return "", def, true, "", ""
			}
			return name, "", false, "${userHome}: the home directory is unknown; use an absolute path", ""
		}
	}
	if val, ok := v.lookup(name); ok {
		return "", val, true, "", ""
	}
	if hasDefault {
		return "", def, true, "", ""
	}
	return name, "", false, fmt.Sprintf("environment variable %s is not set (set it or use ${%s:-default})", name, name), ""
}

// inputIDLen returns the length of the [A-Za-z0-9_.-]* prefix of s.
func inputIDLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return i
		}
	}
	return len(s)
}

// identLen returns the length of the [A-Za-z_][A-Za-z0-9_]* prefix of s.
func identLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		digit := c >= '0' && c <= '9'
		if !letter && !(digit && i > 0) {
			return i
		}
	}
	return len(s)
}

// expandField expands one field value, recording problems under field.
// It returns the expanded value and whether expansion succeeded; on
// failure the value is "".
func (d *draft) expandField(field, raw string, v *vars) (string, bool) {
	r := v.expand(raw)
	if r.malformed >= 0 {
		d.fail(field, fmt.Sprintf("malformed ${...} reference at offset %d (%s); %s", r.malformed, r.bad, supportedRefs))
		return "", false
	}
	for _, why := range r.why {
		d.fail(field, why)
	}
	if len(r.missing) > 0 {
		return "", false
	}
	return r.value, true
}

// expandMap expands every value of m under "<prefix>.<key>" field names.
func (d *draft) expandMap(prefix string, m map[string]string, v *vars) map[string]string {
	if m == nil {
		return nil
	}
	keys := slices.Sorted(maps.Keys(m))
	out := make(map[string]string, len(m))
	for _, k := range keys {
		out[k], _ = d.expandField(prefix+"."+k, m[k], v)
	}
	return out
}

// finish runs the merge-time steps on an effective server: expansion, URL
// validation and cwd resolution. projectDir is absolute or "".
func (d *draft) finish(projectDir, home string, lookup func(string) (string, bool)) {
	s := &d.srv
	r := &s.Raw
	v := &vars{lookup: lookup, projectDir: projectDir, home: home, inputs: d.inputs}

	var cmdOK bool
	s.Command, cmdOK = d.expandField("command", r.Command, v)
	if r.Args != nil {
		s.Args = make([]string, len(r.Args))
		for i, a := range r.Args {
			s.Args[i], _ = d.expandField(fmt.Sprintf("args[%d]", i), a, v)
		}
	}
	s.Env = d.expandMap("env", r.Env, v)

	if cwd, ok := d.expandField("cwd", r.Cwd, v); ok && cwd != "" {
		switch {
		case filepath.IsAbs(cwd):
			s.Cwd = filepath.Clean(cwd)
		case projectDir != "":
			s.Cwd = filepath.Join(projectDir, cwd)
		default:
			d.fail("cwd", "is a relative path but there is no project directory to resolve it against; use an absolute path")
		}
	}

	u, urlOK := d.expandField(d.urlField(), r.URL, v)
	s.URL = u
	if urlOK && r.URL != "" && (s.Transport == TransportStreamableHTTP || s.Transport == TransportSSE) {
		if !validHTTPURL(u) {
			// Never echo the URL: it may carry a token, literally or
			// through ${VAR}.
			d.fail(d.urlField(), "is not a valid http:// or https:// URL with a host")
		}
	}
	s.Headers = d.expandMap("headers", r.Headers, v)
	d.finishOAuth(v)

	if s.Transport == TransportStdio && r.Command != "" && cmdOK && strings.TrimSpace(s.Command) == "" {
		d.fail("command", "expands to an empty string; set the variable or use a non-empty default")
	}
}

// validHTTPURL reports whether u is an absolute http(s) URL with a host.
func validHTTPURL(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	return (p.Scheme == "http" || p.Scheme == "https") && p.Host != "" && p.Hostname() != ""
}
