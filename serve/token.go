package serve

import (
	"fmt"
	"os"
	"strings"

	"github.com/zot-mcp/mcp-bridge/internal/shellquote"
)

// TokenEnv is the environment variable the printed client configs read the bearer
// token from.
const TokenEnv = "MCP_BRIDGE_TOKEN"

// minToken is the shortest token accepted: a guessable one would open every server.
const minToken = 16

// ReadToken reads the bearer token of --token-file: the file's content without the
// surrounding white space. The file must be private to the user (no group or other
// permission bits) and the token at least minToken characters; the error names the file,
// never the token.
func ReadToken(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("--token-file %s can be read by other users (mode %04o); make it private: chmod 600 %s", path, st.Mode().Perm(), shellquote.Quote(path))
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	tok := strings.TrimSpace(string(raw))
	switch {
	case tok == "":
		return "", fmt.Errorf("--token-file %s is empty; put a random token in it, e.g. openssl rand -hex 32 > %s", path, shellquote.Quote(path))
	case len(tok) < minToken:
		return "", fmt.Errorf("--token-file %s holds a token of %d characters; use at least %d random ones", path, len(tok), minToken)
	case strings.ContainsAny(tok, " \t\r\n"):
		return "", fmt.Errorf("--token-file %s holds more than one word; the token is one line without spaces", path)
	}
	return tok, nil
}
