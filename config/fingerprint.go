package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// fingerprintVersion changes whenever the fingerprint encoding changes, so
// old cache entries stop matching.
const fingerprintVersion = 1

// fingerprintData is the canonical form hashed by Fingerprint. Maps become
// key-sorted pairs and absent lists become empty ones, so the JSON encoding
// is deterministic and unambiguous.
type fingerprintData struct {
	Version   int         `json:"v"`
	Transport Transport   `json:"transport"`
	Command   string      `json:"command"`
	Args      []string    `json:"args"`
	URL       string      `json:"url"`
	Cwd       string      `json:"cwd"`
	Env       [][2]string `json:"env"`
	Headers   [][2]string `json:"headers"`
}

// Fingerprint returns a hex SHA-256 identifying what determines the
// server's tool list, for use as a tool-cache key.
//
// It covers the transport, command, args, url, cwd and the env and header
// entries, all taken from Raw, i.e. as written in the file before ${VAR}
// expansion: rotating a token held in ${VAR} keeps the fingerprint (and the
// cached tool list), while editing a literal value such as a toolset
// selector in env or args changes it. Timeouts, enabled/disabled,
// the tool filters (disabledTools, includeTools, excludeTools), Name, Source
// and Scope are deliberately left out, so editing them never invalidates the
// cache. A relative cwd is hashed as
// written (not resolved against the project directory). The encoding is the
// JSON of a canonical struct with sorted key/value pairs and a version
// number.
func (s *Server) Fingerprint() string {
	fd := fingerprintData{
		Version:   fingerprintVersion,
		Transport: s.Transport,
		Command:   s.Raw.Command,
		Args:      s.Raw.Args,
		URL:       s.Raw.URL,
		Cwd:       s.Raw.Cwd,
		Env:       SortedPairs(s.Raw.Env),
		Headers:   SortedPairs(s.Raw.Headers),
	}
	if fd.Args == nil {
		fd.Args = []string{}
	}
	return HashJSON(fd)
}

// SortedPairs returns m's entries as [key, value] pairs sorted by key: a deterministic,
// unambiguous JSON form of a map, for hashing (Fingerprint, trust.Fingerprint).
func SortedPairs(m map[string]string) [][2]string {
	out := make([][2]string, 0, len(m))
	for k, v := range m {
		out = append(out, [2]string{k, v})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out
}

// HashJSON returns the hex SHA-256 of v's JSON encoding. v must be a value whose encoding
// cannot fail (strings, string slices, pairs, numbers), as every fingerprint is.
func HashJSON(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// protocolKeyData is the canonical form hashed by ProtocolKey.
type protocolKeyData struct {
	Transport Transport `json:"transport"`
	Command   string    `json:"command"`
	Args      []string  `json:"args"`
	URL       string    `json:"url"`
	EnvNames  []string  `json:"envNames"`
}

// ProtocolKey identifies what decides which MCP revision the server speaks: the
// transport, command, args and url as written, and the names (not the values) of its
// env entries. The revision found is remembered under it (cache.Server.ProtocolKey), so
// rotating a token or editing a timeout keeps it, while another program or address
// negotiates afresh.
func (s *Server) ProtocolKey() string {
	k := protocolKeyData{Transport: s.Transport, Command: s.Raw.Command, Args: s.Raw.Args, URL: s.Raw.URL,
		EnvNames: slices.Sorted(maps.Keys(s.Raw.Env))}
	if k.Args == nil {
		k.Args = []string{}
	}
	if k.EnvNames == nil {
		k.EnvNames = []string{}
	}
	return HashJSON(k)
}
