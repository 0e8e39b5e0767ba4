package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// Prefix starts every tool name the bridge registers.
const Prefix = "mcp__"

// MaxToolName is the longest tool name providers accept (OpenAI and Anthropic cap at 64).
const MaxToolName = 64

// hashLen is how many hex digits of SHA-256 a shortened or de-duplicated name carries.
const hashLen = 8

// Sanitize maps a server or tool name onto [A-Za-z0-9_]: every other rune becomes '_', a
// leading digit gets a "t_" prefix and an empty result becomes "unnamed".
func Sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" {
		return "unnamed"
	}
	if out[0] >= '0' && out[0] <= '9' {
		out = "t_" + out
	}
	return out
}

// shortHash is a stable digest of the exact (server, tool) pair.
func shortHash(server, tool string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	return hex.EncodeToString(sum[:])[:hashLen]
}

// baseName is the plain mcp__<server>__<tool> name, shortened to MaxToolName with a hash
// suffix when it is too long.
func baseName(server, tool string) string {
	name := Prefix + Sanitize(server) + "__" + Sanitize(tool)
	if len(name) <= MaxToolName {
		return name
	}
	return name[:MaxToolName-hashLen-1] + "_" + shortHash(server, tool)
}

// ToolRef identifies one MCP tool of one configured server.
type ToolRef struct {
	Server string // configured server name
	Tool   string // MCP tool name as the server knows it
}

// Collision records a tool that could not get its plain name.
type Collision struct {
	Ref      ToolRef
	Wanted   string // the plain name another tool already holds
	Assigned string // the name it got instead
}

// AssignNames gives every ref a unique registered name. It is deterministic whatever the
// input order: refs are sorted by (server, tool) and the first keeps the plain name; every
// later one that sanitises to a taken name gets a hash suffix of its exact pair.
func AssignNames(refs []ToolRef) (map[ToolRef]string, []Collision) {
	sorted := append([]ToolRef(nil), refs...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Server != sorted[j].Server {
			return sorted[i].Server < sorted[j].Server
		}
		return sorted[i].Tool < sorted[j].Tool
	})
	names := make(map[ToolRef]string, len(sorted))
	taken := make(map[string]bool, len(sorted))
	var collisions []Collision
	for _, ref := range sorted {
		if _, dup := names[ref]; dup {
			continue
		}
		name := baseName(ref.Server, ref.Tool)
		if taken[name] {
			wanted := name
			suffix := "_" + shortHash(ref.Server, ref.Tool)
			if len(name)+len(suffix) > MaxToolName {
				name = name[:MaxToolName-len(suffix)]
			}
			name += suffix
			collisions = append(collisions, Collision{Ref: ref, Wanted: wanted, Assigned: name})
		}
		taken[name] = true
		names[ref] = name
	}
	return names, collisions
}
