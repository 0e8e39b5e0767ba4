// Package fake is a configurable fake MCP server used by mcp-bridge's tests, run as a
// process by the fakemcp command (Main) or in the test's own process behind a pipe
// session (ServeStdio). It is built on mcp-go's server package and speaks MCP over
// stdio (the default), streamable HTTP (-http) or legacy SSE (-sse).
//
// Flags select its tool set and inject misbehaviour: crashing, hanging,
// exiting at start, writing junk or a banner to stdout, flooding stderr,
// spawning a grandchild process, ignoring stdin close or SIGTERM, and
// recording what it receives to a file. Run it with -h for the full list.
//
// Exit status: 0 on a clean exit, 1 for -exit-on-start, 2 for bad flags or
// setup errors, 3 for -crash-after, 4 when -max-lifetime expires, 5 for -discover exit.
package fake

import (
	"github.com/zot-mcp/mcp-bridge/testkit/fakemcp/record"

	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/zot-mcp/mcp-bridge/testkit/stdioserve"
)

// Exit statuses.
const (
	exitOK       = 0
	exitStart    = 1 // -exit-on-start
	exitSetup    = 2 // bad flags or setup failure
	exitCrash    = 3 // -crash-after
	exitLifetime = 4 // -max-lifetime expired
)

// options holds the parsed command line.
type options struct {
	name             string
	echoTag          string
	noDefaultTools   bool
	genTools         int
	crashAfter       int
	hangStart        bool
	exitOnStart      bool
	junk             bool
	banner           bool
	stderrBytes      int
	grandchild       bool
	sleepForever     bool
	marker           string
	ignoreStdinClose bool
	ignoreSigterm    bool
	record           string
	listChangedAfter int
	listChangedCall  bool
	instructions     string
	httpAddr         string
	sseAddr          string
	requireHeader    string
	forgetAfter      int
	sseDropAfter     int
	maxLifetime      time.Duration
	workers          int
	rawTools         rawToolFlag
	duplicateTool    string
	listHints        string
	describe         describeFlag
	discover         string
	starts           string

	// What the server runs in: a process (Main) or a pipe (ServeStdio).
	process bool
	exit    func(code int) // ends the server with an exit status
	stderr  io.Writer
	env     Env
}

// Env is what a process would read from its environment: the env, cwd and pid tools
// answer with it.
type Env struct {
	Getenv func(string) string
	Dir    string
	PID    int
}

func parseFlags(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("fakemcp", flag.ContinueOnError)
	fs.StringVar(&o.name, "name", "fake", "server name reported in serverInfo.name")
	fs.StringVar(&o.echoTag, "echo-tag", "", "echo answers \"TAG TEXT\" (a test sees which server answered)")
	fs.BoolVar(&o.noDefaultTools, "no-default-tools", false, "do not register the default tools")
	fs.IntVar(&o.genTools, "tools", 0, "additionally register N generated tools gen_0000...")
	fs.IntVar(&o.crashAfter, "crash-after", 0, "exit with status 3 while handling the N-th tools/call")
	fs.BoolVar(&o.hangStart, "hang-start", false, "never answer anything (stdio: read and ignore stdin; HTTP: block every request)")
	fs.BoolVar(&o.exitOnStart, "exit-on-start", false, `write "fatal: boom" to stderr and exit 1 immediately`)
	fs.BoolVar(&o.junk, "junk", false, "stdio: write non-JSON junk lines to stdout before the first message and before each message")
	fs.BoolVar(&o.banner, "banner", false, `stdio: print "Server started on stdio" to stdout before speaking MCP`)
	fs.IntVar(&o.stderrBytes, "stderr-bytes", 0, "write N bytes of stderr noise at start, in lines of 100 bytes")
	fs.BoolVar(&o.grandchild, "grandchild", false, "spawn a child (this binary with -sleep-forever) in the same process group, sharing stdio")
	fs.BoolVar(&o.sleepForever, "sleep-forever", false, "do nothing but block forever (ignores stdin)")
	fs.StringVar(&o.marker, "marker", "", "ignored; lets tests find the process tree in /proc (passed on to the grandchild)")
	fs.BoolVar(&o.ignoreStdinClose, "ignore-stdin-close", false, "stdio: keep running after stdin closes")
	fs.BoolVar(&o.ignoreSigterm, "ignore-sigterm", false, "ignore SIGTERM (passed on to the grandchild)")
	fs.StringVar(&o.record, "record", "", "append one JSON line per received request/notification (and per HTTP request) to FILE")
	fs.IntVar(&o.listChangedAfter, "list-changed-after", 0, "MS ms after notifications/initialized, add tool late_tool and send notifications/tools/list_changed")
	fs.BoolVar(&o.listChangedCall, "list-changed-on-call", false, "after the first tools/call, add tool late_tool and send notifications/tools/list_changed")
	fs.StringVar(&o.instructions, "instructions", "", "instructions text returned by initialize")
	fs.StringVar(&o.httpAddr, "http", "", "serve streamable HTTP at ADDR (loopback only), path /mcp")
	fs.StringVar(&o.sseAddr, "sse", "", "serve legacy SSE at ADDR (loopback only), paths /sse and /message")
	fs.StringVar(&o.requireHeader, "require-header", "", "HTTP/SSE: reject requests lacking header K with value V (K:V) with 401")
	fs.IntVar(&o.workers, "workers", 0, "stdio: run up to N tool calls at once (0 = mcp-go's default of 5)")
	fs.IntVar(&o.forgetAfter, "forget-session-after", 0, "-http: answer the N-th tools/call with 404 before running (or recording) it and forget its session: every later request carrying that session id gets 404 too, as from a restarted server")
	fs.IntVar(&o.sseDropAfter, "sse-drop-after", 0, "-sse: accept the N-th tools/call (recorded, answered 202, never run), then end every open SSE stream before any answer, as a dropped connection would")
	fs.Var(&o.rawTools, "raw-tool", "NAME=SCHEMA: add a tool whose inputSchema is SCHEMA exactly as given (repeatable); it answers with its arguments as JSON")
	fs.StringVar(&o.duplicateTool, "duplicate-tool", "", "list tool NAME twice in tools/list (the second copy with another description)")
	fs.StringVar(&o.listHints, "list-hints", "", "TTLMS,SCOPE: put these caching hints (ttlMs, cacheScope) on every tools/list result")
	fs.Var(&o.describe, "describe", "NAME=TEXT: list tool NAME with the description TEXT, byte for byte (repeatable)")
	fs.StringVar(&o.discover, "discover", "", "stdio: the era spoken, or how the modern probe is met: legacy, exit, hang, garbage, claim or modern (see era.go)")
	fs.StringVar(&o.starts, "starts", "", "append this process's pid to FILE when it starts (tests count the starts)")
	fs.DurationVar(&o.maxLifetime, "max-lifetime", 0, "safety net: exit with status 4 after this long (0 = never; passed on to the grandchild)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if o.httpAddr != "" && o.sseAddr != "" {
		return nil, errors.New("-http and -sse are mutually exclusive")
	}
	if err := checkFaultFlags(o); err != nil {
		return nil, err
	}
	if err := checkDiscoverFlag(o); err != nil {
		return nil, err
	}
	if o.requireHeader != "" {
		if k, _, ok := strings.Cut(o.requireHeader, ":"); !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("-require-header wants K:V, got %q", o.requireHeader)
		}
	}
	if o.genTools < 0 || o.stderrBytes < 0 || o.crashAfter < 0 || o.listChangedAfter < 0 || o.workers < 0 {
		return nil, errors.New("numeric flags must not be negative")
	}
	return o, nil
}

// Main runs the server as the fakemcp process on its stdin and stdout (or HTTP) and
// returns its exit status.
func Main(args []string) int {
	o, err := parseFlags(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(os.Stderr, "fakemcp:", err)
		return exitSetup
	}
	wd, _ := os.Getwd()
	o.process, o.exit, o.stderr = true, os.Exit, os.Stderr
	o.env = Env{Getenv: os.Getenv, Dir: wd, PID: os.Getpid()}
	return run(context.Background(), o, os.Stdin, os.Stdout)
}

// ExitError is the exit of a server run by ServeStdio with a status other than 0.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return "exit status " + strconv.Itoa(e.Code) }

// NeedsProcess names the first of args' flags that ServeStdio cannot play in process
// ("" and false: none): signals, a grandchild, a life after stdin closes, an HTTP
// listener announced on stdout. A bad command line needs none (ServeStdio fails it as
// Main does).
func NeedsProcess(args []string) (string, bool) {
	o, err := parseFlags(args)
	if err != nil {
		return "", false
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"grandchild", o.grandchild}, {"sleep-forever", o.sleepForever}, {"ignore-sigterm", o.ignoreSigterm},
		{"ignore-stdin-close", o.ignoreStdinClose}, {"http", o.httpAddr != ""}, {"sse", o.sseAddr != ""}} {
		if f.set {
			return f.name, true
		}
	}
	return "", false
}

// ServeStdio runs the server that args describe (the fakemcp command line) in this
// process, speaking MCP on in and out and writing to stderr what the process would, until
// in ends or ctx is cancelled: the server end of a pipe session. Its return is the exit a
// process would have had: nil for status 0, else an *ExitError. Exiting (-crash-after,
// -exit-on-start, -discover exit) stops every write to out at once, as a dead process
// writes nothing more. -max-lifetime is ignored (there is no process to outlive the
// test); the flags NeedsProcess names are refused.
func ServeStdio(ctx context.Context, args []string, env Env, in io.Reader, out, stderr io.Writer) error {
	o, err := parseFlags(args)
	if err != nil {
		fmt.Fprintln(stderr, "fakemcp:", err)
		return &ExitError{Code: exitSetup}
	}
	if f, ok := NeedsProcess(args); ok {
		fmt.Fprintf(stderr, "fakemcp: -%s needs a process of its own\n", f)
		return &ExitError{Code: exitSetup}
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := &gate{w: out}
	var mu sync.Mutex // the exit, from whichever handler calls it first
	exited, code := false, exitOK
	o.exit = func(c int) {
		mu.Lock()
		defer mu.Unlock()
		if !exited {
			exited, code = true, c
			g.shut()
			cancel()
		}
	}
	o.stderr, o.env = stderr, env
	c := run(ctx, o, in, g)
	mu.Lock()
	if !exited {
		code = c
	}
	mu.Unlock()
	if code != exitOK {
		return &ExitError{Code: code}
	}
	return nil
}

// gate is a process's stdout that an exit closes: nothing written after it gets out.
type gate struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return 0, io.ErrClosedPipe
	}
	return g.w.Write(p)
}

func (g *gate) shut() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

func run(ctx context.Context, o *options, in io.Reader, out io.Writer) int {
	if err := noteStart(o.starts, o.env.PID); err != nil {
		fmt.Fprintln(o.stderr, "fakemcp:", err)
		return exitSetup
	}
	if o.exitOnStart {
		fmt.Fprintln(o.stderr, "fatal: boom")
		return exitStart
	}
	if o.maxLifetime > 0 && o.process {
		time.AfterFunc(o.maxLifetime, func() {
			fmt.Fprintln(os.Stderr, "fakemcp: max lifetime reached")
			os.Exit(exitLifetime)
		})
	}
	if o.ignoreSigterm {
		signal.Ignore(syscall.SIGTERM)
	}
	if o.sleepForever {
		blockForever()
	}
	if o.stderrBytes > 0 {
		writeStderrNoise(o.stderr, o.stderrBytes)
	}
	if o.grandchild {
		if err := spawnGrandchild(o); err != nil {
			fmt.Fprintln(os.Stderr, "fakemcp: spawn grandchild:", err)
			return exitSetup
		}
	}

	rec, err := openRecorder(o.record)
	if err != nil {
		fmt.Fprintln(o.stderr, "fakemcp:", err)
		return exitSetup
	}
	defer rec.Close()

	if o.httpAddr != "" || o.sseAddr != "" {
		return serveHTTP(o, rec)
	}
	return serveStdio(ctx, o, rec, in, out)
}

// blockForever never returns. It sleeps rather than using an empty select so
// the runtime's deadlock detector never fires.
func blockForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// writeStderrNoise writes exactly n bytes to stderr, as lines of 100 bytes
// (99 characters and a newline); the last line may be shorter.
func writeStderrNoise(w io.Writer, n int) {
	const lineLen = 100
	line := []byte(strings.Repeat("stderr noise ", lineLen)[:lineLen-1] + "\n")
	for n > 0 {
		chunk := line
		if n < lineLen {
			chunk = append(append([]byte{}, line[:n-1]...), '\n')
		}
		if _, err := w.Write(chunk); err != nil {
			return
		}
		n -= len(chunk)
	}
}

// spawnGrandchild re-executes this binary with -sleep-forever in the same
// process group, sharing stdin/stdout/stderr, the way npx leaves node behind.
// The child is reaped in the background should it exit before us.
func spawnGrandchild(o *options) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"-sleep-forever"}
	if o.marker != "" {
		args = append(args, "-marker", o.marker)
	}
	if o.ignoreSigterm {
		args = append(args, "-ignore-sigterm")
	}
	if o.maxLifetime > 0 {
		args = append(args, "-max-lifetime", o.maxLifetime.String())
	}
	cmd := exec.Command(self, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// newServer builds the MCP server with the tools and hooks o asks for.
func newServer(o *options, rec *recorder) *server.MCPServer {
	var calls atomic.Int64
	hooks := &server.Hooks{}
	if o.crashAfter > 0 {
		hooks.AddBeforeCallTool(func(context.Context, any, *mcp.CallToolRequest) {
			if calls.Add(1) == int64(o.crashAfter) {
				fmt.Fprintf(o.stderr, "fakemcp: crashing on tools/call #%d\n", o.crashAfter)
				o.exit(exitCrash)
			}
		})
	}

	if o.listHints != "" {
		if err := listHints(hooks, o.listHints); err != nil {
			fmt.Fprintln(o.stderr, err)
			o.exit(exitSetup)
		}
	}
	if o.duplicateTool != "" {
		duplicateTool(hooks, o.duplicateTool)
	}
	// The server is made after its hooks; the list_changed hook reaches it
	// through s, set below before any request can arrive.
	var s *server.MCPServer
	if o.listChangedCall {
		// An event, not a timer: a test can list the tools first, however
		// slowly, and know late_tool is not among them yet.
		var once sync.Once
		hooks.AddAfterCallTool(func(context.Context, any, *mcp.CallToolRequest, any) {
			once.Do(func() { s.AddTool(lateTool()) })
		})
	}
	opts := []server.ServerOption{
		server.WithToolCapabilities(true),
		server.WithHooks(hooks),
	}
	if o.instructions != "" {
		opts = append(opts, server.WithInstructions(o.instructions))
	}
	s = server.NewMCPServer(o.name, "1.0.0", opts...)

	var tools []server.ServerTool
	if !o.noDefaultTools {
		tools = append(tools, defaultTools(o, rec, o.echoTag)...)
	}
	if o.genTools > 0 {
		tools = append(tools, generatedTools(o.genTools)...)
	}
	tools = append(tools, rawTools(o.rawTools)...)
	for i := range tools {
		if d, ok := o.describe[tools[i].Tool.Name]; ok {
			tools[i].Tool.Description = d
		}
	}
	if len(tools) > 0 {
		s.AddTools(tools...)
	}

	if o.listChangedAfter > 0 {
		var once sync.Once
		s.AddNotificationHandler(string(mcp.MethodNotificationInitialized), func(context.Context, mcp.JSONRPCNotification) {
			once.Do(func() {
				time.AfterFunc(time.Duration(o.listChangedAfter)*time.Millisecond, func() {
					// AddTool sends notifications/tools/list_changed because
					// the tools capability declares listChanged.
					s.AddTool(lateTool())
				})
			})
		})
	}
	return s
}

// serveStdio speaks MCP on in/out until in closes: through mcp-go's stdio server in a
// process, through stdioserve in process (mcp-go's keeps one session per process).
func serveStdio(ctx context.Context, o *options, rec *recorder, in io.Reader, out io.Writer) int {
	if o.banner {
		fmt.Fprintln(out, "Server started on stdio")
	}
	if o.junk {
		jw := newJunkWriter(out)
		jw.junkLine()
		out = jw
	}
	if rec != nil {
		in = newLineTap(in, rec.message)
	}
	if o.discover != "" {
		lw := &lockedWriter{w: out}
		in, out = eraFilter(o, in, lw), lw
	}

	if o.hangStart {
		_, _ = io.Copy(io.Discard, in)
	} else {
		s := newServer(o, rec)
		var err error
		if o.process {
			ss := server.NewStdioServer(s)
			if o.workers > 0 {
				server.WithWorkerPoolSize(o.workers)(ss)
			}
			err = ss.Listen(ctx, in, out)
		} else {
			err = stdioserve.Serve(ctx, s, in, out, stdioserve.Options{Workers: o.workers})
		}
		if err != nil && ctx.Err() == nil {
			fmt.Fprintln(o.stderr, "fakemcp: stdio:", err)
		}
	}
	if o.ignoreStdinClose {
		blockForever()
	}
	return exitOK
}

// serveHTTP serves streamable HTTP (-http) or SSE (-sse) on a loopback
// address, announcing the URL as the first stdout line "LISTENING <url>".
// It runs until SIGINT or SIGTERM.
func serveHTTP(o *options, rec *recorder) int {
	addr := o.httpAddr
	if addr == "" {
		addr = o.sseAddr
	}
	if err := checkLoopback(addr); err != nil {
		fmt.Fprintln(os.Stderr, "fakemcp:", err)
		return exitSetup
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakemcp: listen:", err)
		return exitSetup
	}
	base := "http://" + ln.Addr().String()

	srv, url := newHTTPServer(o, rec, base)
	fmt.Fprintln(os.Stdout, "LISTENING", url)

	sigs := []os.Signal{os.Interrupt}
	if !o.ignoreSigterm {
		sigs = append(sigs, syscall.SIGTERM)
	}
	ctx, stop := signal.NotifyContext(context.Background(), sigs...)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		_ = srv.Close()
		return exitOK
	case err := <-errc:
		fmt.Fprintln(os.Stderr, "fakemcp: serve:", err)
		return exitSetup
	}
}

// newHTTPServer is the HTTP server of -http or -sse at base (http://host:port), and the
// URL of its MCP endpoint.
func newHTTPServer(o *options, rec *recorder, base string) (*http.Server, string) {
	s := newServer(o, rec)
	mux := http.NewServeMux()
	var url string
	if o.httpAddr != "" {
		mux.Handle("/mcp", server.NewStreamableHTTPServer(s))
		url = base + "/mcp"
	} else {
		sse := server.NewSSEServer(s, server.WithBaseURL(base))
		mux.Handle("/sse", sse)
		mux.Handle("/message", sse)
		url = base + "/sse"
	}
	return &http.Server{
		Handler:           sessionFaults(o, rec, httpMiddleware(o, rec, mux)),
		ReadHeaderTimeout: 30 * time.Second,
	}, url
}

// ListenHTTP serves the HTTP server that args describe (they hold -http or -sse with a
// loopback address) in this process, as the fakemcp process would, and returns the URL
// of its MCP endpoint. The server runs until stop, or until it exits (-crash-after):
// then it closes its listener and every connection, as a dead process's go. Whatever the
// process would print on stderr goes to stderr.
func ListenHTTP(args []string, env Env, stderr io.Writer) (url string, stop func(), err error) {
	o, err := parseFlags(args)
	if err != nil {
		return "", nil, err
	}
	addr := o.httpAddr
	if addr == "" {
		addr = o.sseAddr
	}
	if addr == "" {
		return "", nil, errors.New("ListenHTTP wants -http or -sse")
	}
	if err := checkLoopback(addr); err != nil {
		return "", nil, err
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	rec, err := openRecorder(o.record)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = rec.Close()
		return "", nil, err
	}
	var srv *http.Server
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = srv.Close()
			_ = rec.Close()
		})
	}
	o.stderr, o.env = stderr, env
	// An exit while the server is being built (a setup failure) has no server to stop
	// yet: it is noted, and the listen fails as the process would exit.
	setupExit := 0
	o.exit = func(code int) { setupExit = code }
	srv, url = newHTTPServer(o, rec, "http://"+ln.Addr().String())
	if setupExit != 0 {
		_ = ln.Close()
		_ = rec.Close()
		return "", nil, &ExitError{Code: setupExit}
	}
	// Set before Serve: the handlers' goroutines see it.
	o.exit = func(int) { go stop() } // not on the handler's goroutine: Close waits for none, but the handler should return
	go func() { _ = srv.Serve(ln) }()
	return url, stop, nil
}

// checkLoopback refuses to listen anywhere but on a loopback address.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("bad listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("refusing to listen on non-loopback address %q", addr)
}

// httpMiddleware records each HTTP request (and the JSON-RPC messages in its
// body), enforces -require-header, and implements -hang-start for HTTP.
func httpMiddleware(o *options, rec *recorder, next http.Handler) http.Handler {
	var wantKey, wantVal string
	if o.requireHeader != "" {
		k, v, _ := strings.Cut(o.requireHeader, ":")
		wantKey, wantVal = http.CanonicalHeaderKey(strings.TrimSpace(k)), strings.TrimSpace(v)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rejected := wantKey != "" && r.Header.Get(wantKey) != wantVal
		if rec != nil {
			line := record.Line{Method: "http", HTTPMethod: r.Method, Path: r.URL.Path, Rejected: rejected}
			if wantKey != "" {
				if vals, ok := r.Header[wantKey]; ok {
					line.Headers = map[string][]string{wantKey: vals}
				}
			}
			rec.write(line)
		}
		if rejected {
			http.Error(w, "missing or wrong "+wantKey+" header", http.StatusUnauthorized)
			return
		}
		if rec != nil && r.Body != nil && r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, 256<<20))
			_ = r.Body.Close()
			if err != nil {
				http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
				return
			}
			rec.message(body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if o.hangStart {
			<-r.Context().Done()
			return
		}
		next.ServeHTTP(w, r)
	})
}
