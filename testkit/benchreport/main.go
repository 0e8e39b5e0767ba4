// Command benchreport runs mcp-bridge's benchmark suite (bench_test.go at the module root)
// and writes BENCHMARKS.md: every figure's median and spread over -count runs, next to its
// reference measured in the same run and its target.
//
//	go run ./testkit/benchreport            # -count 5, writes BENCHMARKS.md at the module root
//	go run ./testkit/benchreport -count 1   # a quick look
//
// It needs nothing prebuilt: `go test` builds the test binary and the benchmarks build the
// bridge and the fake MCP server. Progress and the raw benchmark output go to stderr.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/shellquote"
)

// run is one `go test` invocation of the suite. Benchmarks that spawn a bridge per
// iteration get a fixed iteration count; the others run for a time.
type run struct {
	bench     string
	benchtime string
	pkg       string // package to test; "" is the module root
}

var runs = []run{
	{`^Benchmark(Startup|ToolDefinitions|ConcurrentCalls)$`, "20x", ""},
	{`^BenchmarkCallRoundTrip$`, "2s", ""},
	{`^BenchmarkCallOutsideHost$`, "1x", ""},
	{`^Benchmark(Search|IndexBuild|SearchQuality)$`, "1s", ""},
	{`^BenchmarkUnionQuality$`, "1x", "./search"},
	{`^BenchmarkUnionSearch$`, "1s", "./search"},
	{`^BenchmarkFirstSearch$`, "20x", "./bridge"},
	{`^BenchmarkFirstStart$`, "5x", ""},
	{`^BenchmarkFirstCallEra$`, "10x", ""},
	{`^BenchmarkServeLatency$`, "300x", ""},
	{`^BenchmarkServeLoad$`, "3x", ""},
}

func (r run) args(count int) []string {
	pkg := r.pkg
	if pkg == "" {
		pkg = "."
	}
	return []string{"test", "-run", "^$", "-bench", r.bench, "-benchtime", r.benchtime, "-count", strconv.Itoa(count), pkg}
}

func main() {
	count := flag.Int("count", 5, "runs of each benchmark (go test -count)")
	out := flag.String("o", "", "output file (default BENCHMARKS.md at the module root)")
	flag.Parse()
	if *count < 1 {
		fmt.Fprintln(os.Stderr, "benchreport: -count must be at least 1")
		os.Exit(2)
	}
	if err := mainErr(*count, *out); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

func mainErr(count int, out string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(root, "BENCHMARKS.md")
	}
	start := time.Now()
	res := results{}
	var raw bytes.Buffer
	var cmds []string
	for _, r := range runs {
		args := r.args(count)
		cmds = append(cmds, "go "+shellJoin(args))
		fmt.Fprintf(os.Stderr, "benchreport: go %s\n", shellJoin(args))
		stdout, err := goTest(root, args)
		raw.Write(stdout)
		if err != nil {
			return fmt.Errorf("go %s: %w", shellJoin(args), err)
		}
		if err := res.parse(stdout); err != nil {
			return err
		}
	}
	took := time.Since(start)
	md := render(res, header(root, count, cmds, start, took), raw.String())
	if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "benchreport: wrote %s (%s)\n", out, took.Round(time.Second))
	return nil
}

func moduleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(b))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run it inside the mcp-bridge module")
	}
	return filepath.Dir(gomod), nil
}

// goTest runs go with args in dir, copying its output to stderr as it comes, and returns stdout.
func goTest(dir string, args []string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	var buf bytes.Buffer
	cmd.Stdout = io.MultiWriter(&buf, os.Stderr)
	err := cmd.Run()
	return buf.Bytes(), err
}

func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellquote.Quote(a)
	}
	return strings.Join(out, " ")
}

// ---------------------------------------------------------------------------------------
// Parsing

// results maps benchmark name (without the -GOMAXPROCS suffix) → unit → one value per run.
type results map[string]map[string][]float64

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.+)$`)

// parse reads standard benchmark lines: name, iterations, then value/unit pairs (ns/op,
// B/op, allocs/op and every b.ReportMetric unit).
func (r results) parse(out []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		f := strings.Fields(m[3])
		if len(f)%2 != 0 {
			return fmt.Errorf("odd benchmark line: %q", sc.Text())
		}
		units := r[m[1]]
		if units == nil {
			units = map[string][]float64{}
			r[m[1]] = units
		}
		for i := 0; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return fmt.Errorf("bad value %q in %q", f[i], sc.Text())
			}
			units[f[i+1]] = append(units[f[i+1]], v)
		}
	}
	return sc.Err()
}

// stat is a figure over the runs: median and range.
type stat struct {
	med, min, max float64
	n             int
}

func (r results) get(bench, unit string) (stat, bool) {
	vs := r[bench][unit]
	if len(vs) == 0 {
		return stat{}, false
	}
	return summarize(vs), true
}

// at returns the value of run i.
func (r results) at(bench, unit string, i int) (float64, bool) {
	vs := r[bench][unit]
	if i >= len(vs) {
		return 0, false
	}
	return vs[i], true
}

func summarize(vs []float64) stat {
	s := slices.Clone(vs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return stat{med: med, min: s[0], max: s[len(s)-1], n: len(s)}
}

// ---------------------------------------------------------------------------------------
// Report

// val names one measured figure and how to show it.
type val struct {
	bench, unit string
	scale       float64 // multiply the raw value (e.g. ns → ms); 0 means 1
	fmtUnit     string  // unit shown after the number
	prec        int
	constant    *float64 // a fixed reference instead of a measurement
	label       string   // text for a constant or unmeasured reference
	// derive computes the value of run i from other figures (nil: read bench/unit).
	derive func(r results, i int) (float64, bool)
}

func m(bench, unit string, scale float64, shown string, prec int) val {
	return val{bench: bench, unit: unit, scale: scale, fmtUnit: shown, prec: prec}
}

func constant(v float64, shown string, prec int, label string) val {
	return val{constant: &v, fmtUnit: shown, prec: prec, label: label}
}

func none(label string) val { return val{label: label} }

func (v val) stat(r results) (stat, bool) {
	if v.constant != nil {
		return stat{med: *v.constant, min: *v.constant, max: *v.constant, n: 1}, true
	}
	if v.derive != nil {
		var vs []float64
		for i := 0; ; i++ {
			x, ok := v.derive(r, i)
			if !ok {
				break
			}
			vs = append(vs, x)
		}
		if len(vs) == 0 {
			return stat{}, false
		}
		return summarize(vs), true
	}
	if v.bench == "" {
		return stat{}, false
	}
	s, ok := r.get(v.bench, v.unit)
	if !ok {
		return s, false
	}
	k := v.scale
	if k == 0 {
		k = 1
	}
	return stat{med: s.med * k, min: s.min * k, max: s.max * k, n: s.n}, true
}

func num(x float64, prec int) string {
	if prec < 0 {
		prec = 0
	}
	s := strconv.FormatFloat(x, 'f', prec, 64)
	// Group thousands of the integer part.
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if neg {
		out = "-" + out
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}

func (v val) show(r results) string {
	s, ok := v.stat(r)
	if !ok {
		if v.label != "" {
			return v.label
		}
		return "n/a"
	}
	unit := ""
	if v.fmtUnit != "" {
		unit = " " + v.fmtUnit
	}
	text := num(s.med, v.prec) + unit
	if lo, hi := num(s.min, v.prec), num(s.max, v.prec); s.n > 1 && lo != hi {
		text += fmt.Sprintf(" (%s–%s)", lo, hi)
	}
	if v.constant != nil && v.label != "" {
		text += " " + v.label
	}
	return text
}

// row is one figure: ours next to its reference, the ratio of their medians, and a target.
type row struct {
	figure    string
	ours, ref val
	ratio     string // "ours/ref" (default), "ref/ours", "saved" (1-ours/ref as %), "diff" (ours-ref), "" for none
	// perRun, when it names a figure, is the ratio instead: a metric the benchmark computes
	// within each run (ours/ref of paired measurements), shown as its median over the runs.
	// Dividing the medians would discard that pairing. met then judges it as met(ratio, 1).
	perRun     val
	target     string                  // shown text
	met        func(o, r float64) bool // nil: no target
	ratioLabel string
}

type section struct {
	title string
	intro string
	rows  []row
	// rowsFor, when set, adds rows after rows that depend on what was measured (one per
	// group a benchmark reported).
	rowsFor func(r results) []row
	limits  func(r results) string
}

func le(limit float64) func(o, _ float64) bool { return func(o, _ float64) bool { return o <= limit } }

func (rw row) cells(r results) []string {
	o, okO := rw.ours.stat(r)
	ref, okR := rw.ref.stat(r)
	ratio := "—"
	if okO && okR {
		switch rw.ratio {
		case "ours/ref":
			if ref.med != 0 {
				ratio = num(o.med/ref.med, 2) + "×"
			}
		case "ref/ours":
			if o.med != 0 {
				ratio = num(ref.med/o.med, 0) + "× faster"
			}
		case "saved":
			if ref.med != 0 {
				ratio = num(100*(1-o.med/ref.med), 2) + "% fewer"
			}
		case "share":
			if ref.med != 0 {
				ratio = num(100*o.med/ref.med, 1) + "% of it"
			}
		case "diff":
			ratio = fmt.Sprintf("%+.3f", o.med-ref.med)
		}
	}
	judged, base, okJ := o.med, ref.med, okO
	if rw.perRun.bench != "" {
		pr, ok := rw.perRun.stat(r)
		ratio, judged, base, okJ = "—", pr.med, 1, ok
		if ok {
			ratio = num(pr.med, 2) + "×"
			if lo, hi := num(pr.min, 2), num(pr.max, 2); pr.n > 1 && lo != hi {
				ratio += fmt.Sprintf(" (%s–%s)", lo, hi)
			}
			ratio += " per run"
		}
	}
	if rw.ratioLabel != "" && ratio != "—" {
		ratio += " " + rw.ratioLabel
	}
	met := "—"
	if rw.met != nil {
		switch {
		case !okJ:
			met = "n/a"
		case rw.met(judged, base):
			met = "✅ yes"
		default:
			met = "❌ no"
		}
	}
	target := rw.target
	if target == "" {
		target = "—"
	}
	return []string{rw.figure, rw.ours.show(r), rw.ref.show(r), ratio, target, met}
}

func header(root string, count int, cmds []string, start time.Time, took time.Duration) string {
	var b strings.Builder
	b.WriteString("# mcp-bridge benchmarks\n\n")
	b.WriteString("Generated by `go run ./testkit/benchreport")
	if count != 5 {
		fmt.Fprintf(&b, " -count %d", count)
	}
	b.WriteString("`; do not edit by hand.\n\n")
	fmt.Fprintf(&b, "- **Machine:** %s, %d cores (GOMAXPROCS %d), %s\n", cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), osName())
	fmt.Fprintf(&b, "- **Go:** %s\n", goVersion(root))
	fmt.Fprintf(&b, "- **Date:** %s (the suite took %s)\n", start.UTC().Format("2006-01-02 15:04 MST"), took.Round(time.Second))
	fmt.Fprintf(&b, "- **Runs:** every figure is the median of %d runs (`-count %d`), with the range (min–max) in parentheses; "+
		"ratios are of medians, except those marked \"per run\": the median of a ratio the benchmark computes within each run. Within a run, per-call and per-startup figures (ms/ready, p50, p99, wall times) are themselves the "+
		"median or percentile of that run's iterations. References are measured in the same run, most in the same loop.\n", count, count)
	b.WriteString("- **Commands** (in the module root):\n\n```sh\n")
	for _, c := range cmds {
		b.WriteString(c + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH + " CPU"
}

func osName() string {
	name := runtime.GOOS
	if data, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
				name = strings.Trim(v, `"`)
			}
		}
	}
	if k, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		name += ", Linux " + strings.TrimSpace(string(k))
	}
	return name + " " + runtime.GOARCH
}

func goVersion(root string) string {
	cmd := exec.Command("go", "version")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "go version ")
}

func render(r results, head, raw string) string {
	var b strings.Builder
	b.WriteString(head)
	var missed []string
	for _, s := range sections() {
		fmt.Fprintf(&b, "\n## %s\n\n", s.title)
		if s.intro != "" {
			b.WriteString(s.intro + "\n\n")
		}
		b.WriteString("| Figure | Ours | Reference | Ratio | Target | Met? |\n|---|---|---|---|---|---|\n")
		rows := s.rows
		if s.rowsFor != nil {
			rows = append(slices.Clip(rows), s.rowsFor(r)...)
		}
		for _, rw := range rows {
			c := rw.cells(r)
			b.WriteString("| " + strings.Join(c, " | ") + " |\n")
			if c[5] == "❌ no" {
				missed = append(missed, s.title+": "+rw.figure)
			}
		}
		if s.limits != nil {
			b.WriteString("\n**What limits this figure:** " + s.limits(r) + "\n")
		}
	}
	b.WriteString("\n## Targets missed\n\n")
	if len(missed) == 0 {
		b.WriteString("None.\n")
	} else {
		for _, m := range missed {
			b.WriteString("- " + m + "\n")
		}
	}
	b.WriteString("\n## Raw output\n\n<details><summary>go test output</summary>\n\n```\n")
	for _, l := range strings.Split(raw, "\n") {
		if strings.HasPrefix(l, "Benchmark") || strings.HasPrefix(l, "cpu:") || strings.HasPrefix(l, "goos:") || strings.HasPrefix(l, "pkg:") {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("```\n\n</details>\n")
	return b.String()
}

// med returns the median of a figure, or NaN.
func med(r results, bench, unit string) float64 {
	s, ok := r.get(bench, unit)
	if !ok {
		return math.NaN()
	}
	return s.med
}

func f(x float64, prec int) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return num(x, prec)
}
