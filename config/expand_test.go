package config

import "testing"

func TestGetenv(t *testing.T) {
	env := fakeEnv(map[string]string{"SET": "v", "EMPTY": ""})
	for _, tc := range []struct {
		lookup func(string) (string, bool)
		name   string
		want   string
	}{
		{env, "SET", "v"}, {env, "EMPTY", ""}, {env, "UNSET", ""}, {nil, "SET", ""},
	} {
		if got := Getenv(tc.lookup, tc.name); got != tc.want {
			t.Errorf("Getenv(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
