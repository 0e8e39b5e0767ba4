package main

import (
	"context"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zot-mcp/mcp-bridge/testkit/fakeoauth"
)

// waitFile waits for a file to be written (bounded by the hang guard) and returns it.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliGuard)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if data, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(data), "\n") {
			return strings.TrimSpace(string(data))
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s was never written", path)
		case <-tick.C:
		}
	}
}

// login and logout from the terminal run the /mcp login flow against the fake OAuth
// server over HTTPS: the URL is printed and handed to $BROWSER (here a script that writes
// it to a file; the test then plays the user's browser), the credentials are stored, the
// server works with them, and logout removes them. Hints name CLI commands.
func TestCLILoginLogout(t *testing.T) {
	t.Parallel()
	f := fakeoauth.New(t, true)
	dir := t.TempDir()
	certFile := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.Srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	urlFile := filepath.Join(dir, "opened-url")
	browser := filepath.Join(dir, "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" > '"+urlFile+"'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	e := newCLIEnv(t, "SSL_CERT_FILE="+certFile, "BROWSER="+browser)
	srvURL := f.Srv.URL + "/mcp"
	e.writeConfig(e.globalPath(), map[string]any{"secure": map[string]any{"url": srvURL, "transport": "streamable-http"}})

	// Before the login: the failure names the CLI command, not /mcp.
	r := e.run("call", "secure", "echo", `{"text":"hi"}`)
	expectCode(t, r, 1, "call before login")
	if !strings.Contains(r.stdout, "mcp-bridge login secure") || strings.Contains(r.all(), "/mcp login") {
		t.Errorf("call before login:\n%s", r.all())
	}

	lines, wait := e.startLines("login", "secure")
	printed := ""
	for l := range lines {
		if u, ok := strings.CutPrefix(strings.TrimSpace(l), f.Srv.URL+"/authorize?"); ok {
			printed = f.Srv.URL + "/authorize?" + u
			break
		}
	}
	opened := waitFile(t, urlFile)
	if printed == "" || opened != printed {
		t.Fatalf("the printed URL %q is not the one $BROWSER got (%q)", printed, opened)
	}
	// The user approves in the browser: the fake authorizes and redirects to the callback.
	resp, err := f.Srv.Client().Get(opened)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Authorization received") {
		t.Fatalf("callback answered %d %q", resp.StatusCode, body)
	}
	r = wait()
	expectCode(t, r, 0, "login")
	if !strings.Contains(r.stderr, `Logged in to MCP server "secure"`) || strings.Contains(r.all(), "/mcp login") {
		t.Fatalf("login output:\n%s", r.all())
	}
	noLogLines(t, "login", r)
	for _, secret := range f.Snapshot().Issued {
		if strings.Contains(r.all(), secret) {
			t.Fatal("login printed a token, code or verifier")
		}
	}
	credDir := filepath.Join(e.home, "mcp-oauth")
	if ents, err := os.ReadDir(credDir); err != nil || len(ents) == 0 {
		t.Fatalf("no credentials stored in %s: %v", credDir, err)
	}

	r = e.run("get", "secure")
	expectCode(t, r, 0, "get after login")
	if !strings.Contains(r.stdout, "oauth:      logged in (credentials stored; mcp-bridge logout secure forgets them)") {
		t.Errorf("get after login:\n%s", r.stdout)
	}
	r = e.run("call", "secure", "echo", `{"text":"hi"}`)
	expectCode(t, r, 0, "call after login")
	if strings.TrimSpace(r.stdout) != "hi" {
		t.Errorf("call after login printed %q", r.stdout)
	}

	r = e.run("logout", "secure")
	expectCode(t, r, 0, "logout")
	if !strings.Contains(r.stdout, "Logged out of secure") {
		t.Errorf("logout: %s", r.all())
	}
	if ents, _ := os.ReadDir(credDir); len(ents) != 0 {
		var names []string
		for _, x := range ents {
			if !strings.HasSuffix(x.Name(), ".lock") {
				names = append(names, x.Name())
			}
		}
		if len(names) != 0 {
			t.Errorf("credentials left after logout: %v", names)
		}
	}
	r = e.run("logout", "secure")
	expectCode(t, r, 0, "logout again")
	if !strings.Contains(r.stdout, "No stored OAuth credentials") {
		t.Errorf("second logout: %s", r.all())
	}
	r = e.run("login", "nosuch")
	expectCode(t, r, 1, "login of an unknown server")
	if !strings.Contains(r.stderr, `unknown server "nosuch"`) {
		t.Errorf("login nosuch: %s", r.all())
	}
}
