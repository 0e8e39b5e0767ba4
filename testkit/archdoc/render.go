package main

import (
	"fmt"
	"go/doc"
	"sort"
	"strings"
)

// A section is one generated part of the document, between its two marker lines.
type section struct {
	name string
	body func() (string, error)
}

func beginMarker(name string) string {
	return "<!-- generated: " + name + " (go run ./testkit/archdoc; do not edit by hand) -->"
}

func endMarker(name string) string { return "<!-- end: " + name + " -->" }

// render returns doc with every generated section written anew from t and ls. A section
// whose markers are missing is an error: the generator never guesses where one belongs.
func render(doc string, t *tree, ls []life) (string, error) {
	secs := []section{
		{"layers", func() (string, error) { return layers(t), nil }},
		{"packages", func() (string, error) { return packageTable(t), nil }},
	}
	for _, l := range ls {
		secs = append(secs, section{"life of " + l.Name, func() (string, error) { return l.render(t) }})
	}
	for _, s := range secs {
		body, err := s.body()
		if err != nil {
			return "", err
		}
		doc, err = replace(doc, s.name, body)
		if err != nil {
			return "", err
		}
	}
	return doc, nil
}

// replace puts body between the markers of section name.
func replace(doc, name, body string) (string, error) {
	begin, end := beginMarker(name), endMarker(name)
	i := strings.Index(doc, begin+"\n")
	if i < 0 {
		return "", fmt.Errorf("%s has no line %q: put it (and %q) where the section %q belongs", docFile, begin, end, name)
	}
	from := i + len(begin) + 1
	j := strings.Index(doc[from:], end)
	if j < 0 {
		return "", fmt.Errorf("%s: the section %q has no end line %q", docFile, name, end)
	}
	return doc[:from] + body + doc[from+j:], nil
}

// isFixture says whether a package is a test fixture or a tool for tests and benchmarks
// (under testkit/), rather than part of the program.
func isFixture(path string) bool { return path == "testkit" || strings.HasPrefix(path, "testkit/") }

// sortedPaths lists the packages of t, fixtures apart, in path order with the root first.
func sortedPaths(t *tree, fixtures bool) []string {
	var out []string
	for p := range t.Pkgs {
		if isFixture(p) == fixtures {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// floors places every program package one floor above the highest it imports (floor 1
// imports none of ours).
func floors(t *tree) map[string]int {
	fl := map[string]int{}
	var place func(p string, seen map[string]bool) int
	place = func(p string, seen map[string]bool) int {
		if f, ok := fl[p]; ok {
			return f
		}
		if seen[p] { // a cycle: the go command refuses one, so this is only a guard
			return 0
		}
		seen[p] = true
		f := 1
		for _, imp := range t.Pkgs[p].Imports {
			if _, ok := t.Pkgs[imp]; ok && !isFixture(imp) {
				f = max(f, place(imp, seen)+1)
			}
		}
		fl[p] = f
		return f
	}
	for _, p := range sortedPaths(t, false) {
		place(p, map[string]bool{})
	}
	return fl
}

// label is how a package is named in the document's prose, plain how it is named in a list.
func label(p string) string {
	if p == "." {
		return "`.` (main)"
	}
	return "`" + p + "`"
}

func plain(p string) string {
	if p == "." {
		return ". (main)"
	}
	return p
}

// layers lists the program's packages floor by floor, from the top, and names every
// import that runs from internal/ out to a package above it.
func layers(t *tree) string {
	fl := floors(t)
	top := 0
	for _, f := range fl {
		top = max(top, f)
	}
	var b strings.Builder
	b.WriteString("```\n")
	for f := top; f >= 1; f-- {
		var names []string
		for _, p := range sortedPaths(t, false) {
			if fl[p] == f {
				names = append(names, plain(p))
			}
		}
		fmt.Fprintf(&b, "floor %2d  %s\n", f, strings.Join(names, ", "))
	}
	b.WriteString("```\n")
	var up []string
	for _, p := range sortedPaths(t, false) {
		if !strings.HasPrefix(p, "internal/") {
			continue
		}
		for _, imp := range t.Pkgs[p].Imports {
			if !strings.HasPrefix(imp, "internal/") {
				up = append(up, fmt.Sprintf("`%s` → `%s`", p, imp))
			}
		}
	}
	fx := fixtureImports(t)
	b.WriteString("\n`internal/` holds leaf utilities: ")
	if len(up) == 0 {
		b.WriteString("none of them imports a package outside `internal/`.")
	} else {
		b.WriteString("these of them import a package above them, which they should not: " + strings.Join(up, ", ") + ".")
	}
	b.WriteString(" No package of the program imports a test fixture (`testkit/`)")
	if len(fx) > 0 {
		b.WriteString(", except " + strings.Join(fx, ", "))
	}
	b.WriteString(".\n")
	return b.String()
}

// fixtureImports lists the imports ("`a` → `b`") by which a program package reaches a test
// fixture; there should be none.
func fixtureImports(t *tree) []string {
	var fx []string
	for _, p := range sortedPaths(t, false) {
		for _, imp := range t.Pkgs[p].Imports {
			if isFixture(imp) {
				fx = append(fx, fmt.Sprintf("`%s` → `%s`", p, imp))
			}
		}
	}
	return fx
}

// packageTable is one row per package: what its doc says first, its production lines to
// two significant figures (the table does not change with every edit), and the packages of
// this module it imports.
func packageTable(t *tree) string {
	var b strings.Builder
	row := func(p string) {
		k := t.Pkgs[p]
		imps := make([]string, len(k.Imports))
		for i, imp := range k.Imports {
			imps[i] = plain(imp)
		}
		imports := "—"
		if len(imps) > 0 {
			imports = strings.Join(imps, ", ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", label(p), cell(firstSentence(k.Doc)), roughLines(k.Lines), imports)
	}
	b.WriteString("| package | what it is (its doc's first sentence) | lines | imports of ours |\n|---|---|---|---|\n")
	for _, p := range sortedPaths(t, false) {
		row(p)
	}
	if fx := sortedPaths(t, true); len(fx) > 0 {
		b.WriteString("\nTest fixtures and tools for tests and benchmarks (`testkit/`, never imported by the program):\n\n")
		b.WriteString("| package | what it is (its doc's first sentence) | lines | imports of ours |\n|---|---|---|---|\n")
		for _, p := range fx {
			row(p)
		}
	}
	return b.String()
}

// firstSentence is the doc comment's first sentence, as go doc's synopsis reads it.
func firstSentence(text string) string {
	s := new(doc.Package).Synopsis(text)
	if s == "" {
		return "(no package doc)"
	}
	return s
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// roughLines rounds n to two significant figures: 17, 120, 2,400, 10,000.
func roughLines(n int) string {
	m := 1
	for n/m >= 100 {
		m *= 10
	}
	r := (n + m/2) / m * m
	s := fmt.Sprint(r)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// firstDiff names the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d is %q, the tree says %q", i+1, x, y)
		}
	}
	return "they differ"
}
