package cache

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// SetProtocol records, under Update's lock, the MCP revision a server spoke (protocol)
// and the key of what decided it (key) in the server's existing entry as a session in
// project sees it (File.View), keeping the rest
// of the entry (and its UpdatedAt) as it is. It is how a revision learned by a start that
// listed nothing reaches the next process. A server without an entry is left alone: its
// first listing writes the entry, revision included. The file is rewritten only when the
// entry changes.
func SetProtocol(ctx context.Context, path, project, name, protocol, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("tool cache: %w", err)
	}
	unlock, err := lock(ctx, path+".lock")
	if err != nil {
		return err
	}
	defer unlock()
	cur, _, err := readForUpdate(path)
	if err != nil {
		return err
	}
	e := cur.View(project)[name]
	if e == nil || (e.Protocol == protocol && e.ProtocolKey == key) {
		return nil
	}
	// The version read, under the lock: the one the startup file may have been made from.
	before, stampErr := StampOf(path)
	e.Protocol, e.ProtocolKey = protocol, key
	data, err := encodeFile(cur)
	if err != nil {
		return fmt.Errorf("tool cache: encoding %s: %w", path, err)
	}
	if err := writeAtomic(path, data); err != nil {
		return err
	}
	// Nothing the startup file's payloads are made from changed: it follows the cache to
	// its new version, so the next start does not decode the whole cache. It is derived
	// data: when this fails, the next start decodes the cache and rewrites it.
	if after, err := StampOf(path); err == nil && stampErr == nil {
		_ = restampStartup(FramesPath(path), before, after)
	}
	return nil
}
