package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
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
		Env:       sortedPairs(s.Raw.Env),
		Headers:   sortedPairs(s.Raw.Headers),
	}
	if fd.Args == nil {
		fd.Args = []string{}
	}
	// Marshaling strings and string slices cannot fail.
	b, _ := json.Marshal(fd)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func sortedPairs(m map[string]string) [][2]string {
	out := make([][2]string, 0, len(m))
	for k, v := range m {
		out = append(out, [2]string{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
