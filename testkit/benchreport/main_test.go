package main

import (
	"slices"
	"testing"
)

// TestRowPerRunRatio: a row whose ratio is a per-run metric shows that metric's median and
// range over the runs, not the ratio of the two medians, and its target judges that median.
func TestRowPerRunRatio(t *testing.T) {
	r := results{"B": {
		"ours":  {100, 200, 300},
		"ref":   {95, 100, 290},
		"ratio": {1.053, 2.0, 1.034},
	}}
	cases := []struct {
		name string
		row  row
		want []string // ratio and met cells
	}{
		{"of medians", row{ours: m("B", "ours", 1, "", 0), ref: m("B", "ref", 1, "", 0), ratio: "ours/ref", met: ratioLE(1.10)},
			[]string{"2.00×", "❌ no"}},
		{"per run", row{ours: m("B", "ours", 1, "", 0), ref: m("B", "ref", 1, "", 0), perRun: m("B", "ratio", 1, "", 2), met: ratioLE(1.10)},
			[]string{"1.05× (1.03–2.00) per run", "✅ yes"}},
		{"per run, missed", row{ours: m("B", "ours", 1, "", 0), ref: m("B", "ref", 1, "", 0), perRun: m("B", "ratio", 1, "", 2), met: ratioLE(1.04)},
			[]string{"1.05× (1.03–2.00) per run", "❌ no"}},
		{"per run, not measured", row{ours: m("B", "ours", 1, "", 0), ref: m("B", "ref", 1, "", 0), perRun: m("B", "absent", 1, "", 2), met: ratioLE(1.10)},
			[]string{"—", "n/a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cells := c.row.cells(r)
			if got := []string{cells[3], cells[5]}; !slices.Equal(got, c.want) {
				t.Errorf("ratio and met cells %q, want %q", got, c.want)
			}
		})
	}
}
