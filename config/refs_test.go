package config

import (
	"slices"
	"testing"
)

func TestRefs(t *testing.T) {
	tests := []struct {
		in   string
		want []Ref
	}{
		{"plain", nil},
		{"${TOKEN}", []Ref{{Name: "TOKEN", Var: "TOKEN", Start: 0, End: 8}}},
		{"Bearer ${TOKEN:-s3cret}", []Ref{{Name: "TOKEN", Var: "TOKEN", Default: true, Start: 7, End: 23}}},
		{"${env:A}/${input:api-key}", []Ref{
			{Name: "env:A", Var: "A", Start: 0, End: 8},
			{Name: "input:api-key", Var: "MCP_INPUT_API_KEY", Start: 9, End: 25}}},
		{"${workspaceFolder}/x", []Ref{{Name: "workspaceFolder", Start: 0, End: 18}}},
		// ${env:NAME} reads the environment even for a predefined name.
		{"${env:userHome}", []Ref{{Name: "env:userHome", Var: "userHome", Start: 0, End: 15}}},
		// Load refuses a value at its first malformed reference; Refs stops there too.
		{"${A}${1X}${B}", []Ref{{Name: "A", Var: "A", Start: 0, End: 4}}},
		{"${A:x}", nil},
		{"${A", nil},
		// No escape: "$${A}" is "$" then ${A}.
		{"$${A}", []Ref{{Name: "A", Var: "A", Start: 1, End: 5}}},
	}
	for _, tt := range tests {
		if got := Refs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Refs(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestRefsAgreesWithExpand checks that every reference Refs reports is one that
// expansion looks up, so callers naming "the variables to set" name the right ones.
func TestRefsAgreesWithExpand(t *testing.T) {
	for _, in := range []string{"${A}", "x${env:B}y", "${input:c.d}", "${E:-def}${F}", "${workspaceFolder}"} {
		var looked []string
		v := &vars{lookup: func(n string) (string, bool) { looked = append(looked, n); return "", false }, projectDir: "/p"}
		v.expand(in)
		var vars []string
		for _, r := range Refs(in) {
			if r.Var != "" {
				vars = append(vars, r.Var)
			}
		}
		if !slices.Equal(vars, looked) {
			t.Errorf("%q: Refs names %v, expansion looks up %v", in, vars, looked)
		}
	}
}
