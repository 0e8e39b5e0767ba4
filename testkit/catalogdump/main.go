// Command catalogdump refreshes the second tool-catalog fixture,
// testdata/mcp-catalog2/catalog-*.json. It is a maintenance tool only: nothing
// in mcp-bridge imports or runs it, and the tests read the committed fixture.
//
// For each line of a package list it installs the npm package into a fresh
// temporary directory (never globally), starts the package's bin over stdio,
// initializes, lists every page of tools and writes one catalog entry per
// server with the tools exactly as the server sent them. A server that cannot
// be installed, started or listed is left out and reported on stderr; nothing
// is made up for it.
//
// Usage:
//
//	go run ./testkit/catalogdump -packages testdata/mcp-catalog2/packages.txt \
//	    -out testdata/mcp-catalog2 [-reuse] [-timeout 60s]
//
// The catalog is written in parts, catalog-1.json, catalog-2.json, …, each of the
// whole catalog's shape with some of its servers, in order, and none over partBytes:
// a fixture of a few MB stays a set of files git and a review handle well.
//
// A package line is `<npm package>@<exact version> [bin:NAME] [args...] [ENV=VALUE...]`;
// `#` starts a comment. bin:NAME picks one of several bins. ENV values are
// placeholders such as FOO_API_KEY=dummy that let a server start without an
// account: never put a real secret in the list.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// protocolVersion is the revision the dump asks for; pinning a handshake-era
// version keeps the client from probing servers with the newer discovery call.
const protocolVersion = "2025-06-18"

// maxPages bounds tools/list pagination against a server that never stops
// handing out cursors.
const maxPages = 100

// entry is one server of the catalog, in the shape of the first catalog.
type entry struct {
	Name              string          `json:"name"`
	Package           string          `json:"package"`
	Version           string          `json:"version"`
	ProtocolVersion   string          `json:"protocolVersion"`
	ServerInfo        json.RawMessage `json:"serverInfo"`
	Capabilities      json.RawMessage `json:"capabilities"`
	InstructionsChars int             `json:"instructions_chars"`
	Tools             []toolDef       `json:"tools"`
}

// toolDef keeps the fields the catalog records, each as the server wrote it.
type toolDef struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

type catalog struct {
	GeneratedBy        string          `json:"generated_by"`
	ClientCapabilities json.RawMessage `json:"client_capabilities"`
	Servers            []entry         `json:"servers"`
}

// spec is one parsed line of the package list.
type spec struct {
	Package string
	Version string
	Bin     string
	Args    []string
	Env     []string
}

var envRe = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)

func parseLine(line string) (spec, bool, error) {
	if i := strings.Index(line, "#"); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return spec{}, false, nil
	}
	at := strings.LastIndex(f[0], "@")
	if at <= 0 {
		return spec{}, false, fmt.Errorf("%q: want <package>@<exact version>", f[0])
	}
	s := spec{Package: f[0][:at], Version: f[0][at+1:]}
	for _, w := range f[1:] {
		switch {
		case strings.HasPrefix(w, "bin:"):
			s.Bin = strings.TrimPrefix(w, "bin:")
		case envRe.MatchString(w):
			s.Env = append(s.Env, w)
		default:
			s.Args = append(s.Args, w)
		}
	}
	return s, true, nil
}

func readList(path string) ([]spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []spec
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		s, ok, err := parseLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if ok {
			out = append(out, s)
		}
	}
	return out, sc.Err()
}

func main() {
	list := flag.String("packages", "testdata/mcp-catalog2/packages.txt", "package list")
	out := flag.String("out", "testdata/mcp-catalog2", "directory of the catalog's parts (catalog-N.json)")
	reuse := flag.Bool("reuse", false, "keep entries of the catalog in -out whose package and version are unchanged instead of dumping them again")
	timeout := flag.Duration("timeout", 60*time.Second, "time for one server to start and list its tools")
	installTimeout := flag.Duration("install-timeout", 5*time.Minute, "time for one npm install")
	flag.Parse()

	specs, err := readList(*list)
	if err != nil {
		fmt.Fprintln(os.Stderr, "catalogdump:", err)
		os.Exit(2)
	}
	old := map[string]entry{}
	if *reuse {
		c, err := readCatalog(*out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "catalogdump: %v; run without -reuse\n", err)
			os.Exit(2)
		}
		for _, e := range c.Servers {
			old[e.Package+"@"+e.Version] = e
		}
	}

	caps := mcp.ClientCapabilities{}
	caps.Roots = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: true}
	capsJSON, _ := json.Marshal(caps)

	res := catalog{GeneratedBy: "go run ./testkit/catalogdump", ClientCapabilities: capsJSON}
	names := map[string]bool{}
	var failed []string
	for _, s := range specs {
		key := s.Package + "@" + s.Version
		e, ok := old[key]
		if !ok {
			fmt.Fprintf(os.Stderr, "== %s\n", key)
			e, err = dumpOne(s, *installTimeout, *timeout)
			if err != nil {
				fmt.Fprintf(os.Stderr, "   FAILED %s: %v\n", key, err)
				failed = append(failed, key+": "+textcut.FirstLine(err.Error(), 200))
				continue
			}
			fmt.Fprintf(os.Stderr, "   %d tools\n", len(e.Tools))
		}
		e.Name = uniqueName(shortName(s.Package), names)
		res.Servers = append(res.Servers, e)
		// Written after every server, so that a long run that is stopped
		// keeps what it did; -reuse then picks up from there.
		if err := writeCatalog(*out, res); err != nil {
			fmt.Fprintln(os.Stderr, "catalogdump:", err)
			os.Exit(1)
		}
	}
	if err := writeCatalog(*out, res); err != nil {
		fmt.Fprintln(os.Stderr, "catalogdump:", err)
		os.Exit(1)
	}
	total := 0
	for _, e := range res.Servers {
		total += len(e.Tools)
	}
	fmt.Fprintf(os.Stderr, "wrote %s: %d servers, %d tools; %d failed\n", *out, len(res.Servers), total, len(failed))
	for _, f := range failed {
		fmt.Fprintln(os.Stderr, "  failed:", f)
	}
}

// partBytes bounds one part of the catalog.
const partBytes = 1536 << 10

// partName is the file of the catalog's part n (from 1) in dir.
func partName(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("catalog-%d.json", n))
}

// readCatalog reads the catalog's parts in dir, in order, as one catalog; no part is an
// empty catalog.
func readCatalog(dir string) (catalog, error) {
	var all catalog
	for n := 1; ; n++ {
		b, err := os.ReadFile(partName(dir, n))
		if errors.Is(err, fs.ErrNotExist) {
			return all, nil
		}
		if err != nil {
			return all, err
		}
		var c catalog
		if err := json.Unmarshal(b, &c); err != nil {
			return all, fmt.Errorf("%s is not a catalog part: %w", partName(dir, n), err)
		}
		all.GeneratedBy, all.ClientCapabilities = c.GeneratedBy, c.ClientCapabilities
		all.Servers = append(all.Servers, c.Servers...)
	}
}

// writeCatalog writes c in parts of at most partBytes each (a server that alone is
// larger gets a part of its own), each replaced whole, and removes the parts a larger
// catalog left beyond them.
func writeCatalog(dir string, c catalog) error {
	n := 0
	for rest := c.Servers; len(rest) > 0; {
		part := catalog{GeneratedBy: c.GeneratedBy, ClientCapabilities: c.ClientCapabilities}
		var data []byte
		for len(rest) > 0 {
			try := append(part.Servers, rest[0])
			b, err := encodeCatalog(catalog{GeneratedBy: c.GeneratedBy, ClientCapabilities: c.ClientCapabilities, Servers: try})
			if err != nil {
				return err
			}
			if len(b) > partBytes && len(part.Servers) > 0 {
				break
			}
			part.Servers, data, rest = try, b, rest[1:]
		}
		n++
		if err := replaceFile(partName(dir, n), data); err != nil {
			return err
		}
	}
	for n++; ; n++ {
		if err := os.Remove(partName(dir, n)); errors.Is(err, fs.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// encodeCatalog is c as the fixture's JSON: indented, with descriptions keeping their
// < > & as the servers wrote them.
func encodeCatalog(c catalog) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	err := enc.Encode(c)
	return buf.Bytes(), err
}

// replaceFile replaces path whole, never leaving a half-written file.
func replaceFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// shortName turns a package name into a server name like the first catalog's.
func shortName(pkg string) string {
	n := pkg
	if i := strings.LastIndex(n, "/"); i >= 0 {
		n = n[i+1:]
	}
	for _, p := range []string{"mcp-server-", "server-", "mcp-"} {
		n = strings.TrimPrefix(n, p)
	}
	for _, p := range []string{"-mcp-server", "-server-mcp", "-mcp", "-server"} {
		n = strings.TrimSuffix(n, p)
	}
	if n == "" || n == "mcp" || n == "server" {
		n = strings.NewReplacer("@", "", "/", "-").Replace(pkg)
	}
	return n
}

func uniqueName(n string, seen map[string]bool) string {
	base := n
	for i := 2; seen[n]; i++ {
		n = fmt.Sprintf("%s-%d", base, i)
	}
	seen[n] = true
	return n
}

func dumpOne(s spec, installTimeout, timeout time.Duration) (entry, error) {
	dir, err := os.MkdirTemp("", "catalogdump-")
	if err != nil {
		return entry{}, err
	}
	defer os.RemoveAll(dir)

	ictx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	// Install scripts are not run: they are where packages fetch browsers or
	// binaries from outside the registry, and a dump needs only the code that
	// answers tools/list.
	cmd := exec.CommandContext(ictx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund",
		"--ignore-scripts", "--loglevel=error", s.Package+"@"+s.Version)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if outb, err := cmd.CombinedOutput(); err != nil {
		return entry{}, fmt.Errorf("npm install: %v: %s", err, strings.TrimSpace(string(outb)))
	}
	bin, err := findBin(dir, s)
	if err != nil {
		return entry{}, err
	}
	home := filepath.Join(dir, "home")
	work := filepath.Join(dir, "work")
	_ = os.MkdirAll(home, 0o755)
	_ = os.MkdirAll(work, 0o755)
	// A small environment of our own: nothing of the caller's (tokens included)
	// reaches the server.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + dir, "LANG=C.UTF-8", "NODE_ENV=production"}
	env = append(env, s.Env...)
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = strings.ReplaceAll(a, "{WORK}", work)
	}
	return listTools(s, bin, work, env, args, timeout)
}

func findBin(dir string, s spec) (string, error) {
	pj := filepath.Join(dir, "node_modules", filepath.FromSlash(s.Package), "package.json")
	b, err := os.ReadFile(pj)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", pj, err)
	}
	var p struct {
		Name string          `json:"name"`
		Bin  json.RawMessage `json:"bin"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return "", fmt.Errorf("%s: %w", pj, err)
	}
	bins := map[string]string{}
	var one string
	if json.Unmarshal(p.Bin, &one) == nil && one != "" {
		n := p.Name
		if i := strings.LastIndex(n, "/"); i >= 0 {
			n = n[i+1:]
		}
		bins[n] = one
	} else {
		_ = json.Unmarshal(p.Bin, &bins)
	}
	if len(bins) == 0 {
		return "", errors.New("the package has no bin to start")
	}
	name := s.Bin
	if name == "" {
		if len(bins) == 1 {
			for k := range bins {
				name = k
			}
		} else {
			keys := make([]string, 0, len(bins))
			for k := range bins {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return "", fmt.Errorf("several bins (%s): add bin:NAME to the package line", strings.Join(keys, ", "))
		}
	}
	if _, ok := bins[name]; !ok {
		return "", fmt.Errorf("no bin %q", name)
	}
	return filepath.Join(dir, "node_modules", ".bin", name), nil
}

type rootsHandler struct{ uri string }

func (r rootsHandler) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: r.uri, Name: "work"}}}, nil
}

func listTools(s spec, bin, work string, env, args []string, timeout time.Duration) (entry, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var started *exec.Cmd
	errTail := &tailBuffer{}
	tr := transport.NewStdioWithOptions(bin, env, args, transport.WithCommandStderrWriter(errTail), transport.WithCommandFunc(
		func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			c := exec.Command(command, args...)
			c.Env = env
			c.Dir = work
			// Its own process group, so that whatever the server spawns is
			// ended with it.
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			started = c
			return c, nil
		}))
	if err := tr.Start(ctx); err != nil {
		return entry{}, fmt.Errorf("start %s: %w", bin, err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion(protocolVersion),
		client.WithRootsHandler(rootsHandler{uri: "file://" + work}))
	defer func() {
		_ = c.Close()
		if started != nil && started.Process != nil {
			_ = syscall.Kill(-started.Process.Pid, syscall.SIGKILL)
		}
	}()
	if err := c.Start(ctx); err != nil {
		return entry{}, fmt.Errorf("start client: %w", err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = protocolVersion
	init.Params.ClientInfo = mcp.Implementation{Name: "mcp-bridge-catalogdump", Version: "1"}
	ir, err := c.Initialize(ctx, init)
	if err != nil {
		return entry{}, fmt.Errorf("initialize: %w%s", err, errTail.suffix())
	}
	e := entry{Package: s.Package, Version: s.Version, ProtocolVersion: ir.ProtocolVersion,
		InstructionsChars: len([]rune(ir.Instructions))}
	e.ServerInfo, _ = json.Marshal(ir.ServerInfo)
	e.Capabilities, _ = json.Marshal(ir.Capabilities)

	// tools/list goes straight to the transport so that each tool's JSON is
	// kept as the server wrote it rather than re-encoded through mcp-go's types.
	cursor := ""
	for page := 0; ; page++ {
		if page == maxPages {
			return entry{}, fmt.Errorf("tools/list still paginating after %d pages", maxPages)
		}
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(fmt.Sprintf("list-%d", page)),
			Method: "tools/list", Params: params,
		})
		if err != nil {
			return entry{}, fmt.Errorf("tools/list: %w%s", err, errTail.suffix())
		}
		if resp.Error != nil {
			return entry{}, fmt.Errorf("tools/list: error %d: %s", resp.Error.Code, resp.Error.Message)
		}
		var lr struct {
			Tools      []toolDef `json:"tools"`
			NextCursor string    `json:"nextCursor"`
		}
		if err := json.Unmarshal(resp.Result, &lr); err != nil {
			return entry{}, fmt.Errorf("tools/list result: %w", err)
		}
		e.Tools = append(e.Tools, lr.Tools...)
		if lr.NextCursor == "" {
			break
		}
		cursor = lr.NextCursor
	}
	if len(e.Tools) == 0 {
		return entry{}, errors.New("the server listed no tools")
	}
	for _, t := range e.Tools {
		if len(t.InputSchema) == 0 {
			return entry{}, fmt.Errorf("tool %q has no inputSchema", t.Name)
		}
	}
	return e, nil
}

// tailBuffer keeps the last bytes a server wrote to stderr, for the report
// of a server that failed.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 2048

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailMax:]...)
	}
	return len(p), nil
}

// suffix is the tail as "; stderr: ...", or "" when the server wrote nothing.
func (t *tailBuffer) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := []rune(strings.Join(strings.Fields(string(t.buf)), " "))
	if len(r) == 0 {
		return ""
	}
	if len(r) > 400 {
		r = r[len(r)-400:]
	}
	return "; stderr: " + string(r)
}
