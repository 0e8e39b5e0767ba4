package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/bridge"
	"github.com/zot-mcp/mcp-bridge/internal/shellquote"
	"github.com/zot-mcp/mcp-bridge/serve"
)

const serveSynopsis = "serve [--http [ADDR]] [--listen ADDR --token-file FILE [--host NAME:PORT]...] [--tools search|all] [--prefix none] [--print-config CLIENT]"

// serveFlags are serve's settings.
type serveFlags struct {
	cwd         string
	http        bool
	addr        string
	listen      string
	tokenFile   string
	tools       string
	prefix      string
	printConfig string
	hosts       hostList
}

// hostList is --host, repeatable: the Host values clients reach a --listen address by
// (a load balancer's or a Service's name), beyond the address itself.
type hostList []string

func (h *hostList) String() string { return strings.Join(*h, ",") }

func (h *hostList) Set(v string) error {
	if _, _, err := net.SplitHostPort(v); err != nil {
		return fmt.Errorf("%q is not NAME:PORT (the Host a client sends, such as mcp-bridge.tools.svc:8080)", v)
	}
	*h = append(*h, v)
	return nil
}

// splitHTTPArg takes --http's optional address out of args: "--http ADDR" and
// "--http=ADDR" name one, a bare --http (last, or before another flag) takes the
// default. The flag package has no optional values.
func splitHTTPArg(args []string) (rest []string, http bool, addr string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--http" || a == "-http":
			http = true
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				addr = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--http=") || strings.HasPrefix(a, "-http="):
			http = true
			addr = a[strings.Index(a, "=")+1:]
		default:
			rest = append(rest, a)
		}
	}
	return rest, http, addr
}

// cmdServe serves the catalog as one MCP server to another client: on stdin/stdout, or
// over HTTP.
func cmdServe(args []string, stdout, stderr io.Writer) int {
	args, useHTTP, addr := splitHTTPArg(args)
	f := newFlags("serve", serveSynopsis, stderr)
	sf := serveFlags{http: useHTTP, addr: addr}
	f.fs.StringVar(&sf.listen, "listen", "", "a non-loopback ADDR to listen on (needs --token-file)")
	f.fs.StringVar(&sf.tokenFile, "token-file", "", "a file holding the bearer token HTTP clients must send (instead of the secret path)")
	f.fs.StringVar(&sf.tools, "tools", serve.ToolsSearch, "search: the search and call tools; all: every cached tool")
	f.fs.StringVar(&sf.prefix, "prefix", "zot", "zot: names as in zot (mcp__server__tool); none: the servers' own names")
	f.fs.Var(&sf.hosts, "host", "a Host NAME:PORT clients reach a --listen address by (repeatable)")
	f.fs.StringVar(&sf.printConfig, "print-config", "", "print the config a client needs ("+strings.Join(serve.ClientNames(), ", ")+")")
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	if len(pos) > 0 {
		f.fs.Usage()
		return 2
	}
	sf.cwd = f.cwd
	if sf.listen != "" {
		sf.http = true
	}
	token, err := sf.check()
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge serve: %v\n", err)
		return 2
	}
	if sf.printConfig != "" && !sf.http {
		return printServeConfig(sf, serveArgv(sf), "", stdout, stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log := newLogger(stderr)
	if _, ok := os.LookupEnv(LogLevelEnv); !ok {
		log = log.Level(zerolog.WarnLevel) // stderr is the user's terminal or a client's log
	}
	srv, err := serve.New(ctx, serve.Options{ProjectDir: sf.cwd, Tools: sf.tools, Unprefixed: sf.prefix == "none", Version: version,
		Bridge: bridge.Options{Version: version, Log: log, Supervisor: supervisorArgv()}})
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge serve: %v\n", err)
		return 1
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		srv.Close(sctx)
		cancel()
	}()
	if !sf.http {
		if err := srv.ServeStdio(ctx, os.Stdin, stdout); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			fmt.Fprintf(stderr, "mcp-bridge serve: %v\n", err)
			return 1
		}
		return 0
	}
	return serveHTTP(ctx, srv, sf, token, stdout, stderr)
}

// check refuses a misuse of serve's flags before anything starts (no server runs and no
// client config is printed for settings that cannot serve), and reads the token of
// --token-file.
func (sf serveFlags) check() (token string, err error) {
	if sf.prefix != "zot" && sf.prefix != "none" {
		return "", fmt.Errorf("--prefix %q: use zot or none", sf.prefix)
	}
	if err := serve.CheckTools(sf.tools, sf.prefix == "none"); err != nil {
		return "", err
	}
	if sf.printConfig != "" && !slices.Contains(serve.ClientNames(), sf.printConfig) {
		return "", &serve.UnknownClientError{Name: sf.printConfig}
	}
	if len(sf.hosts) > 0 && sf.listen == "" {
		return "", errors.New("--host names how clients reach a --listen address; on loopback only the loopback names are accepted")
	}
	if sf.tokenFile == "" {
		if sf.listen != "" {
			return "", errors.New("--listen needs --token-file: beyond loopback every request must carry a bearer token")
		}
		return "", nil
	}
	if !sf.http {
		return "", errors.New("--token-file is the bearer token of HTTP clients; add --http (stdio has no token)")
	}
	return serve.ReadToken(sf.tokenFile)
}

// serveArgv is the command line a client runs for the stdio server with sf's settings.
func serveArgv(sf serveFlags) []string {
	exe, err := os.Executable()
	if err != nil {
		exe = "mcp-bridge"
	}
	// No --cwd: a client starts the server in the project it works on, and the server
	// serves that project's servers.
	argv := []string{exe, "serve"}
	if sf.tools != serve.ToolsSearch {
		argv = append(argv, "--tools", sf.tools)
	}
	if sf.prefix != "zot" {
		argv = append(argv, "--prefix", sf.prefix)
	}
	return argv
}

// printServeConfig prints what the client needs to use this server: the text on stdout,
// where it goes on stderr.
func printServeConfig(sf serveFlags, argv []string, url string, stdout, stderr io.Writer) int {
	in := serve.ClientConfigInput{Client: sf.printConfig, Command: argv, URL: url, Env: stateEnv(os.LookupEnv)}
	if url != "" && sf.tokenFile != "" {
		in.TokenEnv = serve.TokenEnv
	}
	text, hint, err := serve.ClientConfig(in)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge serve: %v\n", err)
		return 2
	}
	fmt.Fprint(stdout, strings.TrimRight(text, "\n")+"\n")
	if hint != "" {
		fmt.Fprintln(stderr, hint)
	}
	if url != "" && sf.tokenFile == "" {
		fmt.Fprintln(stderr, "mcp-bridge serve: the URL's secret path is new every run; for a config that lasts, serve with --token-file FILE (and a fixed --http ADDR).")
	}
	if url != "" && sf.tokenFile != "" {
		fmt.Fprintf(stderr, "mcp-bridge serve: the config reads the token from $%s: export %s=\"$(cat %s)\" where the client starts.\n", serve.TokenEnv, serve.TokenEnv, shellquote.Quote(sf.tokenFile))
	}
	return 0
}

// stateEnv are the variables that say where the bridge's state lives (its zot home), as
// set for this run: a stdio config sets them for serve itself, since a client may start
// it without them.
func stateEnv(lookup func(string) (string, bool)) []string {
	var env []string
	for _, name := range []string{"ZOT_HOME", "XDG_STATE_HOME"} {
		v, ok := lookup(name)
		if !ok || v == "" {
			continue
		}
		if abs, err := filepath.Abs(v); err == nil {
			v = abs // serve runs wherever the client starts it
		}
		env = append(env, name+"="+v)
	}
	return env
}

// serveHTTP serves srv over streamable HTTP behind the guard: on loopback at a random
// secret path, or at /mcp with token, the bearer token of --token-file (the only way to
// listen beyond loopback; check refused --listen without it). The URL goes to stderr
// (and the client config to stdout with --print-config).
func serveHTTP(ctx context.Context, srv *serve.Server, sf serveFlags, token string, stdout, stderr io.Writer) int {
	addr := sf.addr
	nonLoopback := false
	if sf.listen != "" {
		addr, nonLoopback = sf.listen, true
	}
	ln, err := serve.ListenGuarded(ctx, addr, nonLoopback, 0)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge serve: %v\n", err)
		return 2
	}
	path := "/mcp"
	if token == "" {
		path = "/mcp/" + serve.NewSecret()
	}
	url := "http://" + urlHost(ln.Addr().String()) + path
	h := serve.Guard(srv.HTTPHandler(), serve.GuardOptions{Path: path, Token: token, Addr: ln.Addr().String(), Hosts: sf.hosts})
	if sf.printConfig != "" {
		if code := printServeConfig(sf, nil, url, stdout, stderr); code != 0 {
			_ = ln.Close()
			return code
		}
	}
	if token == "" {
		fmt.Fprintf(stderr, "mcp-bridge serve: listening on %s (the path is this run's secret: keep it private)\n", url)
	} else {
		fmt.Fprintf(stderr, "mcp-bridge serve: listening on %s (clients send the token of %s as a bearer token)\n", url, sf.tokenFile)
	}
	if err := serve.Serve(ctx, ln, h, serve.ServerOptions{}); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "mcp-bridge serve: %v\n", err)
		return 1
	}
	return 0
}

// urlHost is a listen address as a URL's host: the loopback name a client on this
// machine reaches.
func urlHost(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
