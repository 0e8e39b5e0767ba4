package cache

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/zot-mcp/mcp-bridge/internal/fsutil"
	"github.com/zot-mcp/mcp-bridge/internal/textcut"
)

// Update merges entries into the cache file at path and reports the servers
// whose tool set changed: UpdatePrev for a caller outside any project, so every
// entry of put must be shared (no Project).
func Update(ctx context.Context, path string, put map[string]*Server, drop []string, now func() time.Time) (changed []string, err error) {
	changed, _, err = UpdatePrev(ctx, path, "", put, drop, now)
	return changed, err
}

// UpdatePrev merges entries into the cache file at path for a session in project
// (its key; "" outside any project) and reports the servers whose tool set changed
// in that session's view (File.View), with the entries they had in it.
//
// Under an exclusive lock on path+".lock" (shared by every process using this
// package), UpdatePrev re-reads the current file (a missing, corrupt or
// unknown-version file counts as empty), sets or replaces the entries in put,
// then deletes the names in drop (a name in both is deleted; a nil entry in
// put is ignored), and keeps every other entry as it is: servers of other
// projects and servers that failed to refresh this time survive. An entry of put
// whose Project is set is a private listing: it is stored among project's
// entries (its Project must be project) and leaves the shared entry of its name
// alone, as other projects may use that one. Any other entry is shared, and
// replaces project's private listing of its name as well, so the session's view
// holds the entry put. A dropped name loses both.
//
// Entries in put are stored as copies: tools sorted by Name, input schemas
// normalized (NormalizeSchema), output schemas compacted (dropped if
// invalid), instructions cut to MaxInstructionsBytes, a zero UpdatedAt set to
// now() (the caller's clock). An entry that equals the stored one in everything but UpdatedAt leaves
// the stored one (and its UpdatedAt) in place.
//
// The file is written only when the result differs from what was on disk,
// atomically (temporary file in the same directory, fsync, rename) with mode
// 0600, creating parent directories with mode 0700.
//
// changed lists, sorted, the servers that were added or dropped, or whose
// fingerprint, transport, instructions or tools changed (see SameTools),
// compared with the session's view of the file as read under the lock; a change of
// ServerName, Protocol or of where the entry is kept alone rewrites the file but does
// not count. prev holds the entries the changed servers had in that view (none for a
// server that was added), so that a caller can say what changed without a read of its
// own that another process could outrun. changed is nil when the update fails.
//
// Waiting for the lock honours ctx; once the lock is held the update runs to
// completion.
func UpdatePrev(ctx context.Context, path, project string, put map[string]*Server, drop []string, now func() time.Time) (changed []string, prev map[string]*Server, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for name, e := range put {
		if e != nil && e.Project != "" && e.Project != project {
			return nil, nil, fmt.Errorf("tool cache: the private listing of %q belongs to another project than the session's", name)
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("tool cache: %w", err)
	}
	unlock, err := lock(ctx, path+".lock")
	if err != nil {
		return nil, nil, err
	}
	defer unlock()

	cur, rewrite, err := readForUpdate(path)
	if err != nil {
		return nil, nil, err
	}
	read := maps.Clone(cur.View(project)) // the session's entries as read, for prev
	own := cur.Projects[project]          // project's private listings (nil: none)
	prev = map[string]*Server{}
	stamp := now().UTC()
	for name, e := range put {
		if e == nil {
			continue
		}
		ne := prepareEntry(e, stamp)
		old := read[name]
		if ne.Project != "" {
			if own == nil {
				own = map[string]*Server{}
				if cur.Projects == nil {
					cur.Projects = map[string]map[string]*Server{}
				}
				cur.Projects[project] = own
			}
			if stored := own[name]; stored != nil && sameEntry(stored, ne) {
				continue
			}
			own[name] = ne
		} else {
			_, shadowed := own[name]
			if stored := cur.Servers[name]; stored != nil && sameEntry(stored, ne) && !shadowed {
				continue
			}
			delete(own, name)
			cur.Servers[name] = ne
		}
		rewrite = true
		if !SameTools(old, ne) {
			changed = append(changed, name)
			if old != nil {
				prev[name] = old
			}
		}
	}
	for _, name := range drop {
		_, shared := cur.Servers[name]
		_, private := own[name]
		if !shared && !private {
			continue
		}
		if old := read[name]; old != nil {
			prev[name] = old
		}
		delete(cur.Servers, name)
		delete(own, name)
		changed = append(changed, name)
		rewrite = true
	}
	if own != nil && len(own) == 0 {
		delete(cur.Projects, project)
	}
	slices.Sort(changed)
	changed = slices.Compact(changed)
	if !rewrite {
		return changed, prev, nil
	}
	data, err := encodeFile(cur)
	if err != nil {
		return nil, nil, fmt.Errorf("tool cache: encoding %s: %w", path, err)
	}
	if err := writeAtomic(path, data); err != nil {
		return nil, nil, err
	}
	return changed, prev, nil
}

// lock takes the exclusive cross-process lock at lockPath, waiting until it
// is acquired or ctx ends, and returns the function that releases it.
func lock(ctx context.Context, lockPath string) (unlock func(), err error) {
	unlock, err = fsutil.Lock(ctx, lockPath)
	if err != nil {
		return nil, fmt.Errorf("tool cache: waiting for lock %s: %w", lockPath, err)
	}
	return unlock, nil
}

// readForUpdate reads the file at path for Update. rewrite is true when the
// file exists but cannot be used as it is (corrupt or unknown version), so
// that Update replaces it even if nothing else changes. Errors other than
// "does not exist" from reading the file are returned: overwriting a file we
// could not read would lose entries.
func readForUpdate(path string) (f *File, rewrite bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return newFile(), false, nil
		}
		return nil, false, fmt.Errorf("tool cache: %w", err)
	}
	f, err = decodeFile(data)
	if err != nil {
		return newFile(), true, nil
	}
	return f, false, nil
}

// prepareEntry returns the copy of e that Update stores.
func prepareEntry(e *Server, now time.Time) *Server {
	ne := *e
	ne.Instructions = textcut.Prefix(e.Instructions, MaxInstructionsBytes)
	if ne.UpdatedAt.IsZero() {
		ne.UpdatedAt = now
	} else {
		ne.UpdatedAt = ne.UpdatedAt.UTC()
	}
	ne.Tools = make([]Tool, len(e.Tools))
	for i, t := range e.Tools {
		t.InputSchema = NormalizeSchema(t.InputSchema)
		t.OutputSchema = compactOrNil(t.OutputSchema)
		if t.Annotations != nil {
			a := *t.Annotations
			t.Annotations = &a
		}
		ne.Tools[i] = t
	}
	slices.SortStableFunc(ne.Tools, func(a, b Tool) int { return cmp.Compare(a.Name, b.Name) })
	return &ne
}

// compactOrNil returns raw compacted, or nil if raw is empty, null or invalid.
func compactOrNil(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil || b.String() == "null" {
		return nil
	}
	return json.RawMessage(b.Bytes())
}

// writeAtomic replaces the cache file atomically (see fsutil.WriteFileAtomic).
func writeAtomic(path string, data []byte) error {
	if err := fsutil.WriteFileAtomic(path, data); err != nil {
		return fmt.Errorf("tool cache: %w", err)
	}
	return nil
}
