package config

import "strings"

// ReservedServerName reports whether name cannot be a server name because /mcp would read
// it as one of its own words: a subcommand (help, status, start, ...), the "all" target,
// or a flag (anything starting with '-'). Such a server could never be shown or addressed
// by name, so the configuration rejects it rather than letting a subcommand shadow it.
func ReservedServerName(name string) bool {
	if strings.HasPrefix(name, "-") {
		return true
	}
	switch strings.ToLower(name) {
	case "help", "status", "start", "stop", "restart", "refresh", "setup", "login", "logout", "trust", "untrust", "prompts", "prompt", "all":
		return true
	}
	return false
}
