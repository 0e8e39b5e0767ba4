package main

import (
	"fmt"
	"testing"
	"time"
)

// The call benchmark's CPU split reads utime and stime from /proc/<pid>/stat, counting
// fields from the last ')' so a command name with spaces or parentheses cannot shift them.
func TestParseStatCPU(t *testing.T) {
	const tail = " S 1 2 3 4 5 6 7 8 9 10 %s %s 0 0 20 0 1 0\n"
	cases := []struct {
		name      string
		line      string
		user, sys time.Duration
		bad       bool
	}{
		{name: "plain", line: "42 (mcp-bridge)" + fmt.Sprintf(tail, "152", "110"), user: 1520 * time.Millisecond, sys: 1100 * time.Millisecond},
		{name: "spaces and parentheses in the name", line: "42 (a (b) c)" + fmt.Sprintf(tail, "7", "16"), user: 70 * time.Millisecond, sys: 160 * time.Millisecond},
		{name: "zero", line: "1 (x)" + fmt.Sprintf(tail, "0", "0")},
		{name: "no command", line: "42 S 1 2 3", bad: true},
		{name: "short", line: "42 (x) S 1 2 3", bad: true},
		{name: "not a number", line: "42 (x)" + fmt.Sprintf(tail, "1x", "2"), bad: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseStatCPU([]byte(c.line))
			if c.bad {
				if err == nil {
					t.Fatalf("parseStatCPU(%q) = %+v, want an error", c.line, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.user != c.user || got.sys != c.sys {
				t.Fatalf("parseStatCPU(%q) = user %v sys %v, want %v %v", c.line, got.user, got.sys, c.user, c.sys)
			}
		})
	}
}

// The call benchmark's CPU per call sums each thread's nanoseconds on a CPU, the first
// number of /proc/<pid>/task/<tid>/schedstat.
func TestParseSchedstat(t *testing.T) {
	cases := []struct {
		name string
		line string
		want time.Duration
		bad  bool
	}{
		{name: "busy thread", line: "222637303 156308042 1266\n", want: 222637303},
		{name: "idle thread", line: "0 0 0\n"},
		{name: "no newline", line: "99739 0 1", want: 99739},
		{name: "short", line: "99739 0\n", bad: true},
		{name: "empty", line: "", bad: true},
		{name: "not a number", line: "x 0 1\n", bad: true},
		{name: "negative", line: "-5 0 1\n", bad: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseSchedstat([]byte(c.line))
			if c.bad {
				if err == nil {
					t.Fatalf("parseSchedstat(%q) = %v, want an error", c.line, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("parseSchedstat(%q) = %v, want %v", c.line, got, c.want)
			}
		})
	}
}
