package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// otherUID is a user that owns nothing on the test machine.
const otherUID = 54321

// TestCheckWriters: a file or directory another user could change is reported with the
// path and the command that fixes it; the user's own private files (and root's, which
// ssh trusts too) are fine. The conditions are made for real (chmod, chown), so the
// owner cases need root.
func TestCheckWriters(t *testing.T) {
	me := os.Getuid()
	for _, tc := range []struct {
		name      string
		dir       bool
		mode      os.FileMode
		uid, gid  int // -1: leave as created
		wantWhy   string
		wantFix   string
		ownerOnly bool
		root      bool // needs root to set up
	}{
		{name: "private file", mode: 0o600, uid: -1, gid: -1},
		{name: "readable by all", mode: 0o644, uid: -1, gid: -1},
		{name: "world-writable file", mode: 0o666, uid: -1, gid: -1, wantWhy: "writable by every user (mode 0666)", wantFix: "chmod go-w "},
		{name: "world-writable dir", dir: true, mode: 0o777, uid: -1, gid: -1, wantWhy: "writable by every user (mode 0777)", wantFix: "chmod go-w "},
		{name: "group-writable, shared group", mode: 0o660, uid: -1, gid: otherUID, wantWhy: "writable by group 54321 (mode 0660)", wantFix: "chmod go-w ", root: true},
		{name: "owned by another user", mode: 0o600, uid: otherUID, gid: -1, wantWhy: "owned by uid 54321", wantFix: "chown ", ownerOnly: true, root: true},
		{name: "another user's, world-writable", mode: 0o666, uid: otherUID, gid: -1, wantWhy: "owned by uid 54321", wantFix: "chown ", root: true},
		{name: "root's file", mode: 0o644, uid: 0, gid: 0, root: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && me != 0 {
				t.Skip("needs root to give the file to another user")
			}
			path := filepath.Join(t.TempDir(), "f")
			var err error
			if tc.dir {
				err = os.Mkdir(path, 0o700)
			} else {
				err = os.WriteFile(path, []byte("{}"), 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(path, tc.uid, tc.gid); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			err = CheckPath(path)
			var ue *UnsafeError
			if tc.wantWhy == "" {
				if err != nil {
					t.Fatalf("CheckPath = %v, want nil", err)
				}
				return
			}
			if !errors.As(err, &ue) {
				t.Fatalf("CheckPath = %v, want an *UnsafeError", err)
			}
			if ue.Path != path || !strings.Contains(ue.Why, tc.wantWhy) || !strings.Contains(ue.Fix, tc.wantFix) || !strings.Contains(ue.Fix, path) || ue.OwnerOnly != tc.ownerOnly {
				t.Errorf("got %+v, want why %q, fix %q… naming the path, ownerOnly %v", ue, tc.wantWhy, tc.wantFix, tc.ownerOnly)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), ue.Fix) {
				t.Errorf("message does not name the file and the fix: %v", err)
			}
		})
	}
	if err := CheckPath(filepath.Join(t.TempDir(), "missing")); err != nil {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadFileChecked: the check is made on the file that was read, and the data is
// returned beside the verdict.
func TestReadFileChecked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, unsafe, err := ReadFileChecked(path)
	if err != nil || unsafe != nil || string(data) != "hello" {
		t.Fatalf("private file: %q, %v, %v", data, unsafe, err)
	}
	if err := os.Chmod(path, 0o646); err != nil {
		t.Fatal(err)
	}
	data, unsafe, err = ReadFileChecked(path)
	var ue *UnsafeError
	if err != nil || !errors.As(unsafe, &ue) || string(data) != "hello" {
		t.Fatalf("world-writable file: %q, %v, %v", data, unsafe, err)
	}
	if _, _, err := ReadFileChecked(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
