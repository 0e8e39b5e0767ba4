package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchitectureIsCurrent fails when ARCHITECTURE.md is not what the generator writes
// from the tree today: a package added, removed or re-documented, an import changed, or a
// function a life names gone.
func TestArchitectureIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	old, err := os.ReadFile(filepath.Join(root, docFile))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := readTree(root)
	if err != nil {
		t.Fatal(err)
	}
	out, err := render(string(old), tr, lives)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if out != string(old) {
		t.Fatalf("%s is stale (%s): regenerate it with `go run ./testkit/archdoc` at the module root", docFile, firstDiff(string(old), out))
	}
}

// No package of the program imports a test fixture: the fixtures sit above everything they
// test, so such an import would put test code in the binary and run an arrow back up.
func TestProgramImportsNoFixture(t *testing.T) {
	tr, err := readTree(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if fx := fixtureImports(tr); len(fx) > 0 {
		t.Errorf("program packages import test fixtures: %v", fx)
	}
	bad := fakeTree()
	bad.Pkgs["testkit/fake"] = &pkg{Path: "testkit/fake", Name: "fake"}
	bad.Pkgs["lib/sub"].Imports = []string{"testkit/fake"}
	if fx := fixtureImports(bad); len(fx) != 1 || fx[0] != "`lib/sub` → `testkit/fake`" {
		t.Errorf("fixtureImports of a tree where lib/sub imports testkit/fake = %v", fx)
	}
}

// fakeTree is a module of two packages, for the tests that need no go command.
func fakeTree() *tree {
	return &tree{
		Module: "example.com/m",
		Pkgs: map[string]*pkg{
			".":       {Path: ".", Name: "main", Doc: "Command m runs.", Lines: 10, Imports: []string{"lib/sub"}},
			"lib/sub": {Path: "lib/sub", Name: "sub", Doc: "Package sub does one thing. It does it well.", Lines: 2449},
		},
		Defs: map[string]string{
			"..main":           "main.go",
			"lib/sub.Do":       "lib/sub/do.go",
			"lib/sub.Thing.Go": "lib/sub/thing.go",
		},
	}
}

// A life's step that names a function the tree does not define fails the generation and
// says which step to change.
func TestLifeCitesMustExist(t *testing.T) {
	for _, tc := range []struct {
		cite string
		want string // "" when it resolves
	}{
		{"main", ""},
		{"lib/sub.Do", ""},
		{"lib/sub.Thing.Go", ""},
		{"lib/sub.Gone", "defines no Gone"},
		{"lib/sub.Thing.Stop", "defines no Thing.Stop"},
		{"nope.Do", "has no package nope"},
		{"lib/sub", "names no function"},
	} {
		t.Run(tc.cite, func(t *testing.T) {
			l := life{Name: "a test", Steps: []step{{Pkg: "lib/sub", Text: "does it.", Cites: []string{tc.cite}}}}
			out, err := l.render(fakeTree())
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("render: %v", err)
			case tc.want == "" && !strings.Contains(out, "1. **`lib/sub`** — does it.\n"):
				t.Fatalf("render wrote:\n%s", out)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "step 1")):
				t.Fatalf("render error %v, want one naming step 1 and %q", err, tc.want)
			}
		})
	}
}

// render rewrites what lies between the markers of each section, keeps everything else,
// and refuses a document that lacks a section's markers.
func TestRenderReplacesOnlyTheSections(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("# Title\nhand-written\n")
	for _, name := range []string{"layers", "packages", "life of a test"} {
		doc.WriteString(beginMarker(name) + "\nstale text\n" + endMarker(name) + "\nmore by hand\n")
	}
	ls := []life{{Name: "a test", Intro: "Intro.", Steps: []step{{Pkg: ".", Text: "starts.", Cites: []string{"main", "lib/sub.Do"}}}}}
	out, err := render(doc.String(), fakeTree(), ls)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Title\nhand-written\n",
		"floor  2  . (main)\nfloor  1  lib/sub\n",
		"| `lib/sub` | Package sub does one thing. | 2,400 | — |\n",
		"| `.` (main) | Command m runs. | 10 | lib/sub |\n",
		"1. **`.` (main)** — starts.\n   (`main.go`: `main.main`; `lib/sub/do.go`: `sub.Do`)\n",
		"\nmore by hand\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "stale text") {
		t.Errorf("a section kept its stale text:\n%s", out)
	}
	again, err := render(out, fakeTree(), ls)
	if err != nil || again != out {
		t.Errorf("a second render changed the document (err %v)", err)
	}
	if _, err := render("# no markers\n", fakeTree(), ls); err == nil || !strings.Contains(err.Error(), "layers") {
		t.Errorf("a document without markers: err %v, want one naming the section", err)
	}
}

func TestRoughLines(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0"}, {17, "17"}, {99, "99"}, {119, "120"}, {2449, "2,400"}, {2450, "2,500"}, {10578, "11,000"}} {
		if got := roughLines(tc.n); got != tc.want {
			t.Errorf("roughLines(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
