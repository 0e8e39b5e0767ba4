package lifecycle

import (
	"maps"
	"runtime"
	"slices"
	"strings"

	"github.com/zot-mcp/mcp-bridge/config"
)

// minimalEnv is what every server gets under the minimal policy: what programs need to
// find executables, files, the locale, a temp dir and the network, and nothing that is
// usually a credential. Names ending in "*" are prefixes.
var minimalEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "LANG", "LANGUAGE", "LC_*", "TZ",
	"TMPDIR", "TEMP", "TMP", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
	// Windows
	"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT", "USERPROFILE", "USERNAME", "HOMEDRIVE",
	"HOMEPATH", "APPDATA", "LOCALAPPDATA", "ProgramData", "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432",
	"CommonProgramFiles", "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "OS",
}

// Env is the environment of a stdio server: environ filtered by the policy, then
// the server's own "env" (which wins).
func Env(cfg *config.Server, environ []string) []string {
	var env []string
	if cfg.EnvPolicy.Mode == config.EnvMinimal {
		allowed := append(append([]string(nil), minimalEnv...), cfg.EnvPolicy.Pass...)
		for _, kv := range environ {
			k, _, _ := strings.Cut(kv, "=")
			if envAllowed(k, allowed) {
				env = append(env, kv)
			}
		}
	} else {
		env = append(env, environ...)
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		env = append(env, k+"="+cfg.Env[k])
	}
	return env
}

func envAllowed(name string, allowed []string) bool {
	fold := runtime.GOOS == "windows" // names are case-insensitive there
	for _, a := range allowed {
		if p, ok := strings.CutSuffix(a, "*"); ok {
			if strings.HasPrefix(name, p) || fold && strings.HasPrefix(strings.ToUpper(name), strings.ToUpper(p)) {
				return true
			}
			continue
		}
		if name == a || fold && strings.EqualFold(name, a) {
			return true
		}
	}
	return false
}
