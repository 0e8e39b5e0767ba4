// Command archdoc writes the sections of ARCHITECTURE.md that the tree decides: the layers
// (each package above all it imports), the package table (the package doc's first sentence,
// production lines, the packages of this module it imports) and the life of a start, a tool
// call and a search, whose every step names the functions it passes through. A step that
// names a function the tree no longer has is an error, so the document cannot go on
// describing code that is gone. Run at the module root:
//
//	go run ./testkit/archdoc          rewrite the generated sections in place
//	go run ./testkit/archdoc -check   exit 1 when ARCHITECTURE.md differs from what it would write
//
// Everything between a "<!-- generated: NAME -->" line and its "<!-- end: NAME -->" line is
// the generator's; the rest of the file is written by hand and left as it is.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// docFile is the document the generator keeps, relative to the module root.
const docFile = "ARCHITECTURE.md"

func main() {
	check := flag.Bool("check", false, "only say whether "+docFile+" is current (exit 1 when it is not)")
	root := flag.String("root", ".", "the module root")
	flag.Parse()
	path := filepath.Join(*root, docFile)
	old, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "archdoc: %v (run it at the module root, or name the root with -root)\n", err)
		os.Exit(2)
	}
	tree, err := readTree(*root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "archdoc: reading the tree: %v\n", err)
		os.Exit(2)
	}
	out, err := render(string(old), tree, lives)
	if err != nil {
		fmt.Fprintf(os.Stderr, "archdoc: %v\n", err)
		os.Exit(1)
	}
	if out == string(old) {
		return
	}
	if *check {
		fmt.Fprintf(os.Stderr, "archdoc: %s is stale (%s); regenerate it with `go run ./testkit/archdoc`\n", docFile, firstDiff(string(old), out))
		os.Exit(1)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "archdoc: %v\n", err)
		os.Exit(2)
	}
}
