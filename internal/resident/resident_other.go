//go:build !linux

package resident

// DropProgram does nothing where there is no way to name the program's own mappings.
func DropProgram() (Program, error) { return Program{}, nil }
