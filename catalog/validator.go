package catalog

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/zot-mcp/mcp-bridge/internal/schemacheck"
)

// Validator compiles input schemas on first use and checks arguments against them; the
// zero value is ready. Compiled schemas are kept per tool with the sum of the schema.
type Validator struct {
	mu       sync.Mutex
	compiled map[ToolRef]compiledSchema
}

// compiledSchema is one tool's schema as last compiled, with the sum of the schema it
// was compiled from. A registered name always points at the same tool, but the tool's
// schema can change on a refresh: a call is checked against the schema the catalog holds
// now (a changed sum recompiles), and only the newest schema of a tool is kept.
type compiledSchema struct {
	sum uint64
	sch *jsonschema.Schema // nil: not checkable
}

// Check checks args against e's input schema; it returns what is wrong ("" when
// nothing is, or when the schema cannot be compiled: the server checks then).
func (v *Validator) Check(e *Tool, args json.RawMessage) string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return "arguments are not valid JSON: " + err.Error()
	}
	if _, ok := inst.(map[string]any); !ok {
		return "arguments must be a JSON object"
	}
	sch := v.schema(e)
	if sch == nil {
		return ""
	}
	if err := sch.Validate(inst); err != nil {
		return schemacheck.ErrorText(err)
	}
	return ""
}

// Fit checks args against e's input schema like Check, and when they do not match only
// because optional arguments are null where the schema wants a value, it leaves those out
// and returns the arguments without them: models write null for "not given", and a
// server never sees a null its schema refuses. args is returned as is otherwise.
func (v *Validator) Fit(e *Tool, args json.RawMessage) (json.RawMessage, string) {
	msg := v.Check(e, args)
	if msg == "" {
		return args, ""
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) != nil {
		return args, msg
	}
	var schema struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(e.CacheTool().InputSchema, &schema)
	dropped := false
	for k, raw := range fields {
		if string(bytes.TrimSpace(raw)) == "null" && !slices.Contains(schema.Required, k) {
			delete(fields, k)
			dropped = true
		}
	}
	if !dropped {
		return args, msg
	}
	fitted, err := json.Marshal(fields)
	if err != nil || v.Check(e, fitted) != "" {
		return args, msg
	}
	return fitted, ""
}

func (v *Validator) schema(e *Tool) *jsonschema.Schema {
	ref, sum := e.Ref(), e.InputSum()
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.compiled[ref]; ok && c.sum == sum {
		return c.sch
	}
	if v.compiled == nil {
		v.compiled = map[ToolRef]compiledSchema{}
	}
	sch := schemacheck.Compile(e.Name, e.CacheTool().InputSchema)
	v.compiled[ref] = compiledSchema{sum: sum, sch: sch}
	return sch
}
