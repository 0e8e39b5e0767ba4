// Package plainjson encodes JSON as people and models read it: compact, and with <, >
// and & as themselves. encoding/json escapes those three for HTML pages, which turned an
// example's "<message>" placeholder into "\u003cmessage\u003e" in front of the model.
package plainjson

import (
	"bytes"
	"encoding/json"
)

// Marshal is json.Marshal without HTML escaping (and without a trailing newline).
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
