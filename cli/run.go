// Package cli is mcp-bridge's command line: the zot extension's wiring when zot runs it, and
// the subcommands that manage and check servers from a terminal (add, remove, list, get, login,
// logout, doctor, tools, search, call, refresh, setup, import, trust, serve).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/bridge"
	mcpcmd "github.com/zot-mcp/mcp-bridge/commands"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/supervise"
	"github.com/zot-mcp/mcp-bridge/internal/termsize"
	"github.com/zot-mcp/mcp-bridge/internal/textdist"
)

// version is set at build time with
// -ldflags "-X github.com/zot-mcp/mcp-bridge/cli.version=...".
var version = "0.1.0"

// shutdownGrace is how long stopping every server may take: inside the host's 2 s.
const shutdownGrace = 1700 * time.Millisecond

// LogLevelEnv names the variable that sets the log level (debug, info, warn, error).
const LogLevelEnv = "MCP_BRIDGE_LOG"

// Run runs mcp-bridge with the command line's arguments (without the program name) and
// returns the exit code: no arguments and a stdin that is not a terminal runs the zot
// extension on stdin/stdout, otherwise args name a CLI command.
func Run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	log := newLogger(stderr)
	if len(args) == 0 {
		if isTerminal(stdin) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		return runExtension(stdin, stdout, log)
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "version", "--version":
		fmt.Fprintln(stdout, "mcp-bridge", version)
		return 0
	}
	if cmd, ok := commands[args[0]]; ok {
		return cmd(args[1:], stdout, stderr)
	}
	hint := ""
	if near, ok := textdist.Closest(args[0], slices.Sorted(maps.Keys(commands))); ok {
		hint = fmt.Sprintf("; did you mean %q?", near)
	}
	fmt.Fprintf(stderr, "mcp-bridge: unknown command %q%s (see mcp-bridge --help)\n", args[0], hint)
	return 2
}

func newLogger(w io.Writer) zerolog.Logger {
	level := zerolog.InfoLevel
	if v, ok := os.LookupEnv(LogLevelEnv); ok {
		if l, err := zerolog.ParseLevel(strings.ToLower(v)); err == nil {
			level = l
		}
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger()
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// supervisorArgv is how the bridge re-runs itself as the per-server supervisor.
func supervisorArgv() []string {
	if runtime.GOOS == "windows" {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, supervise.Arg}
}

// serveProcs is the GOMAXPROCS the bridge serves calls with from the first call on: 1, since
// a call is a chain of goroutine hand-offs (reader, call, mcp-go's reader, writer) with
// little work in each, and with more Ps every hand-off also wakes an idle thread that finds
// nothing to do; 0 (leave it) when the user set GOMAXPROCS.
func serveProcs(lookup func(string) (string, bool)) int {
	if _, set := lookup("GOMAXPROCS"); set {
		return 0
	}
	return 1
}

// runExtension runs the zot extension until shutdown, stdin EOF, SIGTERM or SIGINT, then stops
// every server within the host's grace.
func runExtension(stdin io.Reader, stdout io.Writer, log zerolog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	b := bridge.New(bridge.Options{Version: version, Log: log, Supervisor: supervisorArgv(), StartupGC: true})
	err := extension.Run(ctx, stdin, stdout, b, extension.Options{Name: bridge.ExtensionName, Version: version, Log: log,
		ServeProcs: serveProcs(os.LookupEnv), Screen: &extension.Screen{Columns: termsize.Columns}})
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	b.Close(sctx)
	cancel()
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Error().Err(err).Msg("extension protocol failed")
		return 1
	}
	return 0
}

const usage = `mcp-bridge — MCP servers for the zot coding agent

Run by zot (as an extension) it needs no arguments. From a terminal:
  mcp-bridge add NAME [--global|--project] [--env K=V]... -- COMMAND [ARGS...]
  mcp-bridge add NAME --url URL [--transport http|sse] [--header 'K: V']...
  mcp-bridge add-json NAME '{"command":…}' [--scope user|project]   an entry as JSON
                                         (as claude mcp: -e K=V, -H 'K: V', -t, -s user|project)
  mcp-bridge remove NAME [--global|--project]
  mcp-bridge list [--json]               servers: scope, file, transport, cache
  mcp-bridge get NAME [--json]           one server's settings (secrets as ${VAR})
  mcp-bridge login NAME / logout NAME    OAuth for a remote server
  mcp-bridge doctor [--json]             check config files, env variables and every server
  mcp-bridge tools [--server S] [--json] list cached tools
  mcp-bridge search QUERY [--limit N] [--json]   search cached tools as the model would
  mcp-bridge call SERVER TOOL ['JSON'] [--accept-defaults]
                                         call a tool directly (also: call mcp__SERVER__TOOL);
                                         a server's questions are asked on a terminal, answered
                                         with their defaults with --accept-defaults
  mcp-bridge refresh [--server S]        start servers, list tools, update the cache
  mcp-bridge setup templates             list server templates
  mcp-bridge setup add TEMPLATE [--global|--project] [--name NAME] [--path DIR] [--force]
  mcp-bridge import claude|cursor|vscode|gemini|codex [--from FILE] [--project] [--dry-run]
  mcp-bridge trust [SERVER|--all]        approve project servers for this project (--cwd DIR)
  mcp-bridge untrust SERVER|--all        withdraw an approval
  mcp-bridge serve [--http [ADDR]] [--token-file F] [--listen ADDR] [--host NAME:PORT]...
                   [--tools search|all] [--prefix none] [--print-config CLIENT]
                                         the servers as one MCP server for other clients: stdio,
                                         or HTTP on loopback at a secret path (with --token-file
                                         at /mcp and a bearer token; --listen beyond loopback)
  mcp-bridge version
Each command takes --help and --cwd DIR (the project). Config: $ZOT_HOME/mcp.json and
<project>/.zot/mcp.json. Set MCP_BRIDGE_LOG=debug to see the log on stderr.
`

// cliFlags are the flags every CLI command shares.
type cliFlags struct {
	fs       *flag.FlagSet
	cwd      string
	name     string // the subcommand, for "see mcp-bridge NAME --help"
	synopsis string
	stderr   io.Writer
}

// newFlags makes a subcommand's flag set. Its parse errors are one line with a pointer to
// --help: the whole flag list is printed only when asked for.
func newFlags(name, synopsis string, stderr io.Writer) *cliFlags {
	f := &cliFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError), name: name, synopsis: synopsis, stderr: stderr}
	f.fs.SetOutput(io.Discard)
	wd, _ := os.Getwd()
	f.fs.StringVar(&f.cwd, "cwd", wd, "project directory (its .zot/mcp.json is read)")
	f.fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: mcp-bridge %s\n(see mcp-bridge %s --help)\n", synopsis, name)
	}
	return f
}

// parse parses args allowing flags after positional arguments.
func (f *cliFlags) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.parseOnce(args); err != nil {
			return nil, err
		}
		rest := f.fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseOnce runs the flag set over args and says what went wrong, once: the flag package's
// own report would follow its error with every flag's description.
func (f *cliFlags) parseOnce(args []string) error {
	usage := f.fs.Usage
	f.fs.Usage = func() {}
	err := f.fs.Parse(args)
	f.fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(f.stderr, "usage: mcp-bridge %s\n", f.synopsis)
		f.fs.SetOutput(f.stderr)
		f.fs.PrintDefaults()
		f.fs.SetOutput(io.Discard)
	case err != nil:
		fmt.Fprintf(f.stderr, "mcp-bridge %s: %v (see mcp-bridge %s --help)\n", f.name, err, f.name)
	}
	return err
}

// parseName parses args for a command that takes exactly one server name. When ok is
// false the command ends with code (usage printed, or --help answered).
func (f *cliFlags) parseName(args []string) (name string, code int, ok bool) {
	pos, err := f.parse(args)
	if err != nil {
		return "", exitFor(err), false
	}
	if len(pos) != 1 {
		f.fs.Usage()
		return "", 2, false
	}
	return pos[0], 0, true
}

func (f *cliFlags) jsonFlag() *bool {
	return f.fs.Bool("json", false, "print JSON (for scripts)")
}

// loadBridge builds a bridge for the CLI the same way the extension does, and reports
// every config file that could not be read to stderr: whatever the command, a broken
// file is never silent.
func loadBridge(cwd string, stderr io.Writer) *bridge.Bridge {
	return loadBridgeFor(cwd, stderr, extension.GenNew)
}

// loadBridgeFor is loadBridge as the bridge runs under a host of generation gen.
func loadBridgeFor(cwd string, stderr io.Writer, gen extension.Generation) *bridge.Bridge {
	b := newCLIBridgeFor(cwd, stderr, gen, func(_, msg string) { fmt.Fprintln(stderr, msg) })
	for _, f := range brokenFiles(b) {
		fmt.Fprintf(stderr, "mcp-bridge: config file %s is broken, so its servers are not loaded: %s\n", f.Path, f.Err)
	}
	return b
}

// newCLIBridgeFor builds the CLI's bridge as it runs under a host of generation gen (the
// tools and wording that host's model gets). Its messages are words on the terminal: the
// JSON log lines are off unless MCP_BRIDGE_LOG asks for them, notes (background outcomes,
// login progress) go to notify (level, text), and hints name CLI commands.
func newCLIBridgeFor(cwd string, stderr io.Writer, gen extension.Generation, notify func(level, msg string)) *bridge.Bridge {
	log := zerolog.Nop()
	if _, ok := os.LookupEnv(LogLevelEnv); ok {
		log = newLogger(stderr)
	}
	b := bridge.New(bridge.Options{Version: version, Log: log, Supervisor: supervisorArgv(), Surface: mcpcmd.SurfaceCLI, Notify: notify})
	b.Load(cwd, gen)
	// Servers may ask questions during any command that starts them; the terminal answers.
	b.SetElicitor(newTermElicitor(os.Stdin, isInteractive(os.Stdin), stderr, false))
	return b
}

// brokenFiles lists the config files that exist but could not be used.
func brokenFiles(b *bridge.Bridge) []config.FileStatus {
	var out []config.FileStatus
	for _, f := range b.Config().Files {
		if f.Err != "" {
			out = append(out, f)
		}
	}
	return out
}

// reportBrokenFor adds, for a server that was not found, that it may be in a broken file.
func reportBrokenFor(b *bridge.Bridge, stderr io.Writer, server string) {
	if len(brokenFiles(b)) == 0 {
		return
	}
	what := "the server"
	if server != "" {
		what = fmt.Sprintf("server %q", server)
	}
	fmt.Fprintf(stderr, "%s may be defined in the broken config file named above\n", what)
}
