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
	mk := func(enum string, packed bool) *Entry {
		es := []Entry{{Name: "mcp__a__t", Server: "a", Tool: Head{Name: "t"},
			body: toolBody{raw: &cache.Tool{Name: "t", InputSchema: []byte(`{"type":"object","properties":{"m":{"enum":["` + enum + `"]}}}`)}}}}
		if packed {
			if err := pack(es); err != nil {
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
