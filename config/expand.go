package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// expandResult is the outcome of expanding one field value.
type expandResult struct {
	value     string
	missing   []string // unset variables without default, in order, deduplicated
	malformed int      // byte offset of a malformed reference, or -1
	expanded  bool     // the value contained at least one ${...} reference
}

// expand performs one pass of ${NAME} / ${NAME:-default} substitution on s.
// See Load for the rules. On a malformed reference expansion stops and
// malformed holds its byte offset.
func expand(s string, lookup func(string) (string, bool)) expandResult {
	res := expandResult{malformed: -1}
	var b strings.Builder
	pos := 0
	for {
		i := strings.Index(s[pos:], "${")
		if i < 0 {
			b.WriteString(s[pos:])
			break
		}
		start := pos + i
		b.WriteString(s[pos:start])
		res.expanded = true
		end := strings.IndexByte(s[start+2:], '}')
		if end < 0 {
			res.malformed = start
			return res
		}
		body := s[start+2 : start+2+end]
		pos = start + 2 + end + 1

		n := identLen(body)
		if n == 0 {
			res.malformed = start
			return res
		}
		name, rest := body[:n], body[n:]
		hasDefault := false
		def := ""
		switch {
		case rest == "":
		case strings.HasPrefix(rest, ":-"):
			hasDefault, def = true, rest[2:]
		default:
			res.malformed = start
			return res
		}
		if v, ok := lookup(name); ok {
			b.WriteString(v)
		} else if hasDefault {
			b.WriteString(def)
		} else if !slices.Contains(res.missing, name) {
			res.missing = append(res.missing, name)
		}
	}
	res.value = b.String()
	return res
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
func (d *draft) expandField(field, raw string, lookup func(string) (string, bool)) (string, bool) {
	r := expand(raw, lookup)
	if r.malformed >= 0 {
		d.fail(field, fmt.Sprintf("malformed ${...} reference at offset %d; use ${NAME} or ${NAME:-default} (NAME: letters, digits, _; not starting with a digit)", r.malformed))
		return "", false
	}
	for _, name := range r.missing {
		d.fail(field, fmt.Sprintf("environment variable %s is not set (set it or use ${%s:-default})", name, name))
	}
	if len(r.missing) > 0 {
		return "", false
	}
	return r.value, true
}

// expandMap expands every value of m under "<prefix>.<key>" field names.
func (d *draft) expandMap(prefix string, m map[string]string, lookup func(string) (string, bool)) map[string]string {
	if m == nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(m))
	for _, k := range keys {
		v, _ := d.expandField(prefix+"."+k, m[k], lookup)
		out[k] = v
	}
	return out
}

// finish runs the merge-time steps on an effective server: expansion, URL
// validation and cwd resolution. projectDir is absolute or "".
func (d *draft) finish(projectDir string, lookup func(string) (string, bool)) {
	s := &d.srv
	r := &s.Raw

	var cmdOK bool
	s.Command, cmdOK = d.expandField("command", r.Command, lookup)
	if r.Args != nil {
		s.Args = make([]string, len(r.Args))
		for i, a := range r.Args {
			s.Args[i], _ = d.expandField(fmt.Sprintf("args[%d]", i), a, lookup)
		}
	}
	s.Env = d.expandMap("env", r.Env, lookup)

	if cwd, ok := d.expandField("cwd", r.Cwd, lookup); ok && cwd != "" {
		switch {
		case filepath.IsAbs(cwd):
			s.Cwd = filepath.Clean(cwd)
		case projectDir != "":
			s.Cwd = filepath.Join(projectDir, cwd)
		default:
			d.fail("cwd", "is a relative path but there is no project directory to resolve it against; use an absolute path")
		}
	}

	u, urlOK := d.expandField("url", r.URL, lookup)
	s.URL = u
	if urlOK && r.URL != "" && (s.Transport == TransportStreamableHTTP || s.Transport == TransportSSE) {
		if !validHTTPURL(u) {
			// Never echo the URL: it may carry a token, literally or
			// through ${VAR}.
			d.fail("url", "is not a valid http:// or https:// URL with a host")
		}
	}
	s.Headers = d.expandMap("headers", r.Headers, lookup)

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
