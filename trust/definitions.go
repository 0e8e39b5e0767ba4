package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/internal/fsutil"
)

// The store holds only each pinned tool's fingerprint: it is read at every start, and a
// definition's text would make it large. What the user approved is kept beside it, in the
// definitions file, so that /mcp <server> can show the old text of a changed tool. Each
// definition is kept as the canonical JSON its fingerprint hashes, under that
// fingerprint, so a reader checks it against its key and a damaged or planted entry
// shows nothing rather than a false "was".

// definitionsVersion is the definitions file's format.
const definitionsVersion = 1

// definitionsFile is the decoded definitions file.
type definitionsFile struct {
	Version int                        `json:"version"`
	Tools   map[string]json.RawMessage `json:"tools"` // fingerprint → definitionJSON
}

// DefinitionsPath is the definitions file that belongs to the store at storePath.
func DefinitionsPath(storePath string) string {
	return strings.TrimSuffix(storePath, ".json") + "-tools.json"
}

// readDefinitions reads the definitions file; a missing, damaged or unknown one is empty.
func readDefinitions(storePath string) map[string]json.RawMessage {
	var d definitionsFile
	data, err := os.ReadFile(DefinitionsPath(storePath))
	if err != nil || json.Unmarshal(data, &d) != nil || d.Version != definitionsVersion || d.Tools == nil {
		return map[string]json.RawMessage{}
	}
	return d.Tools
}

// writeDefinitions adds the definitions of defs to the definitions file and drops those
// that no pin of f refers to any more. It runs under the store's lock.
func writeDefinitions(storePath string, f *File, defs []cache.Tool) error {
	old := readDefinitions(storePath)
	keep := map[string]bool{}
	for _, m := range f.Projects {
		for _, a := range m {
			for _, fp := range a.Tools {
				keep[fp] = true
			}
		}
	}
	for _, a := range f.Global {
		for _, fp := range a.Tools {
			keep[fp] = true
		}
	}
	out := make(map[string]json.RawMessage, len(keep))
	for fp, raw := range old {
		if keep[fp] {
			out[fp] = raw
		}
	}
	for i := range defs {
		raw := definitionJSON(&defs[i])
		if fp := hashHex(raw); keep[fp] {
			out[fp] = raw
		}
	}
	if sameKeys(old, out) {
		return nil
	}
	data, err := json.Marshal(definitionsFile{Version: definitionsVersion, Tools: out})
	if err != nil {
		return fmt.Errorf("trust store: encoding the approved tools: %w", err)
	}
	if err := fsutil.WriteFileAtomic(DefinitionsPath(storePath), append(data, '\n')); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	return nil
}

// sameKeys reports whether a and b hold the same fingerprints (a fingerprint's
// definition is always the same bytes).
func sameKeys(a, b map[string]json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// ApprovedTools returns the definitions the user approved under the given fingerprints,
// by fingerprint, from the definitions file beside the store at storePath. A fingerprint
// whose definition is missing or does not hash to it is left out.
func ApprovedTools(storePath string, fingerprints []string) map[string]cache.Tool {
	all := readDefinitions(storePath)
	out := map[string]cache.Tool{}
	for _, fp := range fingerprints {
		raw, ok := all[fp]
		if !ok || hashHex(raw) != fp {
			continue
		}
		var d struct {
			Name         string             `json:"name"`
			Title        string             `json:"title"`
			Description  string             `json:"description"`
			InputSchema  json.RawMessage    `json:"inputSchema"`
			OutputSchema json.RawMessage    `json:"outputSchema"`
			Annotations  *cache.Annotations `json:"annotations"`
		}
		if json.Unmarshal(raw, &d) != nil {
			continue
		}
		t := cache.Tool{Name: d.Name, Title: d.Title, Description: d.Description, InputSchema: d.InputSchema, Annotations: d.Annotations}
		if string(d.OutputSchema) != "null" {
			t.OutputSchema = d.OutputSchema
		}
		out[fp] = t
	}
	return out
}

// hashHex is the hex SHA-256 of b.
func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
