//go:build !unix

package exttest

import "os/exec"

// noTerminal does nothing: the extension finds no terminal width on this system anyway.
func noTerminal(*exec.Cmd) {}
