package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// loginWait bounds the CLI's wait for a login: the bridge's own login timeout ends the
// flow first; this only guards against a hang.
const loginWait = 6 * time.Minute

func cmdLogin(args []string, stdout, stderr io.Writer) int {
	f := newFlags("login", "login NAME [--cwd DIR]   (OAuth; opens $BROWSER or the platform's browser)", stderr)
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	if len(pos) != 1 {
		f.fs.Usage()
		return 2
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	ctx, cancel := context.WithTimeout(context.Background(), loginWait)
	defer cancel()
	// The same flow as /mcp login: the answer carries the URL (always printed, whether
	// or not a browser opens); the outcome arrives as notes, printed to stderr.
	out, err := b.CommandArgs(ctx, []string{"login", pos[0]})
	if out != "" {
		fmt.Fprintln(stdout, out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcp-bridge login:", err)
		if _, ok := b.Server(pos[0]); !ok {
			reportBrokenFor(b, stderr, pos[0])
		}
		return 1
	}
	if err := b.WaitLogin(ctx, pos[0]); err != nil {
		// The reason has been printed as a note already.
		return 1
	}
	return 0
}

func cmdLogout(args []string, stdout, stderr io.Writer) int {
	f := newFlags("logout", "logout NAME [--cwd DIR]", stderr)
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	if len(pos) != 1 {
		f.fs.Usage()
		return 2
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	out, err := b.CommandArgs(context.Background(), []string{"logout", pos[0]})
	if out != "" {
		fmt.Fprintln(stdout, out)
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcp-bridge logout:", err)
		if _, ok := b.Server(pos[0]); !ok {
			reportBrokenFor(b, stderr, pos[0])
		}
		return 1
	}
	return 0
}
