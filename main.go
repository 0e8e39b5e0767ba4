// Command mcp-bridge plugs MCP servers into the zot coding agent. Started by zot (stdin is
// not a terminal, no arguments) it speaks the extension protocol; from a terminal it is a
// small CLI for checking a setup without zot (doctor, tools, search, call, refresh, setup).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/extension"
	"github.com/zot-mcp/mcp-bridge/internal/supervise"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0"

// shutdownGrace is how long stopping every server may take: inside the host's 2 s.
const shutdownGrace = 1700 * time.Millisecond

// LogLevelEnv names the variable that sets the log level (debug, info, warn, error).
const LogLevelEnv = "MCP_BRIDGE_LOG"

func main() {
	supervise.MaybeRun()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	log := newLogger(stderr)
	if len(args) == 0 {
		if isTerminal(stdin) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		return serve(stdin, stdout, log)
	}
	switch args[0] {
	case "serve":
		return serve(stdin, stdout, log)
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
	fmt.Fprintf(stderr, "mcp-bridge: unknown command %q\n\n%s", args[0], usage)
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

// serve runs the zot extension until shutdown, stdin EOF, SIGTERM or SIGINT, then stops
// every server within the host's grace.
func serve(stdin io.Reader, stdout io.Writer, log zerolog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	b := bridge.New(bridge.Options{Version: version, Log: log, Supervisor: supervisorArgv()})
	err := extension.Run(ctx, stdin, stdout, b, extension.Options{Name: bridge.ExtensionName, Version: version, Log: log})
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
  mcp-bridge doctor [--cwd DIR]          check config files, env variables and every server
  mcp-bridge tools [--server S]          list cached tools
  mcp-bridge search QUERY [--limit N]    search cached tools as the model would
  mcp-bridge call SERVER TOOL ['JSON']   call a tool directly
  mcp-bridge refresh [--server S]        start servers, list tools, update the cache
  mcp-bridge setup templates             list server templates
  mcp-bridge setup add TEMPLATE [--global|--project] [--name NAME] [--path DIR] [--force]
  mcp-bridge import claude|cursor|vscode|gemini|codex [--from FILE] [--project] [--dry-run]
  mcp-bridge trust [SERVER|--all]        approve project servers for this project (--cwd DIR)
  mcp-bridge untrust SERVER|--all        withdraw an approval
  mcp-bridge version
Each command takes --help. Config: $ZOT_HOME/mcp.json and <project>/.zot/mcp.json.
Logs go to stderr; set MCP_BRIDGE_LOG=debug for more.
`

// cliFlags are the flags every CLI command shares.
type cliFlags struct {
	fs  *flag.FlagSet
	cwd string
}

func newFlags(name, synopsis string, stderr io.Writer) *cliFlags {
	f := &cliFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	f.fs.SetOutput(stderr)
	wd, _ := os.Getwd()
	f.fs.StringVar(&f.cwd, "cwd", wd, "project directory (its .zot/mcp.json is read)")
	f.fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: mcp-bridge %s\n", synopsis)
		f.fs.PrintDefaults()
	}
	return f
}

// parse parses args allowing flags after positional arguments.
func (f *cliFlags) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.fs.Parse(args); err != nil {
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

// loadBridge builds a bridge for the CLI the same way the extension does.
func loadBridge(cwd string, stderr io.Writer) *bridge.Bridge {
	log := newLogger(stderr)
	if _, ok := os.LookupEnv(LogLevelEnv); !ok {
		log = log.Level(zerolog.WarnLevel)
	}
	b := bridge.New(bridge.Options{Version: version, Log: log, Supervisor: supervisorArgv()})
	b.Load(cwd, extension.GenNew)
	return b
}
