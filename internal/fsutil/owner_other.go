//go:build !unix

package fsutil

import (
	"io/fs"
	"strconv"
)

// owner reports no owner: these systems have no Unix owners and modes to check.
func owner(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

func privateGroup(uid, gid int) bool { return false }

func userName(uid int) string { return strconv.Itoa(uid) }

func groupName(gid int) string { return strconv.Itoa(gid) }
