package cli

import "testing"

func TestServeProcsRespectsGOMAXPROCS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want int
	}{
		{name: "unset: one P while serving", env: map[string]string{}, want: 1},
		{name: "the user's GOMAXPROCS wins", env: map[string]string{"GOMAXPROCS": "4"}, want: 0},
		{name: "set but empty is still the user's", env: map[string]string{"GOMAXPROCS": ""}, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			if got := serveProcs(lookup); got != tc.want {
				t.Fatalf("serveProcs = %d, want %d", got, tc.want)
			}
		})
	}
}
