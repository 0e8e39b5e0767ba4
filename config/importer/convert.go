package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/zot-mcp/mcp-bridge/config"
)

// converter turns foreign entries into ours and collects what it changed.
type converter struct {
	res            *Result
	includeSecrets bool
}

func (c *converter) note(server, format string, args ...any) {
	c.res.Notes = append(c.res.Notes, fmt.Sprintf("server %q: ", server)+fmt.Sprintf(format, args...))
}

// fromJSON converts an entry of a JSON-configured client: other spellings become ours,
// fields the bridge does not implement are dropped (each noted), the rest is kept.
func (c *converter) fromJSON(client, name string, in map[string]any) map[string]any {
	out := map[string]any{}
	keys := slices.Sorted(maps.Keys(in))
	for _, k := range keys {
		v := in[k]
		switch {
		case k == "httpUrl":
			out["url"] = v
			out["type"] = "http"
		case k == "serverUrl":
			out["url"] = v
		case k == "transportType":
			out["type"] = v
		case k == "timeout" && client == Gemini:
			if n, ok := v.(json.Number); ok {
				if f, err := n.Float64(); err == nil && f > 0 {
					out["requestTimeout"] = f / 1000
					continue
				}
			}
			c.note(name, "timeout: not a positive number of milliseconds; dropped")
		case k == "oauth":
			if o := c.oauth(name, v); len(o) > 0 {
				out[k] = o
			}
		case config.KnownField(k):
			out[k] = v
		default:
			if what, ok := config.IgnoredField(k); ok {
				c.note(name, "%s dropped: %s", k, what)
			} else {
				c.note(name, "%s dropped: the bridge does not know this field", k)
			}
		}
	}
	if client == Gemini {
		// Gemini expands bare $VAR wherever a value may refer to one; the bridge reads only
		// ${VAR}, so every reference is rewritten and none is taken for a literal secret.
		translateRefs(out)
	}
	return out
}

// oauth is the part of another client's "oauth" object the bridge reads (its client id,
// secret reference, method...), with a note for each field left out; nil when none is
// left (Gemini's {"enabled": true}, say, which the bridge needs no field for).
func (c *converter) oauth(name string, v any) map[string]any {
	in, ok := v.(map[string]any)
	if !ok {
		c.note(name, "oauth dropped: not an object")
		return nil
	}
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(in)) {
		switch read, what := config.OAuthField(k); {
		case read:
			out[k] = in[k]
		case what != "":
			c.note(name, "oauth.%s dropped: %s", k, what)
		default:
			c.note(name, "oauth.%s dropped: the bridge does not know this field", k)
		}
	}
	return out
}

// translateRefs rewrites bare $VAR references as ${VAR} in every string of an entry's
// command, args, cwd, url, env and headers.
func translateRefs(e map[string]any) {
	conv := func(v any) any {
		if s, ok := v.(string); ok {
			return bareVar.ReplaceAllString(s, "$${$1}")
		}
		return v
	}
	for _, k := range []string{"command", "cwd", "url"} {
		if v, ok := e[k]; ok {
			e[k] = conv(v)
		}
	}
	if args, ok := e["args"].([]any); ok {
		for i := range args {
			args[i] = conv(args[i])
		}
	}
	for _, k := range []string{"env", "headers"} {
		if m, ok := e[k].(map[string]any); ok {
			for name, v := range m {
				m[name] = conv(v)
			}
		}
	}
}

// bareVar is $NAME not followed by "{" (Gemini's other form of a reference).
var bareVar = regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)`)

// codexServers decodes Codex's config.toml and returns its [mcp_servers.NAME] tables.
func codexServers(data []byte) (map[string]map[string]any, error) {
	var top struct {
		MCPServers map[string]map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(data), &top); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("not valid TOML (line %d); fix the syntax first", pe.Position.Line)
		}
		return nil, fmt.Errorf("not a Codex config: %v", err)
	}
	return top.MCPServers, nil
}

// fromCodex maps one [mcp_servers.NAME] table to our entry.
func (c *converter) fromCodex(name string, in map[string]any) map[string]any {
	out := map[string]any{}
	headers := map[string]any{}
	keys := slices.Sorted(maps.Keys(in))
	for _, k := range keys {
		v := in[k]
		switch k {
		case "command", "args", "env", "cwd":
			out[k] = v
		case "url":
			out["url"] = v
			out["type"] = "http"
		case "enabled":
			if b, ok := v.(bool); ok && !b {
				out["enabled"] = false
			}
		case "enabled_tools":
			out["includeTools"] = v
		case "disabled_tools":
			out["excludeTools"] = v
		case "startup_timeout_sec":
			out["connectTimeout"] = v
		case "startup_timeout_ms":
			if f, ok := number(v); ok {
				out["connectTimeout"] = f / 1000
			}
		case "tool_timeout_sec":
			out["requestTimeout"] = v
		case "bearer_token_env_var":
			if s, ok := v.(string); ok {
				headers["Authorization"] = "Bearer ${" + s + "}"
			}
		case "bearer_token":
			if s, ok := v.(string); ok {
				headers["Authorization"] = "Bearer " + s
			}
		case "http_headers":
			if m, ok := v.(map[string]any); ok {
				for h, hv := range m {
					headers[h] = hv
				}
			}
		case "env_http_headers":
			if m, ok := v.(map[string]any); ok {
				for h, hv := range m {
					if s, ok := hv.(string); ok {
						headers[h] = "${" + s + "}"
					}
				}
			}
		case "env_vars":
			// Codex passes a base environment plus these names; envPolicy's list form is
			// the same rule.
			out["envPolicy"] = v
		default:
			c.note(name, "%s dropped: the bridge has no such setting", k)
		}
	}
	if len(headers) > 0 {
		out["headers"] = headers
	}
	return out
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// secrets replaces the literal secrets of an entry by ${VAR} references (unless
// includeSecrets) and records each one by field name.
func (c *converter) secrets(server string, e map[string]any) {
	prefix := envName(server)
	used := map[string]bool{}
	pick := func(base string) string {
		v := base
		for i := 2; used[v]; i++ {
			v = fmt.Sprintf("%s_%d", base, i)
		}
		used[v] = true
		return v
	}
	replace := func(field, varName, kept string) string {
		if c.includeSecrets {
			c.res.Secrets = append(c.res.Secrets, Secret{Server: server, Field: field})
			return ""
		}
		v := pick(varName)
		c.res.Secrets = append(c.res.Secrets, Secret{Server: server, Field: field, Var: v})
		return kept + "${" + v + "}"
	}
	if env, ok := e["env"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(env)) {
			if s, ok := env[k].(string); ok && literal(s) && credential(k, s) {
				if r := replace("env."+k, envName(k), ""); r != "" {
					env[k] = r
				}
			}
		}
	}
	if hs, ok := e["headers"].(map[string]any); ok {
		for _, h := range slices.Sorted(maps.Keys(hs)) {
			s, ok := hs[h].(string)
			if !ok || !literal(s) {
				continue
			}
			scheme, value := "", s
			if sch, rest, ok := strings.Cut(s, " "); ok && authScheme[strings.ToLower(sch)] && rest != "" {
				scheme, value = sch+" ", rest
			}
			if !credential(h, value) && scheme == "" {
				continue
			}
			if r := replace("headers."+h, prefix+"_"+envName(h), scheme); r != "" {
				hs[h] = r
			}
		}
	}
	if o, ok := e["oauth"].(map[string]any); ok {
		for _, k := range []struct{ field, suffix string }{{"clientSecret", "CLIENT_SECRET"}, {"privateKey", "PRIVATE_KEY"}} {
			if s, ok := o[k.field].(string); ok && literal(s) && s != "" {
				if r := replace("oauth."+k.field, prefix+"_"+k.suffix, ""); r != "" {
					o[k.field] = r
				}
			}
		}
	}
	if args, ok := e["args"].([]any); ok {
		for i, a := range args {
			s, ok := a.(string)
			if !ok || !literal(s) {
				continue
			}
			field := fmt.Sprintf("args[%d]", i)
			if flag, val, ok := strings.Cut(s, "="); ok && strings.HasPrefix(flag, "-") && val != "" && (secretName(flag) || urlPassword(val)) {
				if r := replace(field, prefix+"_"+envName(strings.TrimLeft(flag, "-")), flag+"="); r != "" {
					args[i] = r
				}
				continue
			}
			prev := ""
			if i > 0 {
				prev, _ = args[i-1].(string)
			}
			if strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") && secretName(prev) || looksLikeToken(s) || urlPassword(s) {
				base := prefix + "_TOKEN"
				if urlPassword(s) {
					base = prefix + "_URL"
				}
				if strings.HasPrefix(prev, "-") && secretName(prev) {
					base = prefix + "_" + envName(strings.TrimLeft(prev, "-"))
				}
				if r := replace(field, base, ""); r != "" {
					args[i] = r
				}
			}
		}
	}
	if u, ok := e["url"].(string); ok && literal(u) && urlPassword(u) {
		// The password is in the URL's user info: the whole URL becomes the reference.
		if r := replace("url", prefix+"_URL", ""); r != "" {
			e["url"] = r
		}
	} else if ok {
		if base, query, ok := strings.Cut(u, "?"); ok {
			parts := strings.Split(query, "&")
			changed := false
			for i, p := range parts {
				k, v, ok := strings.Cut(p, "=")
				if !ok || v == "" || !secretName(k) || !literal(v) {
					continue
				}
				if r := replace("url?"+k, prefix+"_"+envName(k), k+"="); r != "" {
					parts[i], changed = r, true
				}
			}
			if changed {
				e["url"] = base + "?" + strings.Join(parts, "&")
			}
		}
	}
}

var authScheme = map[string]bool{"bearer": true, "basic": true, "token": true}

// credential reports whether a literal value is a secret, by the name it is stored under
// or by its own shape; anything else (a region, an org name, a flag) is kept as written.
func credential(name, value string) bool {
	return secretName(name) || looksLikeToken(value) || urlPassword(value)
}

// userPassword is a URL's user info with a password: scheme://user:password@.
var userPassword = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s:]*:[^/?#@\s]+@`)

// urlPassword reports whether s holds a URL with a password in its user info, as a
// database URL often does (postgres://app:hunter2@db/main).
func urlPassword(s string) bool { return userPassword.MatchString(s) }

// literal reports whether s is a value with no ${...} reference in it.
func literal(s string) bool { return s != "" && !strings.Contains(s, "${") }

// secretName reports whether a flag, header or parameter name suggests a credential.
func secretName(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"token", "key", "secret", "password", "passwd", "auth", "credential", "cookie", "session"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// tokenPrefixes start well-known credential formats.
var tokenPrefixes = []string{"ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-", "sk-", "xoxb-", "xoxp-", "xapp-", "AKIA", "AIza", "eyJ"}

// looksLikeToken reports whether an argument looks like a credential by itself: a known
// prefix, or a long unbroken run of letters and digits with both.
func looksLikeToken(s string) bool {
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(s, p) && len(s) > len(p)+8 {
			return true
		}
	}
	if len(s) < 32 || strings.ContainsAny(s, "/\\. :@") {
		return false
	}
	var letter, digit bool
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letter = true
		case r == '-' || r == '_':
		default:
			return false
		}
	}
	return letter && digit
}

// envName turns s into an environment variable name (which cannot start with a digit).
func envName(s string) string {
	n := config.EnvVarName(s)
	if n == "" || n[0] >= '0' && n[0] <= '9' {
		n = "_" + n
	}
	return n
}
