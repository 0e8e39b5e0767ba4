// Package fsutil holds the file operations the cache, the config writer, the trust store
// and the OAuth credential store share: replacing a file atomically with private
// permissions (or through a symbolic link), waiting for a cross-process lock, and telling
// whether a user other than the current one could change a file.
package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces the file at path with data: it creates missing parent
// directories (0700), writes a temporary file in the same directory with mode 0600, syncs
// it, renames it over path and syncs the directory. Readers see the old or the new file,
// never a mix; a failure leaves no temporary file behind. A symbolic link at path is
// replaced by the new file (see ReplaceFile for writing through it).
func WriteFileAtomic(path string, data []byte) error {
	return writeAtomic(path, data, 0o600)
}

// ReplaceFile replaces the contents of the file at path atomically, as WriteFileAtomic
// does, but a symbolic link at path stays a link: its final target is replaced (the
// temporary file is written beside the target) and keeps the target's permission bits, so
// a config file linked from a dotfiles repository stays in that repository. A regular or
// missing file at path is written as WriteFileAtomic writes it (0600). When the target
// exists it must be a regular file.
func ReplaceFile(path string, data []byte) error {
	target, linked, err := ResolveLinks(path)
	if err != nil {
		return err
	}
	if !linked {
		return writeAtomic(path, data, 0o600)
	}
	perm := fs.FileMode(0o600)
	switch fi, err := os.Stat(target); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s links to %s, which is not a regular file; nothing was written", path, target)
	default:
		perm = fi.Mode().Perm()
	}
	return writeAtomic(target, data, perm)
}

// maxLinks bounds how many symbolic links ResolveLinks follows (as the kernel does).
const maxLinks = 40

// ResolveLinks follows the symbolic links at path to the file they end at and reports
// whether path was a link. The target need not exist (a dangling link resolves to the
// path it names); the directories on the way must. A path that is not a link is returned
// as it is.
func ResolveLinks(path string) (target string, linked bool, err error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			return path, linked, nil
		}
		if err != nil {
			return "", false, err
		}
		// The directory is resolved first so that a relative target's ".." is taken from
		// where the link really is, not from the spelling of the path.
		dir, err := filepath.EvalSymlinks(filepath.Dir(path))
		if err != nil {
			return "", false, err
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(dir, dest)
		}
		path, linked = dest, true
	}
	return "", false, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// writeAtomic replaces the file at path with data in a new file of mode perm (see
// WriteFileAtomic).
func writeAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmpName)
		}
	}()
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", tmpName, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", tmpName, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", tmpName, err)
	}
	if err = os.Rename(tmpName, path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
