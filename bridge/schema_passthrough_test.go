package bridge

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/extension"
)

// Schemas as Python servers emit them (pydantic v2 through FastMCP): $defs with $ref, and
// Optional[...] as anyOf with null.
const (
	pydanticSchema = `{"$defs":{"Mode":{"enum":["fast","slow"],"title":"Mode","type":"string"}},"properties":{"mode":{"$ref":"#/$defs/Mode"},"limit":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null,"title":"Limit"}},"required":["mode"],"title":"pydArguments","type":"object"}`
	topLevelSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","description":"d","definitions":{"X":{"type":"string","enum":["x","y"]}},"anyOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{"$ref":"#/definitions/X"},"b":{"type":"integer"}}}`
)

// TestSchemasPassThrough: tool lists are decoded tool by tool, schemas kept as sent.
// Before, one tool with a string/number/array schema, "required" as a string,
// "properties" as an array or "type": ["object","null"] failed the whole server ("list
// tools: failed to unmarshal"); a null schema became {"properties":{},"required":[],
// "type":""}; top-level $defs/definitions/anyOf/$schema/description were dropped (dangling
// $refs) and proxy validation accepted arguments outside an enum or violating anyOf.
func TestSchemasPassThrough(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t)
	raw := map[string]string{
		"pyd":       pydanticSchema,
		"toplevel":  topLevelSchema,
		"nullable":  `{"type":["object","null"],"properties":{"x":{"type":"string"}}}`,
		"reqstr":    `{"type":"object","properties":{"a":{"type":"string"}},"required":"a"}`,
		"proparr":   `{"type":"object","properties":["a"]}`,
		"noschema":  `null`,
		"strschema": `"just a string"`,
		"numschema": `42`,
		"arrschema": `[{"type":"object"}]`,
	}
	args := []string{"-duplicate-tool", "echo"}
	for name, s := range raw {
		args = append(args, "-raw-tool", name+"="+s)
	}
	e.write(map[string]any{"py": e.server(args...)}, nil)
	b := e.bridge(extension.GenNew)
	if _, errs := b.Refresh(ctxGuard(t), []string{"py"}); len(errs) > 0 {
		t.Fatalf("one odd tool failed the whole server: %v", errs)
	}
	file, err := cache.Read(b.opts.CachePath)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	count := map[string]int{}
	for _, tl := range file.Servers["py"].Tools {
		got[tl.Name] = string(tl.InputSchema)
		count[tl.Name]++
	}
	compact := func(s string) string {
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(s)); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	want := map[string]string{
		"pyd":      compact(pydanticSchema),
		"nullable": `{"type":"object","properties":{"x":{"type":"string"}}}`,
		"reqstr":   `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
		"proparr":  `{"type":"object","properties":{}}`,
		"noschema": `{"type":"object","properties":{}}`,
		// No "type" at the top: "object" is added in front, everything else kept.
		"toplevel": `{"type":"object",` + strings.TrimPrefix(compact(topLevelSchema), "{"),
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("schema of %s:\n got %s\nwant %s", name, got[name], w)
		}
	}
	for _, name := range []string{"strschema", "numschema", "arrschema"} {
		if _, ok := got[name]; ok {
			t.Errorf("unusable tool %s was kept: %s", name, got[name])
		}
	}
	if count["echo"] != 1 {
		t.Errorf("a tool listed twice is kept %d times", count["echo"])
	}
	// The skipped tools are reported where the user looks: /mcp <server>.
	detail := b.detailText("py")
	for _, want := range []string{"skipped:", "4 not offered", "strschema (input schema is a JSON string", "echo (listed twice"} {
		if !strings.Contains(detail, want) {
			t.Errorf("/mcp py does not say %q:\n%s", want, detail)
		}
	}

	// Proxy calls are validated against the full schema.
	calls := []struct {
		tool, args string
		bad        bool
	}{
		{"pyd", `{"mode":"fast"}`, false},
		{"pyd", `{"mode":"fast","limit":null}`, false},
		{"pyd", `{"mode":"medium"}`, true},           // outside the $ref'd enum
		{"pyd", `{"mode":"fast","limit":"x"}`, true}, // violates anyOf
		{"toplevel", `{"a":"x"}`, false},
		{"toplevel", `{}`, true},        // violates the top-level anyOf
		{"toplevel", `{"a":"z"}`, true}, // outside the definitions enum
	}
	for _, c := range calls {
		r := b.CallByName(ctxGuard(t), "py", c.tool, json.RawMessage(c.args))
		text := textOf(t, r)
		if r.IsError != c.bad || (c.bad && !strings.Contains(text, "do not match its input schema")) {
			t.Errorf("%s %s: error=%v %q", c.tool, c.args, r.IsError, text)
		}
	}
}
