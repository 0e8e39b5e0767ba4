package config

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Environment policies for stdio servers ("envPolicy", per server or top level).
const (
	// EnvInherit passes the bridge's whole environment to the server (and so every API
	// key the user exported). The default for servers of the global file.
	EnvInherit = "inherit"
	// EnvMinimal passes only a base set (PATH, HOME, locale, temp dir, terminal, proxy
	// and certificate settings, the Windows system variables), the names listed with the
	// policy, and the server's own "env". The default for project servers.
	EnvMinimal = "minimal"
)

// EnvPolicy is what a stdio server gets of the bridge's environment. In a file it is
// "inherit", "minimal", or a list of variable names, which means minimal plus those names.
type EnvPolicy struct {
	// Mode is EnvInherit or EnvMinimal ("" before defaults are applied).
	Mode string
	// Pass lists extra variable names passed under EnvMinimal.
	Pass []string
}

// String is the policy as it would be written in the file.
func (p EnvPolicy) String() string {
	if p.Mode == EnvMinimal && len(p.Pass) > 0 {
		return "minimal + " + strings.Join(p.Pass, ", ")
	}
	return p.Mode
}

// parseEnvPolicy decodes an "envPolicy" value; msg says what is wrong when ok is false.
func parseEnvPolicy(raw json.RawMessage) (p EnvPolicy, msg string, ok bool) {
	const want = `must be "inherit", "minimal" or a list of variable names to pass besides the minimal set`
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case EnvInherit, EnvMinimal:
			return EnvPolicy{Mode: s}, "", true
		}
		return EnvPolicy{}, fmt.Sprintf("unknown value %s; %s", quoteShort(s), want), false
	}
	var names []string
	if json.Unmarshal(raw, &names) != nil {
		return EnvPolicy{}, want, false
	}
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, "=\x00") {
			return EnvPolicy{}, fmt.Sprintf("invalid variable name %s in the list", quoteShort(n)), false
		}
	}
	return EnvPolicy{Mode: EnvMinimal, Pass: names}, "", true
}

// defaultEnvPolicy is the policy of a server that sets none: the global file's top-level
// policy (a project file's top level is dropped, so a repository cannot loosen it), else
// inherit for global servers and minimal for project servers (they come with the
// repository, not from the user).
func defaultEnvPolicy(scope string, top EnvPolicy) EnvPolicy {
	if top.Mode != "" {
		return top
	}
	if scope == ScopeProject {
		return EnvPolicy{Mode: EnvMinimal}
	}
	return EnvPolicy{Mode: EnvInherit}
}
