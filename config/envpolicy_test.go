package config

import (
	"strings"
	"testing"
)

// TestEnvPolicyDefaults: the per-server value wins, then the global file's top-level
// policy (a project file's is ignored); without any, global servers inherit and project
// servers get the minimal set.
func TestEnvPolicyDefaults(t *testing.T) {
	tests := []struct {
		name, global, project string
		want                  map[string]string // server -> EnvPolicy.String()
		wantErr               map[string]string // server -> substring of Err
	}{
		{name: "defaults by scope",
			global:  `{"mcpServers": {"g": {"command": "x"}}}`,
			project: `{"mcpServers": {"p": {"command": "x"}}}`,
			want:    map[string]string{"g": "inherit", "p": "minimal"}},
		{name: "per server, string and list",
			global: `{"mcpServers": {"a": {"command": "x", "envPolicy": "minimal"}, "b": {"command": "x", "envPolicy": ["GITHUB_TOKEN", "AWS_PROFILE"]}}}`,
			want:   map[string]string{"a": "minimal", "b": "minimal + GITHUB_TOKEN, AWS_PROFILE"}},
		{name: "global top level covers every server",
			global:  `{"envPolicy": "minimal", "mcpServers": {"g": {"command": "x"}, "g2": {"command": "x", "envPolicy": "inherit"}}}`,
			project: `{"mcpServers": {"p": {"command": "x"}}}`,
			want:    map[string]string{"g": "minimal", "g2": "inherit", "p": "minimal"}},
		{name: "project top level is ignored",
			global:  `{"envPolicy": "minimal", "mcpServers": {"g": {"command": "x"}}}`,
			project: `{"envPolicy": "inherit", "mcpServers": {"p": {"command": "x"}, "p2": {"command": "x", "envPolicy": "inherit"}}}`,
			want:    map[string]string{"g": "minimal", "p": "minimal", "p2": "inherit"}},
		{name: "bad values",
			global:  `{"mcpServers": {"a": {"command": "x", "envPolicy": "all"}, "b": {"command": "x", "envPolicy": 3}, "c": {"command": "x", "envPolicy": ["A=B"]}}}`,
			wantErr: map[string]string{"a": `envPolicy: unknown value "all"`, "b": "envPolicy: must be", "c": "envPolicy: invalid variable name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := setup(t, tt.global, tt.project, nil)
			for n, want := range tt.want {
				s := mustServer(t, c, n)
				if got := s.EnvPolicy.String(); got != want || s.Err != "" {
					t.Errorf("%s: policy %q (err %q), want %q", n, got, s.Err, want)
				}
			}
			for n, want := range tt.wantErr {
				if s := mustServer(t, c, n); !strings.Contains(s.Err, want) {
					t.Errorf("%s: Err %q, want it to contain %q", n, s.Err, want)
				}
			}
		})
	}
}
