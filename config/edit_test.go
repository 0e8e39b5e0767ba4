package config

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestAddServerConcurrent: many AddServer calls on one file at once all land. Before,
// two `mcp-bridge add` started together lost entries while both said "Added": each read
// the file, patched its copy and renamed it over the other's.
func TestAddServerConcurrent(t *testing.T) {
	for _, start := range []string{"", `{"mcpServers": {"keep": {"command": "k"}}}`} {
		dir := t.TempDir()
		path := filepath.Join(dir, "mcp.json")
		want := []string{}
		if start != "" {
			if err := os.WriteFile(path, []byte(start), 0o600); err != nil {
				t.Fatal(err)
			}
			want = append(want, "keep")
		}
		const n = 40
		var wg sync.WaitGroup
		begin := make(chan struct{})
		errs := make(chan error, n)
		for i := range n {
			name := fmt.Sprintf("s%02d", i)
			want = append(want, name)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-begin
				_, err := AddServer(context.Background(), path, name, json.RawMessage(`{"command":"x"}`), false)
				errs <- err
			}()
		}
		close(begin)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		slices.Sort(want)
		if got := names(loadFile(t, path, nil)); !reflect.DeepEqual(got, want) {
			t.Fatalf("start %q: %d of %d servers in the file, lost: %v", start, len(got), len(want), missing(want, got))
		}
		// And removing them all at once leaves exactly what was not removed.
		begin = make(chan struct{})
		for _, name := range want {
			if name == "keep" {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-begin
				if _, err := RemoveServer(context.Background(), path, name); err != nil {
					t.Error(err)
				}
			}()
		}
		close(begin)
		wg.Wait()
		left := names(loadFile(t, path, nil))
		if start == "" && len(left) != 0 || start != "" && !reflect.DeepEqual(left, []string{"keep"}) {
			t.Errorf("after removing concurrently: %v", left)
		}
	}
}

// missing lists the names of want that are not in got.
func missing(want, got []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			out = append(out, w)
		}
	}
	return out
}

// TestEditThroughSymlink: a global mcp.json that links into a dotfiles repository stays
// a link through add and remove; the target gets the edit and keeps its mode. Before, add
// replaced the link with a regular 0600 file and the dotfile stopped being the config.
func TestEditThroughSymlink(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "dotfiles", "zot", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("{\n  // mine\n  \"mcpServers\": {\"a\": {\"command\": \"x\"}}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "zothome")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	link := GlobalPath(home)
	if err := os.Symlink(filepath.Join("..", "dotfiles", "zot", "mcp.json"), link); err != nil {
		t.Fatal(err)
	}
	check := func(step string, want []string) {
		t.Helper()
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s: %s is no longer a link (%v, %v)", step, link, fi.Mode(), err)
		}
		fi, err := os.Stat(target)
		if err != nil || fi.Mode().Perm() != 0o644 {
			t.Fatalf("%s: target mode %v (%v), want 0644 as it was", step, fi.Mode(), err)
		}
		if got := names(loadFile(t, link, nil)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: servers %v, want %v", step, got, want)
		}
		if !strings.Contains(readString(t, target), "// mine") {
			t.Errorf("%s: the comment in the target is gone", step)
		}
	}
	if _, err := AddServer(context.Background(), link, "b", json.RawMessage(`{"command":"y"}`), false); err != nil {
		t.Fatal(err)
	}
	check("add", []string{"a", "b"})
	if _, err := RemoveServer(context.Background(), link, "a"); err != nil {
		t.Fatal(err)
	}
	check("remove", []string{"b"})
}

// otherUID is a user that owns nothing on the test machine.
const otherUID = 54321

// TestUnsafeConfigFiles: like ssh, a config file another user could write is not read
// (the problem names the file and the command that fixes it) and not edited; before, the
// bridge used a world-writable mcp.json silently. A project file that is only owned by
// someone else is read with a warning: its servers still need the user's approval.
func TestUnsafeConfigFiles(t *testing.T) {
	const content = `{"mcpServers": {"a": {"command": "x"}}}`
	for _, tc := range []struct {
		name    string
		project bool
		mode    os.FileMode
		uid     int // -1: the test's own
		refused bool
		want    string
	}{
		{name: "global 0666", mode: 0o666, uid: -1, refused: true, want: "writable by every user (mode 0666)"},
		{name: "global 0620, another group", mode: 0o620, uid: -1, refused: true, want: "writable by group"},
		{name: "global owned by another user", mode: 0o600, uid: otherUID, refused: true, want: "owned by uid 54321"},
		{name: "project 0666", project: true, mode: 0o666, uid: -1, refused: true, want: "writable by every user"},
		{name: "project owned by another user", project: true, mode: 0o644, uid: otherUID, want: "owned by uid 54321"},
		{name: "global 0644", mode: 0o644, uid: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if os.Getuid() != 0 && (tc.uid >= 0 || strings.Contains(tc.name, "group")) {
				t.Skip("needs root to give the file to another user or group")
			}
			root := t.TempDir()
			home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
			path := GlobalPath(home)
			if tc.project {
				path = ProjectPath(proj)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			gid := -1
			if strings.Contains(tc.name, "group") {
				gid = otherUID
			}
			if err := os.Chown(path, tc.uid, gid); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			c := Load(Options{ZotHome: home, ProjectDir: proj, LookupEnv: fakeEnv(nil)})
			var status FileStatus
			for _, f := range c.Files {
				if f.Path == path {
					status = f
				}
			}
			_, loaded := c.Server("a")
			text := strings.Join(problemStrings(c), "\n")
			switch {
			case tc.refused && (loaded || !strings.Contains(status.Err, tc.want) || !strings.Contains(status.Err, "chmod go-w ") && !strings.Contains(status.Err, "chown ")):
				t.Errorf("not refused as it should be: loaded=%v status=%q", loaded, status.Err)
			case tc.refused && !strings.Contains(text, path):
				t.Errorf("no problem names the file: %s", text)
			case !tc.refused && (!loaded || status.Err != ""):
				t.Errorf("refused: loaded=%v status=%q", loaded, status.Err)
			case !tc.refused && tc.want != "" && !strings.Contains(text, "warning: "+path+": "+tc.want):
				t.Errorf("no warning %q: %s", tc.want, text)
			case !tc.refused && tc.want == "" && text != "":
				t.Errorf("problems for a private file: %s", text)
			}
			_, err := AddServer(context.Background(), path, "b", json.RawMessage(`{"command":"y"}`), false)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("add to a private file: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("add to the file: %v, want a refusal naming it", err)
			}
			if got := readString(t, path); got != content {
				t.Errorf("the file was changed: %s", got)
			}
		})
	}
}
