package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// pkg is one package of the module as the document shows it.
type pkg struct {
	Path    string   // relative to the module root: "bridge", "config/importer"; "." for the root
	Name    string   // the package clause's name
	Doc     string   // the package doc comment
	Lines   int      // lines of its non-test Go files, every build variant counted
	Imports []string // the packages of this module it imports (relative paths), sorted
}

// tree is the module: its packages by relative path, and where each top-level name is
// defined (a key "PATH.Name" or "PATH.Type.Method", a value the file relative to the root).
type tree struct {
	Module string
	Pkgs   map[string]*pkg
	Defs   map[string]string
}

// listed is what `go list -json` says of one package that the document reads.
type listed struct {
	ImportPath string
	Name       string
	Dir        string
	Doc        string
	Imports    []string
	Module     *struct{ Path string }
}

// readTree lists the module's packages with the go command and parses their non-test files
// for the names they define.
func readTree(root string) (*tree, error) {
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	t := &tree{Pkgs: map[string]*pkg{}, Defs: map[string]string{}}
	var all []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var l listed
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("go list output: %v", err)
		}
		if l.Module != nil && t.Module == "" {
			t.Module = l.Module.Path
		}
		all = append(all, l)
	}
	if t.Module == "" {
		return nil, fmt.Errorf("go list names no module in %s", root)
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	for _, l := range all {
		rel := t.rel(l.ImportPath)
		p := &pkg{Path: rel, Name: l.Name, Doc: l.Doc}
		for _, imp := range l.Imports {
			if r := t.rel(imp); r != "" {
				p.Imports = append(p.Imports, r)
			}
		}
		sort.Strings(p.Imports)
		dirRel, err := filepath.Rel(absRoot, l.Dir)
		if err != nil {
			return nil, err
		}
		if err := t.parseDir(p, l.Dir, filepath.ToSlash(dirRel)); err != nil {
			return nil, err
		}
		t.Pkgs[rel] = p
	}
	return t, nil
}

// rel is an import path relative to the module root ("." for the root itself), or "" for
// a package of another module.
func (t *tree) rel(importPath string) string {
	switch {
	case importPath == t.Module:
		return "."
	case strings.HasPrefix(importPath, t.Module+"/"):
		return strings.TrimPrefix(importPath, t.Module+"/")
	}
	return ""
}

// parseDir counts the lines of every non-test Go file in dir (whatever its build
// constraints) and records the top-level names each defines.
func (t *tree) parseDir(p *pkg, dir, dirRel string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		p.Lines += bytes.Count(src, []byte("\n"))
		f, err := parser.ParseFile(fset, n, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		file := n
		if dirRel != "." {
			file = dirRel + "/" + n
		}
		for _, name := range defined(f) {
			key := p.Path + "." + name
			if _, ok := t.Defs[key]; !ok {
				t.Defs[key] = file
			}
		}
	}
	return nil
}

// defined lists the top-level names of f: functions, types, variables and constants as
// their names, methods as "Type.Method".
func defined(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				out = append(out, d.Name.Name)
				continue
			}
			if r := recvName(d.Recv.List[0].Type); r != "" {
				out = append(out, r+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out = append(out, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}

// recvName is the type name of a method's receiver, without pointer or type parameters.
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
