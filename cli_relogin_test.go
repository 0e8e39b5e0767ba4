package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/testkit/fakeoauth"
)

// testBrowser plays the user's browser for every login of a test: $BROWSER is a script
// that appends the URL it is given to a file, and the test approves each URL that
// appears there by requesting it (the fake authorizes at once and redirects to the
// bridge's loopback callback).
type testBrowser struct {
	t      *testing.T
	script string
	urls   string

	mu     sync.Mutex
	opened []string
	errs   []string
}

// newTestBrowser starts the browser; it stops when the test ends.
func newTestBrowser(t *testing.T) *testBrowser {
	dir := t.TempDir()
	b := &testBrowser{t: t, script: filepath.Join(dir, "browser"), urls: filepath.Join(dir, "opened-urls")}
	if err := os.WriteFile(b.script, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '"+b.urls+"'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go b.loop(ctx, done)
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return b
}

// loop approves each new complete line of the URL file, until ctx ends.
func (b *testBrowser) loop(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	seen := 0
	client := &http.Client{}
	for {
		if data, err := os.ReadFile(b.urls); err == nil {
			lines := strings.Split(string(data), "\n")
			for ; seen < len(lines)-1; seen++ { // the last element follows the final newline
				b.approve(ctx, client, lines[seen])
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (b *testBrowser) approve(ctx context.Context, client *http.Client, u string) {
	b.mu.Lock()
	b.opened = append(b.opened, u)
	b.mu.Unlock()
	fail := func(why string) {
		b.mu.Lock()
		b.errs = append(b.errs, why)
		b.mu.Unlock()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		fail(err.Error())
		return
	}
	resp, err := client.Do(req)
	if err != nil {
		fail(err.Error())
		return
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Authorization received") {
		fail(u + ": " + resp.Status + " " + string(body))
	}
}

// Opened is every URL the browser was given so far; the test fails on any it could not
// approve.
func (b *testBrowser) Opened() []string {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errs {
		b.t.Errorf("the browser could not approve a login: %s", e)
	}
	return append([]string(nil), b.opened...)
}

// A server that moves to another authorization server refuses the token of the first one
// (401) and names the new one in its protected-resource metadata. Without a terminal or
// --login the call says to log in; with --login it logs in again, which registers anew
// at the new authorization server (the old client is never shown there), and calls again.
// refresh --login does the same (issue 22 item 6, auth/authorization-server-migration).
func TestCLILoginAgainWhenAuthServerMoves(t *testing.T) {
	t.Parallel()
	rs := fakeoauth.New(t, false)
	as2 := fakeoauth.New(t, false)
	as2.Resource = rs.Srv.URL + "/mcp"
	as3 := fakeoauth.New(t, false)
	as3.Resource = rs.Srv.URL + "/mcp"
	br := newTestBrowser(t)
	e := newCLIEnv(t, "BROWSER="+br.script)
	e.writeConfig(e.globalPath(), map[string]any{"moving": map[string]any{"url": rs.Srv.URL + "/mcp"}})

	expectCode(t, e.run("login", "moving"), 0, "login")
	r := e.run("call", "moving", "echo", `{"text":"hi"}`)
	expectCode(t, r, 0, "call after login")
	if strings.TrimSpace(r.stdout) != "hi" {
		t.Fatalf("call after login printed %q", r.stdout)
	}
	firstClient := rs.Snapshot().Registered
	if len(firstClient) != 1 {
		t.Fatalf("the first login registered %d clients, want 1", len(firstClient))
	}

	rs.MigrateTo(as2)
	r = e.run("call", "moving", "echo", `{"text":"hi"}`)
	expectCode(t, r, 1, "call after the move, without --login")
	if !strings.Contains(r.all(), "mcp-bridge login moving") {
		t.Errorf("the call after the move does not say to log in:\n%s", r.all())
	}
	if n := len(br.Opened()); n != 1 {
		t.Errorf("a call without --login (and no terminal) opened the browser: %d logins, want 1", n)
	}

	r = e.run("call", "moving", "echo", `{"text":"hi"}`, "--login")
	expectCode(t, r, 0, "call --login after the move")
	if strings.TrimSpace(r.stdout) != "hi" || !strings.Contains(r.stderr, "logging in (1 of at most 2)") {
		t.Errorf("call --login after the move:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	st2 := as2.Snapshot()
	if len(st2.Registered) != 1 || st2.Authorizes != 1 || len(st2.Refused) != 0 {
		t.Errorf("the new authorization server saw %d registrations, %d authorizations, refusals %q; want one registration and one authorization, none refused",
			len(st2.Registered), st2.Authorizes, st2.Refused)
	}
	if st1 := rs.Snapshot(); st1.Authorizes != 1 {
		t.Errorf("the old authorization server saw %d authorizations, want only the first login's", st1.Authorizes)
	}

	// refresh --login: the same on the next move.
	rs.MigrateTo(as3)
	r = e.run("refresh", "--server", "moving", "--login")
	expectCode(t, r, 0, "refresh --login after the second move")
	if !strings.Contains(r.stdout, "moving") || !strings.Contains(r.stdout, "ok: 1 tool") {
		t.Errorf("refresh --login after the second move:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	if st3 := as3.Snapshot(); len(st3.Registered) != 1 || st3.Authorizes != 1 {
		t.Errorf("the third authorization server saw %d registrations, %d authorizations; want one each", len(st3.Registered), st3.Authorizes)
	}
	if n := len(br.Opened()); n != 3 {
		t.Errorf("%d logins opened the browser, want 3", n)
	}
}

// A server that answers every token with 403 insufficient_scope, whatever the login
// granted: call --login logs in again asking for the scopes it had plus the new one, at
// most twice, then stops and says so (issue 22 item 6, the step-up's retry limit).
func TestCLICallLoginRetryLimit(t *testing.T) {
	t.Parallel()
	f := fakeoauth.New(t, false)
	br := newTestBrowser(t)
	e := newCLIEnv(t, "BROWSER="+br.script)
	e.writeConfig(e.globalPath(), map[string]any{"greedy": map[string]any{"url": f.Srv.URL + "/mcp"}})
	expectCode(t, e.run("login", "greedy"), 0, "login")

	f.StepUp("admin")
	r := e.run("call", "greedy", "echo", `{"text":"hi"}`, "--login")
	expectCode(t, r, 1, "call --login of a server that keeps asking for scope")
	if !strings.Contains(r.stderr, "logging in (2 of at most 2)") || strings.Contains(r.stderr, "(3 of") ||
		!strings.Contains(r.stderr, `still asks for a login after 2 logins`) {
		t.Errorf("call --login's messages:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "insufficient_scope") {
		t.Errorf("the call's result does not say why it failed:\n%s", r.stdout)
	}
	st := f.Snapshot()
	if st.Authorizes != 3 || len(br.Opened()) != 3 {
		t.Fatalf("%d authorizations (%d browser opens), want 3: the first login and two more", st.Authorizes, len(br.Opened()))
	}
	// The first login asked for no scope (the server names none); each later one for the
	// step-up's.
	if st.Scopes[0] != "" || st.Scopes[1] != "admin" || st.Scopes[2] != "admin" {
		t.Errorf("the logins asked for the scopes %q, want none, then admin twice", st.Scopes)
	}
}
