package catalog

import (
	"fmt"
	"testing"

	"github.com/zot-mcp/mcp-bridge/cache"
)

// TestValidatorFollowsSchemaChanges: the compiled-schema cache is keyed by tool and schema.
// Before, it was keyed by registered name, so after a refresh changed a tool's schema,
// proxy calls were still checked against the old one. Packed bodies (toolbody.go) carry the
// schema's sum, so the same holds for them.
func TestValidatorFollowsSchemaChanges(t *testing.T) {
	mk := func(enum string, packed bool) *Tool {
		es := []Tool{{Name: "mcp__a__t", Server: "a", Tool: Head{Name: "t"},
			body: toolBody{raw: &cache.Tool{Name: "t", InputSchema: []byte(`{"type":"object","properties":{"m":{"enum":["` + enum + `"]}}}`)}}}}
		if packed {
			if err := pack(es, nil); err != nil {
				t.Fatal(err)
			}
		}
		return &es[0]
	}
	for _, packed := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed=%v", packed), func(t *testing.T) {
			var v Validator
			old, cur := mk("old", packed), mk("new", packed)
			if msg := v.Check(old, []byte(`{"m":"old"}`)); msg != "" {
				t.Fatalf("old schema: %s", msg)
			}
			if msg := v.Check(cur, []byte(`{"m":"new"}`)); msg != "" {
				t.Fatalf("checked against the old schema after a change: %s", msg)
			}
			if msg := v.Check(cur, []byte(`{"m":"old"}`)); msg == "" {
				t.Fatal("the new schema was not applied")
			}
			if n := len(v.compiled); n != 1 {
				t.Fatalf("the validator keeps %d schemas of one tool, want only the newest", n)
			}
			first := v.compiled[cur.Ref()].sch
			if v.Check(mk("new", packed), []byte(`{"m":"new"}`)); v.compiled[cur.Ref()].sch != first {
				t.Fatal("the same schema was compiled again")
			}
		})
	}
}

// TestValidatorFitLeavesOutOptionalNulls: an optional argument given as null where its
// schema wants a value is left out (models write null for "not given"), and only then;
// a required null, a null the schema allows and other faults are not touched. Before,
// such a call was refused before it reached the server.
func TestValidatorFitLeavesOutOptionalNulls(t *testing.T) {
	schema := `{"type":"object","required":["q"],"properties":{"q":{"type":"string"},"verbose":{"type":"boolean"},"note":{"type":["string","null"]}}}`
	e := &Tool{Name: "mcp__a__t", Server: "a", Tool: Head{Name: "t"}, body: toolBody{raw: &cache.Tool{Name: "t", InputSchema: []byte(schema)}}}
	tests := []struct {
		name, args, want string
		fails            bool
	}{
		{name: "valid as given", args: `{"q":"x","verbose":true}`, want: `{"q":"x","verbose":true}`},
		{name: "optional null left out", args: `{"q":"x","verbose":null}`, want: `{"q":"x"}`},
		{name: "a null the schema allows is kept", args: `{"q":"x","note":null}`, want: `{"q":"x","note":null}`},
		{name: "required null", args: `{"q":null}`, fails: true},
		{name: "another fault beside an optional null", args: `{"q":1,"verbose":null}`, fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v Validator
			got, msg := v.Fit(e, []byte(tt.args))
			if tt.fails {
				if msg == "" {
					t.Fatalf("Fit(%s) = %s, want a fault", tt.args, got)
				}
				if string(got) != tt.args {
					t.Errorf("refused arguments changed: %s", got)
				}
				return
			}
			if msg != "" || string(got) != tt.want {
				t.Errorf("Fit(%s) = %s, %q; want %s", tt.args, got, msg, tt.want)
			}
		})
	}
}
