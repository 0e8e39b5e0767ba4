package cli

import (
	"context"
	"fmt"
	"io"
	"time"
)

// trustTimeout bounds waiting for the approval store's lock.
const trustTimeout = 30 * time.Second

func cmdTrust(args []string, stdout, stderr io.Writer) int {
	return trustCLI("trust", "trust [SERVER|--all] [--cwd DIR]   (no server: list what awaits approval)", args, stdout, stderr)
}

func cmdUntrust(args []string, stdout, stderr io.Writer) int {
	return trustCLI("untrust", "untrust SERVER|--all [--cwd DIR]", args, stdout, stderr)
}

// trustCLI runs /mcp trust or /mcp untrust for the project in --cwd: the same store, the
// same checks and the same wording as inside zot.
func trustCLI(sub, synopsis string, args []string, stdout, stderr io.Writer) int {
	f := newFlags(sub, synopsis, stderr)
	all := f.fs.Bool("all", false, "every project server of this project")
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	if len(pos) > 1 || (*all && len(pos) > 0) || (sub == "untrust" && !*all && len(pos) == 0) {
		f.fs.Usage()
		return 2
	}
	line := sub
	switch {
	case *all:
		line += " all"
	case len(pos) == 1:
		line += " " + pos[0]
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	ctx, cancel := context.WithTimeout(context.Background(), trustTimeout)
	defer cancel()
	out, err := b.Command(ctx, line)
	if out != "" {
		fmt.Fprintln(stdout, out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	return 0
}
