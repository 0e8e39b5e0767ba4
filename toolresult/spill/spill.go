// Package spill keeps the whole text of a tool result that the bridge cut for the model,
// in a private file the model can read the rest of with zot's own file tools: one file
// per result under ZOT_HOME/mcp-results, the oldest pruned.
package spill

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/internal/fsutil"
)

// DirName is the directory under ZOT_HOME that holds the files.
const DirName = "mcp-results"

// Keep and MaxAge bound what the directory holds: a save removes every file older than
// MaxAge and then the oldest beyond the Keep newest. Every zot session shares the
// directory, so Keep is large enough that a result one session just saved outlives the
// saves of the others while its model reads it.
const (
	Keep   = 50
	MaxAge = 7 * 24 * time.Hour
)

// stampLayout is the time at the start of a file's name: names sort by it, and pruning
// reads a file's age from it, on the injected clock (not from its modification time).
const stampLayout = "20060102T150405.000000000Z"

// fileName matches the files Save writes; pruning leaves every other file alone.
var fileName = regexp.MustCompile(`^(\d{8}T\d{6}\.\d{9}Z)-[0-9a-f]{8}\.txt$`)

// Dir is the directory of saved results. Its methods are safe for concurrent use.
type Dir struct {
	path  string
	clock clock.Clock
	mu    sync.Mutex // one save (and its pruning) at a time in this process
}

// New returns the Dir under zotHome; c dates the files (nil: the system clock).
func New(zotHome string, c clock.Clock) *Dir {
	if c == nil {
		c = clock.System{}
	}
	return &Dir{path: filepath.Join(zotHome, DirName), clock: c}
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// Save writes blocks, one after the other separated by a newline, to a new file readable
// only by the user (0600, in a directory of mode 0700), prunes old files and returns the
// new file's path.
func (d *Dir) Save(blocks []string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := os.MkdirAll(d.path, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", d.path, err)
	}
	// The directory may predate this code or have been made by hand.
	if err := os.Chmod(d.path, 0o700); err != nil {
		return "", fmt.Errorf("making %s private: %w", d.path, err)
	}
	var suffix [4]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return "", err
	}
	now := d.clock.Now().UTC()
	path := filepath.Join(d.path, now.Format(stampLayout)+"-"+hex.EncodeToString(suffix[:])+".txt")
	if err := fsutil.WriteFileAtomic(path, []byte(strings.Join(blocks, "\n"))); err != nil {
		return "", fmt.Errorf("saving the result to %s: %w", path, err)
	}
	d.prune(now, filepath.Base(path))
	return path, nil
}

// prune removes the files older than MaxAge at now and the oldest beyond Keep, never
// keep (the file just written). Failures are left for the next save: another session may
// be pruning too.
func (d *Dir) prune(now time.Time, keep string) {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	var live []string
	for _, e := range entries {
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() || e.Name() == keep {
			continue
		}
		if t, err := time.Parse(stampLayout, m[1]); err == nil && now.Sub(t) > MaxAge {
			_ = os.Remove(filepath.Join(d.path, e.Name()))
			continue
		}
		live = append(live, e.Name())
	}
	slices.Sort(live)
	// keep counts as one of the Keep newest.
	for len(live) > Keep-1 {
		_ = os.Remove(filepath.Join(d.path, live[0]))
		live = live[1:]
	}
}
