//go:build unix

package fsutil

import (
	"io/fs"
	"os/user"
	"strconv"
	"syscall"
)

// owner returns the file's owning user and group.
func owner(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// privateGroup reports whether gid is the user-private group of uid: the user's primary
// group, named like the user (the convention of systems whose umask lets the group
// write). Nobody else is meant to be in it; a shared group (staff, users) is not private.
func privateGroup(uid, gid int) bool {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil || u.Gid != strconv.Itoa(gid) {
		return false
	}
	g, err := user.LookupGroupId(u.Gid)
	return err == nil && g.Name == u.Username
}

// userName is the name of the user uid for a command line, or the number.
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return u.Username
	}
	return strconv.Itoa(uid)
}

// groupName is the name of the group gid for a message, or its number.
func groupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil && g.Name != "" {
		return g.Name
	}
	return strconv.Itoa(gid)
}
