package fsutil

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/zot-mcp/mcp-bridge/internal/shellquote"
)

// UnsafeError says that a user other than the current one (and root) could change a file:
// what the bridge read from it could have been written by someone else. Like ssh, the
// bridge does not take approvals or configuration from such a file.
type UnsafeError struct {
	// Path is the file (or directory) concerned.
	Path string
	// Why says who else can change it: "writable by every user (mode 0666)",
	// "writable by group 20 (mode 0664)", "owned by uid 1000".
	Why string
	// Fix is the command that makes the file the user's own, e.g. "chmod go-w <path>".
	Fix string
	// OwnerOnly is set when the mode is fine and only the owner is another user.
	OwnerOnly bool
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("%s is %s, so another user could change it; fix: %s", e.Path, e.Why, e.Fix)
}

// CheckWriters reports, as an *UnsafeError, whether a user other than the current one and
// root could change the file or directory at path that fi describes (as os.Stat or
// File.Stat gave it): it is owned by another user, writable by every user, or writable by
// a group that is not the owner's own (the group of the owner's name that is the owner's
// primary group). Root-owned files are fine, as for ssh. It is nil on systems without
// Unix owners.
func CheckWriters(path string, fi fs.FileInfo) error {
	uid, gid, ok := owner(fi)
	if !ok {
		return nil
	}
	mode := fi.Mode().Perm()
	switch me := os.Getuid(); {
	case uid != me && uid != 0:
		fix := "chown " + userName(me) + " " + shellquote.Quote(path)
		if me != 0 {
			fix = "sudo " + fix
		}
		e := &UnsafeError{Path: path, Why: fmt.Sprintf("owned by uid %d, not by you (uid %d)", uid, me), Fix: fix}
		if mode&0o022 == 0 {
			e.OwnerOnly = true
		}
		return e
	case mode&0o002 != 0:
		return &UnsafeError{Path: path, Why: fmt.Sprintf("writable by every user (mode %04o)", mode), Fix: "chmod go-w " + shellquote.Quote(path)}
	case mode&0o020 != 0 && !privateGroup(uid, gid):
		return &UnsafeError{Path: path, Why: fmt.Sprintf("writable by group %s (mode %04o)", groupName(gid), mode), Fix: "chmod go-w " + shellquote.Quote(path)}
	}
	return nil
}

// CheckPath is CheckWriters for the file or directory at path, following links; nil when
// path does not exist or cannot be examined (reading it reports that).
func CheckPath(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	return CheckWriters(path, fi)
}

// ReadFileChecked reads the file at path like os.ReadFile and checks, on the file it
// opened (so the answer is about the bytes it read), who could change it: unsafe is
// CheckWriters' answer. err is the error of opening or reading (fs.ErrNotExist when path
// does not exist); data is the file's content whenever err is nil.
func ReadFileChecked(path string) (data []byte, unsafe, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err = io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	return data, CheckWriters(path, fi), nil
}
