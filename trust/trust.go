// Package trust records which project-defined MCP servers the user approved to run.
//
// A server from a project file (a repository's .zot/mcp.json and the like) runs code or
// sends data on the repository's say-so, so the bridge starts or contacts it only after
// the user approved it for that project. An approval is stored under ZOT_HOME, keyed by
// the project directory and the server name, and holds a fingerprint of everything in the
// entry that decides what runs or where data goes; any change of those asks again. It also
// pins the server's tools as approved (tools.go), and the store keeps the pinned tools of
// global servers with "pinTools": true.
package trust

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/zot-mcp/mcp-bridge/cache"
	"github.com/zot-mcp/mcp-bridge/config"
	"github.com/zot-mcp/mcp-bridge/internal/fsutil"
)

// FileName is the store's name inside ZOT_HOME.
const FileName = "mcp-trust.json"

// fileVersion is the store format; a file of another version is treated as empty (nothing
// approved) and replaced on the next approval.
const fileVersion = 1

// DefaultPath returns the store's path: <zotHome>/mcp-trust.json.
func DefaultPath(zotHome string) string { return filepath.Join(zotHome, FileName) }

// Approval is one approved server of one project.
type Approval struct {
	// Fingerprint is Fingerprint(server) at the time of approval.
	Fingerprint string `json:"fingerprint"`
	// ApprovedAt is when the user approved it (UTC).
	ApprovedAt time.Time `json:"approvedAt"`
	// Tools pins the server's tools as approved: tool name → ToolFingerprint. Nil when
	// none are pinned yet (an approval stored before tools were pinned, or given before
	// the tools were ever listed): the bridge then pins the first tools it sees. An empty
	// map pins "no tools": every tool is new.
	Tools map[string]string `json:"tools,omitzero"`
}

// File is the decoded store: approvals by project key (see ProjectKey), then server name,
// and the pinned tools of global servers.
type File struct {
	Version  int                            `json:"version"`
	Projects map[string]map[string]Approval `json:"projects"`
	// Global pins the tools of global servers with "pinTools": true, by server name
	// (Fingerprint is the entry's when pinned, for the record; a global entry needs no
	// approval). Absent in stores written before tools were pinned.
	Global map[string]Approval `json:"global,omitempty"`
}

// Target names the server whose tools are pinned: an approved project server, or a
// global server with "pinTools": true.
type Target struct {
	Global  bool   // a global server: pinned by name, in every project
	Project string // the project directory (project servers)
	Server  string
	// Fingerprint is Fingerprint(server) now; a project server's pins count only while
	// its approval has it.
	Fingerprint string
}

// Pins returns t's pinned tools (nil when none are pinned yet); ok is false when t is a
// project server without an approval of its current entry.
func (f *File) Pins(t Target) (pins map[string]string, ok bool) {
	if f == nil {
		return nil, t.Global
	}
	if t.Global {
		return f.Global[t.Server].Tools, true
	}
	a, ok := f.Projects[ProjectKey(t.Project)][t.Server]
	if !ok || t.Fingerprint == "" || a.Fingerprint != t.Fingerprint {
		return nil, false
	}
	return a.Tools, true
}

// Servers lists the servers with an approval for project (whatever their fingerprint),
// sorted.
func (f *File) Servers(project string) []string {
	if f == nil {
		return nil
	}
	m := f.Projects[ProjectKey(project)]
	out := slices.Sorted(maps.Keys(m))
	return out
}

// ProjectKey is the key a project directory is stored under: absolute, cleaned, with
// symbolic links resolved when the directory exists, so the same project reached by two
// spellings shares its approvals.
func ProjectKey(dir string) string {
	if dir == "" {
		return ""
	}
	if a, err := filepath.Abs(dir); err == nil {
		dir = a
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return filepath.Clean(dir)
}

// fingerprintData is what Fingerprint hashes. The purpose tag keeps the hash from ever
// equalling another fingerprint of the same entry (the tool cache's key, for instance).
type fingerprintData struct {
	Purpose   string      `json:"purpose"`
	Transport string      `json:"transport"`
	Command   string      `json:"command"`
	Args      []string    `json:"args"`
	Cwd       string      `json:"cwd"`
	Env       [][2]string `json:"env"`
	URL       string      `json:"url"`
	Headers   [][2]string `json:"headers"`
	// EnvPolicy is the policy in effect (it decides which of the user's variables
	// the server sees); omitted when unset so that older fingerprints stay valid.
	EnvPolicy string `json:"envPolicy,omitempty"`
	// OAuth is the entry's "oauth" fields as written (which client and secret are sent
	// to the server's authorization server); omitted when there are none, so that older
	// fingerprints stay valid.
	OAuth [][2]string `json:"oauth,omitempty"`
}

// Fingerprint returns the hex SHA-256 of everything in s that decides what runs or where
// data goes: transport, command, args, cwd, env entries, the env policy in effect, url and
// header entries, all as written in the file (${VAR} references unexpanded, so the hash never depends on, or
// reveals, a secret held in the environment). Name, timeouts, enabled and tool filters are
// left out: editing them does not ask again.
func Fingerprint(s *config.Server) string {
	fd := fingerprintData{
		Purpose:   "mcp-bridge project trust v1",
		Transport: string(s.Transport),
		Command:   s.Raw.Command,
		Args:      s.Raw.Args,
		Cwd:       s.Raw.Cwd,
		Env:       config.SortedPairs(s.Raw.Env),
		URL:       s.Raw.URL,
		Headers:   config.SortedPairs(s.Raw.Headers),
		EnvPolicy: s.EnvPolicy.String(),
		OAuth:     config.SortedPairs(s.Raw.OAuth),
	}
	if fd.Args == nil {
		fd.Args = []string{}
	}
	return config.HashJSON(fd)
}

// Read reads the store. A missing file is an empty store. A damaged file or one of an
// unknown version is returned empty together with an error saying so: nothing in it
// counts as approved, and the next approval replaces it. So is a store another user could
// change (fsutil.CheckWriters), with an *UnsafeError: like ssh with authorized_keys,
// approvals are taken only from a file no one else can write.
func Read(path string) (*File, error) {
	data, unsafe, err := fsutil.ReadFileChecked(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return emptyFile(), nil
		}
		return emptyFile(), fmt.Errorf("trust store %s: %w", path, err)
	}
	if unsafe != nil {
		return emptyFile(), unsafeStore(unsafe)
	}
	return decode(path, data)
}

// UnsafeError is the error of a store another user could change: nothing in it counts
// as approved, and the bridge does not write it.
type UnsafeError struct{ Err *fsutil.UnsafeError }

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("the approval store %s is %s, so another user could have approved servers in it: its approvals are not used and it is not rewritten; check what it holds (or delete it), then fix it: %s. Until then every project server waits for approval",
		e.Err.Path, e.Err.Why, e.Err.Fix)
}

func (e *UnsafeError) Unwrap() error { return e.Err }

// unsafeStore wraps fsutil's answer about a store another user could change.
func unsafeStore(unsafe error) error {
	var ue *fsutil.UnsafeError
	if !errors.As(unsafe, &ue) {
		return unsafe
	}
	return &UnsafeError{Err: ue}
}

// decode parses the store's bytes (see Read).
func decode(path string, data []byte) (*File, error) {
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return emptyFile(), fmt.Errorf("trust store %s is damaged (%v); every project server needs approval again", path, err)
	}
	if f.Version != fileVersion {
		return emptyFile(), fmt.Errorf("trust store %s has unknown version %d; every project server needs approval again", path, f.Version)
	}
	if f.Projects == nil {
		f.Projects = map[string]map[string]Approval{}
	}
	return &f, nil
}

func emptyFile() *File {
	return &File{Version: fileVersion, Projects: map[string]map[string]Approval{}}
}

// Approve records approvals for project: server name → fingerprint, stamped with now,
// with the tools not known (see Grant). It merges under a cross-process lock with whatever
// other writers stored meanwhile and replaces the file atomically (mode 0600).
func Approve(ctx context.Context, path, project string, fingerprints map[string]string, now time.Time) error {
	grants := make([]Grant, 0, len(fingerprints))
	for name, fp := range fingerprints {
		grants = append(grants, Grant{Target: Target{Project: project, Server: name, Fingerprint: fp}})
	}
	return ApproveTools(ctx, path, grants, now)
}

// Grant is one server the user approves, with its tools as they are now.
type Grant struct {
	Target
	// Tools are the tools approved, when Listed. Otherwise they are not known yet: the
	// pins stored for the server stay (an edited entry approved again keeps the old pins,
	// so what changed with it is still held back), and a server with none is pinned at
	// its first listing.
	Tools  []cache.Tool
	Listed bool
}

// ApproveTools records the grants, stamped with now: a project server's approval of its
// entry as it is now, a global server's pinned tools. It merges under the store's
// cross-process lock, like Approve, and keeps the definitions of the pinned tools beside
// the store (ApprovedTools).
func ApproveTools(ctx context.Context, path string, grants []Grant, now time.Time) error {
	for _, g := range grants {
		if !g.Global && ProjectKey(g.Project) == "" {
			return errors.New("trust store: no project directory to approve servers for")
		}
	}
	var defs []cache.Tool
	for _, g := range grants {
		if g.Listed {
			defs = append(defs, g.Tools...)
		}
	}
	return update(ctx, path, defs, func(f *File) bool {
		for _, g := range grants {
			old, _ := f.approval(g.Target)
			a := Approval{Fingerprint: g.Fingerprint, ApprovedAt: now.UTC(), Tools: old.Tools}
			if g.Listed {
				a.Tools = PinsOf(g.Tools)
			}
			f.setApproval(g.Target, a)
		}
		return len(grants) > 0
	})
}

// PinFirst pins tools as t's approved tools when none are pinned yet, and returns the
// pins in effect: these, or the ones another writer stored first. ok is false when t is a
// project server whose approval of its current entry is gone (nothing is pinned then).
func PinFirst(ctx context.Context, path string, t Target, tools []cache.Tool, now time.Time) (pins map[string]string, ok bool, err error) {
	err = update(ctx, path, tools, func(f *File) bool {
		a, found := f.approval(t)
		if !t.Global && (!found || a.Fingerprint != t.Fingerprint) {
			return false
		}
		ok = true
		if a.Tools != nil {
			pins = a.Tools
			return false
		}
		if !found {
			a = Approval{Fingerprint: t.Fingerprint, ApprovedAt: now.UTC()}
		}
		a.Tools = PinsOf(tools)
		pins = a.Tools
		f.setApproval(t, a)
		return true
	})
	if err != nil {
		return nil, false, err
	}
	return pins, ok, nil
}

// approval is t's stored approval (or global pins), if any.
func (f *File) approval(t Target) (Approval, bool) {
	if t.Global {
		a, ok := f.Global[t.Server]
		return a, ok
	}
	a, ok := f.Projects[ProjectKey(t.Project)][t.Server]
	return a, ok
}

// setApproval stores t's approval (or global pins).
func (f *File) setApproval(t Target, a Approval) {
	if t.Global {
		if f.Global == nil {
			f.Global = map[string]Approval{}
		}
		f.Global[t.Server] = a
		return
	}
	key := ProjectKey(t.Project)
	m := f.Projects[key]
	if m == nil {
		m = map[string]Approval{}
		f.Projects[key] = m
	}
	m[t.Server] = a
}

// Revoke removes the approvals of the named servers for project (every approval of the
// project when names is nil) and returns the names it removed, sorted.
func Revoke(ctx context.Context, path, project string, names []string) ([]string, error) {
	key := ProjectKey(project)
	var removed []string
	err := update(ctx, path, nil, func(f *File) bool {
		m := f.Projects[key]
		if names == nil {
			for n := range m {
				removed = append(removed, n)
			}
		} else {
			for _, n := range names {
				if _, ok := m[n]; ok {
					removed = append(removed, n)
				}
			}
		}
		for _, n := range removed {
			delete(m, n)
		}
		if len(m) == 0 {
			delete(f.Projects, key)
		}
		return len(removed) > 0
	})
	sort.Strings(removed)
	return removed, err
}

// update applies change to the store under its lock and writes it when change reports a
// modification; the definitions of defs, the tools being pinned, are kept beside it
// first (writeDefinitions), so a pin is never stored without its text.
func update(ctx context.Context, path string, defs []cache.Tool, change func(*File) bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	unlock, err := fsutil.Lock(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("trust store: waiting for lock %s.lock: %w", path, err)
	}
	defer unlock()
	var f *File
	switch data, unsafe, err := fsutil.ReadFileChecked(path); {
	case errors.Is(err, fs.ErrNotExist):
		f = emptyFile()
	case err != nil:
		// Replacing a file we could not read would drop approvals we cannot see.
		return fmt.Errorf("trust store: %w", err)
	case unsafe != nil:
		// Rewriting it would turn approvals someone else may have added into the user's.
		return unsafeStore(unsafe)
	default:
		f, _ = decode(path, data) // a damaged store is replaced: it approved nothing anyway
	}
	if !change(f) {
		return nil
	}
	if err := writeDefinitions(path, f, defs); err != nil {
		return err
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("trust store: encoding: %w", err)
	}
	if err := fsutil.WriteFileAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	return nil
}
