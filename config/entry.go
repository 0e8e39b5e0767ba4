package config

import (
	"encoding/json"
	"errors"
	"strings"
)

// CheckEntry decodes one server entry as Load would, before it is written (the CLI's
// `add-json`), without expanding ${VAR} references: a variable the user will set later is
// not an error here. It returns the entry's errors joined in one error, and its warnings
// (ignored or misspelt fields) as text, so that nothing broken is written and nothing odd
// passes unsaid.
func CheckEntry(name string, raw json.RawMessage) (warnings []string, err error) {
	d, ok := decodeServer(name, raw, "", ScopeGlobal)
	if !ok {
		return nil, errors.New(`the server entry must be a JSON object, such as {"command":"npx","args":["-y","pkg"]} or {"type":"http","url":"https://…"}`)
	}
	var errs []string
	for _, p := range d.problems {
		msg := p.Message
		if p.Field != "" {
			msg = p.Field + ": " + msg
		}
		if p.Level == LevelWarning {
			warnings = append(warnings, msg)
		} else {
			errs = append(errs, msg)
		}
	}
	if len(errs) > 0 {
		return warnings, errors.New(strings.Join(errs, "; "))
	}
	return warnings, nil
}
