package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/config/importer"
	"github.com/zot-mcp/mcp-bridge/internal/plainjson"
	"github.com/zot-mcp/mcp-bridge/internal/words"
)

// cmdImport copies the servers of another client's user-level config into our mcp.json
// (comment-keeping write), never carrying a literal secret unless --include-secrets.
func cmdImport(args []string, stdout, stderr io.Writer) int {
	synopsis := "import " + strings.Join(importer.Clients, "|") + " [--from FILE] [--global|--project] [--dry-run] [--include-secrets] [--force] [--cwd DIR]"
	f := newFlags("import", synopsis, stderr)
	from := f.fs.String("from", "", "file to read (default: the client's user-level config)")
	global := f.fs.Bool("global", false, "write to $ZOT_HOME/mcp.json (the default)")
	project := f.fs.Bool("project", false, "write to <project>/.zot/mcp.json")
	dry := f.fs.Bool("dry-run", false, "show what would be imported; write nothing")
	secrets := f.fs.Bool("include-secrets", false, "copy literal secrets as they are instead of ${VAR} references")
	force := f.fs.Bool("force", false, "replace servers of the same name already in the target file")
	pos, err := f.parse(args)
	if err != nil {
		return exitFor(err)
	}
	if len(pos) != 1 || *global && *project {
		f.fs.Usage()
		return 2
	}
	home, _ := os.UserHomeDir()
	zotHome := config.ZotHome(os.LookupEnv, runtime.GOOS, home)
	target := config.GlobalPath(zotHome)
	if *project {
		target = config.ProjectPath(absDir(f.cwd))
	}
	// Imported names must not look like the servers already configured, in either file.
	var taken []string
	for _, s := range config.Load(config.Options{ZotHome: zotHome, ProjectDir: absDir(f.cwd), LookupEnv: os.LookupEnv}).Servers {
		taken = append(taken, s.Name)
	}
	opts := importer.Options{Client: pos[0], From: *from, ProjectDir: absDir(f.cwd), Home: home, GOOS: runtime.GOOS,
		LookupEnv: os.LookupEnv, IncludeSecrets: *secrets && !*dry, Taken: taken}
	res, err := importer.Read(opts)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	verb := "Importing"
	if *dry {
		verb = "Would import (dry run, nothing is written)"
	}
	fmt.Fprintf(stdout, "%s %s from %s into %s\n", verb, words.Count(len(res.Servers), "server"), res.Source, target)
	var imported, already, kept, failed int
	ctx, cancel := context.WithTimeout(context.Background(), editTimeout)
	defer cancel()
	for _, s := range res.Servers {
		was := ""
		if s.Was != "" {
			was = " (renamed, see the note below)"
		}
		// The entry holds no literal secret unless --include-secrets, and a dry run is
		// always computed without them, so printing it is safe.
		raw, err := plainjson.Marshal(s.Entry)
		if err != nil {
			fmt.Fprintf(stdout, "  ! %s: cannot encode the entry: %v\n", s.Name, err)
			failed++
			continue
		}
		if *dry {
			fmt.Fprintf(stdout, "  + %s%s %s\n", s.Name, was, raw)
			continue
		}
		replaced, err := config.AddServer(ctx, target, s.Name, raw, *force)
		var exists *config.ExistsError
		switch {
		case errors.As(err, &exists) && exists.Same:
			fmt.Fprintf(stdout, "  = %s: already imported (the same entry is in %s)\n", s.Name, target)
			already++
		case errors.As(err, &exists):
			fmt.Fprintf(stdout, "  = %s: kept the different entry of that name already in %s (--force replaces it)\n", s.Name, target)
			kept++
		case err != nil:
			fmt.Fprintf(stdout, "  ! %s: %v\n", s.Name, err)
			failed++
		case replaced:
			fmt.Fprintf(stdout, "  ~ %s (replaced)%s\n", s.Name, was)
			imported++
		default:
			fmt.Fprintf(stdout, "  + %s%s\n", s.Name, was)
			imported++
		}
	}
	for _, sec := range res.Secrets {
		if sec.Var == "" {
			fmt.Fprintf(stdout, "  secret: server %q %s copied as a literal value (--include-secrets)\n", sec.Server, sec.Field)
			continue
		}
		fmt.Fprintf(stdout, "  secret: server %q %s was a literal value; not copied, the entry reads ${%s}: set %s in the environment zot starts in (or import with --include-secrets)\n",
			sec.Server, sec.Field, sec.Var, sec.Var)
	}
	for _, n := range res.Notes {
		fmt.Fprintln(stdout, "  note: "+n)
	}
	switch {
	case *dry && *secrets:
		fmt.Fprintln(stdout, "With --include-secrets (and without --dry-run) the literal values above are copied instead; they are never shown.")
	case !*dry:
		fmt.Fprintf(stdout, "Imported %d of %s%s. Check them with: mcp-bridge doctor\n", imported, words.Count(len(res.Servers), "server"), importTally(already, kept, failed))
	}
	return boolExit(failed > 0)
}

// importTally names the servers not imported, by why, so that the counts add up.
func importTally(already, kept, failed int) string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{already, "already imported"}, {kept, "kept as they were"}, {failed, "failed"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ")
}

// absDir makes a --cwd value absolute (Claude Code keys its per-project servers by it).
func absDir(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}
