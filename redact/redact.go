// Package redact is the one redactor: it hides a server's secrets (expanded ${VAR}
// values, header values, credentials in urls and args) in any text shown or logged.
package redact

import (
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/zot-mcp/mcp-bridge/config"
)

// redactedText replaces a secret in any text the bridge shows or logs.
const redactedText = "[redacted]"

// New returns the bridge's one redactor: a function that hides the secrets of cfg
// (nil: none) and of extra (OAuth tokens and the like) in a text, for messages to the
// model, the user and the log:
//   - a value that came from a ${VAR} reference (in the url, args, env, headers, command
//     or cwd) is shown as the reference, so the text reads like the config file;
//   - header values (but a few harmless ones), env values under a secret-looking name,
//     the url's password and query values, and literal url path segments, query values
//     and args that look like credentials become [redacted];
//   - the whole expanded url becomes DisplayURL.
//
// Longer matches are replaced first, so no part of a secret is left behind.
func New(cfg *config.Server, extra ...string) func(string) string {
	repl := map[string]string{}
	secret := func(v string, minLen int) {
		if len(v) >= minLen {
			repl[v] = redactedText
			if q := url.QueryEscape(v); q != v {
				repl[q] = redactedText
			}
		}
	}
	for _, v := range extra {
		secret(v, 4)
	}
	if cfg != nil {
		addServerSecrets(cfg, repl, secret)
	}
	if len(repl) == 0 {
		return func(s string) string { return s }
	}
	olds := make([]string, 0, len(repl))
	for k := range repl {
		olds = append(olds, k)
	}
	sort.Slice(olds, func(i, j int) bool {
		if len(olds[i]) != len(olds[j]) {
			return len(olds[i]) > len(olds[j])
		}
		return olds[i] < olds[j]
	})
	pairs := make([]string, 0, 2*len(olds))
	for _, o := range olds {
		pairs = append(pairs, o, repl[o])
	}
	return strings.NewReplacer(pairs...).Replace
}

func addServerSecrets(cfg *config.Server, repl map[string]string, secret func(string, int)) {
	// References first: a secret found below overrides the reference text for the same
	// value (a token is never worth showing, even as where it came from).
	ref := func(raw, expanded string) {
		for v, r := range refValues(raw, expanded) {
			if len(v) >= 4 {
				repl[v] = r
			}
		}
	}
	ref(cfg.Raw.URL, cfg.URL)
	ref(cfg.Raw.Command, cfg.Command)
	ref(cfg.Raw.Cwd, cfg.Cwd)
	if len(cfg.Raw.Args) == len(cfg.Args) {
		for i := range cfg.Args {
			ref(cfg.Raw.Args[i], cfg.Args[i])
		}
	}
	for k, v := range cfg.Env {
		ref(cfg.Raw.Env[k], v)
		if secretName(k) || looksSecret(v) {
			secret(v, 6)
		}
	}
	for k, v := range cfg.Headers {
		ref(cfg.Raw.Headers[k], v)
		switch http.CanonicalHeaderKey(k) {
		case "Accept", "Content-Type", "User-Agent", transport.HeaderKeyProtocolVersion:
			continue
		}
		secret(v, 6)
		if f := strings.Fields(v); len(f) > 1 { // "Bearer <token>": the token, not the scheme
			for _, tok := range f[1:] {
				secret(tok, 6)
			}
		}
	}
	for i, a := range cfg.Args {
		if argIsSecret(cfg.Args, i) {
			secret(a, 6)
		}
		if k, v, ok := strings.Cut(a, "="); ok && (secretName(k) || looksSecret(v)) {
			secret(v, 6)
		}
	}
	if u, err := url.Parse(cfg.URL); err == nil {
		if pw, ok := u.User.Password(); ok {
			secret(pw, 4)
		}
		for _, seg := range strings.Split(u.Path, "/") {
			if looksSecret(seg) {
				secret(seg, 6)
			}
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				secret(v, 6)
			}
		}
	}
	if cfg.URL != "" && cfg.URL != DisplayURL(cfg) {
		repl[cfg.URL] = DisplayURL(cfg)
	}
}

// refValues maps each value that a ${VAR} reference in raw expanded to (in expanded) to
// the reference as written.
func refValues(raw, expanded string) map[string]string {
	refs := config.Refs(raw)
	if len(refs) == 0 || raw == expanded {
		return nil
	}
	var pat strings.Builder
	pat.WriteString("^")
	prev := 0
	for _, r := range refs {
		pat.WriteString(regexp.QuoteMeta(raw[prev:r.Start]))
		pat.WriteString("(.*?)")
		prev = r.End
	}
	pat.WriteString(regexp.QuoteMeta(raw[prev:]))
	pat.WriteString("$")
	re, err := regexp.Compile(pat.String())
	if err != nil {
		return nil
	}
	m := re.FindStringSubmatch(expanded)
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(refs))
	for i, r := range refs {
		if v := m[i+1]; v != "" {
			out[v] = "${" + r.Name + "}"
		}
	}
	return out
}

// secretName reports whether a variable, flag or parameter name suggests a credential.
func secretName(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	for _, w := range []string{"token", "secret", "passw", "apikey", "api_key", "api-key", "auth", "credential", "private", "session", "signature", "access_key", "access-key"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return n == "key" || n == "sig" || n == "pat" || n == "pwd" || strings.HasSuffix(n, "_key") || strings.HasSuffix(n, "-key")
}

// credentialPrefixes start well-known token formats.
var credentialPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "sk_live_", "sk_test_",
	"rk_live_", "xoxb-", "xoxp-", "xoxa-", "xapp-", "AKIA", "ASIA", "AIza", "ya29.", "eyJ", "npm_", "pypi-", "hf_", "dop_v1_"}

// looksSecret reports whether a literal token looks like a credential: a known token
// prefix, or a long run of token characters mixing letters and digits.
func looksSecret(s string) bool {
	for _, p := range credentialPrefixes {
		if strings.HasPrefix(s, p) && len(s) >= len(p)+8 {
			return true
		}
	}
	if len(s) < 20 {
		return false
	}
	// A key is one long run of letters and digits (base64 may add +/=); words joined by
	// separators (names, markers, package names) are not.
	run, letters, digits := 0, 0, 0
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			letters++
			run++
		case r >= '0' && r <= '9':
			digits++
			run++
		case r == '+' || r == '=':
			run++
		case strings.ContainsRune("_-.~", r):
			if run >= 20 && letters >= 2 && digits >= 2 {
				return true
			}
			run, letters, digits = 0, 0, 0
		default:
			return false
		}
	}
	return run >= 20 && letters >= 2 && digits >= 2
}

// argIsSecret reports whether args[i] is the value of a secret-looking flag
// ("--token X"), a credential by its look, or the token of a "Bearer X" header argument.
func argIsSecret(args []string, i int) bool {
	a := args[i]
	if looksSecret(a) {
		return true
	}
	if i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") && secretName(args[i-1]) && !strings.HasPrefix(a, "-") {
		return true
	}
	return false
}

// isOneRef reports whether a is exactly one ${...} reference.
func isOneRef(a string) bool {
	refs := config.Refs(a)
	return len(refs) == 1 && refs[0].Start == 0 && refs[0].End == len(a)
}

// MaskArgs is args for display: ${VAR} references stay, credentials are masked.
func MaskArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case isOneRef(a):
			out[i] = a
		case maskInline(a) != a:
			out[i] = maskInline(a)
		case argIsSecret(args, i):
			out[i] = redactedText
		default:
			out[i] = a
		}
	}
	return out
}

// maskInline masks the value of "name=value" and "...Bearer value" forms within one
// argument when it is a literal credential.
func maskInline(a string) string {
	if k, v, ok := strings.Cut(a, "="); ok && !strings.HasPrefix(v, "${") && (secretName(k) || looksSecret(v)) {
		return k + "=" + redactedText
	}
	if i := strings.Index(strings.ToLower(a), "bearer "); i >= 0 {
		if v := a[i+len("bearer "):]; v != "" && !strings.HasPrefix(v, "${") {
			return a[:i+len("bearer ")] + redactedText
		}
	}
	if k, v, ok := strings.Cut(a, ":"); ok && secretName(k) && strings.TrimSpace(v) != "" && !strings.Contains(v, "${") {
		return k + ": " + redactedText
	}
	return a
}

// DisplayURL is the url as written in the config (${VAR} references, not values), without
// user info or query (which may hold literal secrets).
func DisplayURL(cfg *config.Server) string {
	u, query := cfg.Raw.URL, ""
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u, query = u[:i], "?…"
	}
	// Literal credentials in the path (some servers put the key there) are masked.
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			segs := strings.Split(u[i+3+j:], "/")
			for k, seg := range segs {
				if looksSecret(seg) {
					segs[k] = redactedText
				}
			}
			u = u[:i+3+j] + strings.Join(segs, "/")
		}
	}
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		end := strings.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
			u = u[:i+3] + rest[at+1:]
		}
	}
	return u + query
}
