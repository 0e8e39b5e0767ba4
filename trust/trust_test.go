package trust

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/zot-mcp/mcp-bridge/config"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func base() config.Server {
	return config.Server{Name: "s", Scope: config.ScopeProject, Transport: config.TransportStdio, Raw: config.Raw{
		Command: "node", Args: []string{"server.js", "--port", "1"}, Cwd: "sub",
		Env: map[string]string{"TOKEN": "${TOKEN}", "MODE": "ro"}, URL: "", Headers: map[string]string{"X-A": "${A}"},
	}}
}

// TestFingerprintFields: every field that decides what runs or where data goes changes
// the fingerprint; the rest does not.
func TestFingerprintFields(t *testing.T) {
	ref := base()
	want := Fingerprint(&ref)
	cases := []struct {
		name    string
		edit    func(s *config.Server)
		changes bool
	}{
		{"command", func(s *config.Server) { s.Raw.Command = "nodejs" }, true},
		{"args element", func(s *config.Server) { s.Raw.Args = []string{"server.js", "--port", "2"} }, true},
		{"args added", func(s *config.Server) { s.Raw.Args = append(s.Raw.Args, "-x") }, true},
		{"args split differently", func(s *config.Server) { s.Raw.Args = []string{"server.js --port", "1"} }, true},
		{"cwd", func(s *config.Server) { s.Raw.Cwd = "other" }, true},
		{"env value", func(s *config.Server) { s.Raw.Env = map[string]string{"TOKEN": "${TOKEN}", "MODE": "rw"} }, true},
		{"env reference renamed", func(s *config.Server) { s.Raw.Env = map[string]string{"TOKEN": "${HOME}", "MODE": "ro"} }, true},
		{"env entry added", func(s *config.Server) {
			s.Raw.Env = map[string]string{"TOKEN": "${TOKEN}", "MODE": "ro", "LD_PRELOAD": "/tmp/x.so"}
		}, true},
		{"url", func(s *config.Server) { s.Raw.URL = "http://127.0.0.1:1/mcp" }, true},
		{"header value", func(s *config.Server) { s.Raw.Headers = map[string]string{"X-A": "${HOME}"} }, true},
		{"header added", func(s *config.Server) { s.Raw.Headers = map[string]string{"X-A": "${A}", "X-B": "b"} }, true},
		{"transport", func(s *config.Server) { s.Transport = config.TransportSSE }, true},
		{"env policy inherit", func(s *config.Server) { s.EnvPolicy = config.EnvPolicy{Mode: config.EnvInherit} }, true},
		{"env policy passes a name", func(s *config.Server) {
			s.EnvPolicy = config.EnvPolicy{Mode: config.EnvMinimal, Pass: []string{"GITHUB_TOKEN"}}
		}, true},
		{"expanded values", func(s *config.Server) { s.Env = map[string]string{"TOKEN": "secret"}; s.Command = "/usr/bin/node" }, false},
		{"timeouts", func(s *config.Server) { s.IdleTimeout = time.Hour; s.RequestTimeout = time.Second }, false},
		{"enabled and filters", func(s *config.Server) { s.Enabled = false; s.DisabledTools = []string{"x"} }, false},
		{"name and source", func(s *config.Server) { s.Name = "t"; s.Source = "/x/.zot/mcp.json" }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := base()
			tc.edit(&s)
			got := Fingerprint(&s)
			if (got != want) != tc.changes {
				t.Fatalf("fingerprint changed = %v, want %v", got != want, tc.changes)
			}
		})
	}
	if cache := ref.Fingerprint(); cache == want {
		t.Fatal("the trust fingerprint equals the tool cache's fingerprint of the same entry")
	}
}

func TestApproveIsPerProjectAndFingerprint(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	path := DefaultPath(home)
	p1, p2 := t.TempDir(), t.TempDir()
	if err := Approve(ctx, path, p1, map[string]string{"a": "fp-a", "b": "fp-b"}, now); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("store mode %o, want 0600", st.Mode().Perm())
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		project, server, fp string
		want                bool
	}{
		{p1, "a", "fp-a", true},
		{p1, "b", "fp-b", true},
		{p1 + "/.", "a", "fp-a", true}, // the same directory spelled differently
		{p1, "a", "fp-b", false},       // another fingerprint
		{p1, "c", "fp-a", false},       // another server
		{p2, "a", "fp-a", false},       // another project
		{p1, "a", "", false},
	}
	for _, c := range checks {
		if got := f.Approved(c.project, c.server, c.fp); got != c.want {
			t.Errorf("Approved(%s, %s, %s) = %v, want %v", c.project, c.server, c.fp, got, c.want)
		}
	}
	// A symbolic link to the project shares its approvals.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(p1, link); err != nil {
		t.Fatal(err)
	}
	if !f.Approved(link, "a", "fp-a") {
		t.Error("the project reached through a symlink lost its approval")
	}
	removed, err := Revoke(ctx, path, p1, []string{"a", "zzz"})
	if err != nil || len(removed) != 1 || removed[0] != "a" {
		t.Fatalf("Revoke = %v, %v; want [a]", removed, err)
	}
	f, _ = Read(path)
	if f.Approved(p1, "a", "fp-a") || !f.Approved(p1, "b", "fp-b") {
		t.Fatalf("after revoking a: %+v", f.Projects)
	}
	if removed, err = Revoke(ctx, path, p1, nil); err != nil || len(removed) != 1 || removed[0] != "b" {
		t.Fatalf("Revoke all = %v, %v; want [b]", removed, err)
	}
	f, _ = Read(path)
	if len(f.Projects) != 0 {
		t.Fatalf("revoking everything left %+v", f.Projects)
	}
}

func TestDamagedStoreApprovesNothing(t *testing.T) {
	for _, content := range []string{"{not json", `{"version": 99, "projects": {}}`} {
		path := filepath.Join(t.TempDir(), FileName)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := Read(path)
		if err == nil || len(f.Projects) != 0 {
			t.Fatalf("%q: Read = %+v, %v; want an error and nothing approved", content, f, err)
		}
		p := t.TempDir()
		if err := Approve(context.Background(), path, p, map[string]string{"a": "fp"}, now); err != nil {
			t.Fatal(err)
		}
		if f, err := Read(path); err != nil || !f.Approved(p, "a", "fp") {
			t.Fatalf("%q: approving after damage: %+v, %v", content, f, err)
		}
	}
}

// TestConcurrentWritersLoseNothing: many writers approving different servers and projects
// at once all end up in the file.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	path := DefaultPath(t.TempDir())
	projects := []string{t.TempDir(), t.TempDir()}
	const writers = 16
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("s%02d", i)
			errs <- Approve(context.Background(), path, projects[i%2], map[string]string{name: "fp-" + name}, now)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range writers {
		name := fmt.Sprintf("s%02d", i)
		if !f.Approved(projects[i%2], name, "fp-"+name) {
			t.Errorf("approval of %s was lost", name)
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestLockWaitEndsWithContext(t *testing.T) {
	path := DefaultPath(t.TempDir())
	// Hold the lock as another process would.
	if err := Approve(context.Background(), path, t.TempDir(), map[string]string{"a": "fp"}, now); err != nil {
		t.Fatal(err)
	}
	held := newLockForTest(path)
	defer held()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Approve(ctx, path, t.TempDir(), map[string]string{"b": "fp"}, now); err == nil {
		t.Fatal("Approve succeeded while another writer held the lock and the context was done")
	}
}

// newLockForTest takes the store's lock as another writer would and returns its release.
func newLockForTest(path string) func() {
	fl := flock.New(path + ".lock")
	if ok, err := fl.TryLock(); !ok || err != nil {
		panic("cannot take the trust store lock")
	}
	return func() { _ = fl.Unlock() }
}

// TestUnsafeStoreIsRefused: like ssh with authorized_keys, approvals are taken only from a
// store no other user can write; approving does not rewrite it either (which would make
// what someone else put there the user's). Before, a world-writable store, or one owned
// by another user, was used silently.
func TestUnsafeStoreIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mode     os.FileMode
		uid      int
		wantWhy  string
		needRoot bool
	}{
		{"world-writable", 0o666, -1, "writable by every user (mode 0666)", false},
		{"owned by another user", 0o600, 54321, "owned by uid 54321", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needRoot && os.Getuid() != 0 {
				t.Skip("needs root to give the file to another user")
			}
			ctx := context.Background()
			path := DefaultPath(t.TempDir())
			proj := t.TempDir()
			if err := Approve(ctx, path, proj, map[string]string{"a": "fp-a"}, now); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(path, tc.uid, -1); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			f, err := Read(path)
			var ue *UnsafeError
			if !errors.As(err, &ue) || f.Approved(proj, "a", "fp-a") {
				t.Fatalf("Read: approved=%v err=%v, want nothing approved and an *UnsafeError", f.Approved(proj, "a", "fp-a"), err)
			}
			for _, want := range []string{path, tc.wantWhy, "its approvals are not used"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Read's error does not say %q: %v", want, err)
				}
			}
			if tc.uid < 0 && !strings.Contains(err.Error(), "chmod go-w "+path) {
				t.Errorf("Read's error does not give the fix: %v", err)
			}
			if err := Approve(ctx, path, proj, map[string]string{"b": "fp-b"}, now); !errors.As(err, &ue) {
				t.Errorf("Approve into the unsafe store: %v, want an *UnsafeError", err)
			}
			if _, err := Revoke(ctx, path, proj, nil); !errors.As(err, &ue) {
				t.Errorf("Revoke in the unsafe store: %v, want an *UnsafeError", err)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Errorf("the unsafe store was rewritten")
			}
			// Fixed as the message says, it is used again.
			if err := os.Chown(path, os.Getuid(), -1); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o600); err != nil {
				t.Fatal(err)
			}
			if f, err := Read(path); err != nil || !f.Approved(proj, "a", "fp-a") {
				t.Errorf("after the fix: approved=%v err=%v", f.Approved(proj, "a", "fp-a"), err)
			}
		})
	}
}
