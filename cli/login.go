package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/zot-mcp/mcp-bridge/bridge"
)

// loginWait bounds the CLI's wait for a login: the bridge's own login timeout ends the
// flow first; this only guards against a hang.
const loginWait = 6 * time.Minute

func cmdLogin(args []string, stdout, stderr io.Writer) int {
	f := newFlags("login", "login NAME [--cwd DIR]   (OAuth; opens $BROWSER or the platform's browser)", stderr)
	name, code, ok := f.parseName(args)
	if !ok {
		return code
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	ctx, cancel := context.WithTimeout(context.Background(), loginWait)
	defer cancel()
	// The same flow as /mcp login: the answer carries the URL (always printed, whether
	// or not a browser opens); the outcome arrives as notes, printed to stderr.
	if !runServerCommand(ctx, b, "login", name, stdout, stderr) {
		return 1
	}
	if err := b.WaitLogin(ctx, name); err != nil {
		// The reason has been printed as a note already.
		return 1
	}
	return 0
}

func cmdLogout(args []string, stdout, stderr io.Writer) int {
	f := newFlags("logout", "logout NAME [--cwd DIR]", stderr)
	name, code, ok := f.parseName(args)
	if !ok {
		return code
	}
	b := loadBridge(f.cwd, stderr)
	defer closeBridge(b)
	return boolExit(!runServerCommand(context.Background(), b, "logout", name, stdout, stderr))
}

// runServerCommand runs the /mcp subcommand verb for one server, as the CLI: its answer
// to stdout, a failure to stderr (naming a broken config file that may hold the server).
func runServerCommand(ctx context.Context, b *bridge.Bridge, verb, name string, stdout, stderr io.Writer) bool {
	out, err := b.CommandArgs(ctx, []string{verb, name})
	if out != "" {
		fmt.Fprintln(stdout, out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge %s: %v\n", verb, err)
		if _, ok := b.Server(name); !ok {
			reportBrokenFor(b, stderr, name)
		}
		return false
	}
	return true
}

// maxRelogins bounds the logins one command makes for a server (call --login, refresh
// --login): a server that keeps refusing what its logins grant (403 insufficient_scope
// after each, a 401 after each) must not loop through the browser forever.
const maxRelogins = 2

// loginAgain runs a login for server, as `mcp-bridge login` does, its messages to
// stderr (stdout stays the command's own output); n is which of the at most maxRelogins
// logins it is.
func loginAgain(ctx context.Context, b *bridge.Bridge, server string, n int, stderr io.Writer) bool {
	fmt.Fprintf(stderr, "MCP server %q asks for an OAuth login or more permissions: logging in (%d of at most %d).\n", server, n, maxRelogins)
	lctx, cancel := context.WithTimeout(ctx, loginWait)
	defer cancel()
	return runServerCommand(lctx, b, "login", server, stderr, stderr) && b.WaitLogin(lctx, server) == nil
}
