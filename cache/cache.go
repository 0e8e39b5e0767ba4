// Package cache stores the catalog of MCP tools that the bridge has seen, so
// that at startup every known tool can be registered with the host without
// starting any MCP server.
//
// The catalog lives in one JSON file, shared by every zot session and every
// project on the machine (see DefaultPath). Each configured server has a
// Server entry keyed by its configured name; an entry carries the fingerprint of the
// server configuration it was built from, so a session only trusts entries
// whose fingerprint matches its own configuration. A project server's listing
// that the server marked private (cacheScope "private") is kept apart, under
// the project it was listed for, and only a session in that project sees it
// (File.View).
//
// Read is on the startup path and is built to be fast: tool schemas stay
// json.RawMessage and are never decoded into maps. Update merges new entries
// into the file under a cross-process lock and rewrites it atomically only
// when something actually changed.
package cache

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"time"
)

// Version is the version of the cache file format written by this package.
// A file with any other version is ignored by Read.
const Version = 1

// FileName is the base name of the cache file inside the zot home directory.
const FileName = "mcp-tools-cache.json"

// MaxInstructionsBytes is the largest MCP initialize "instructions" text kept
// in a Server. Update truncates longer text (at a UTF-8 boundary).
const MaxInstructionsBytes = 2000

// DefaultPath returns the path of the cache file inside zotHome.
func DefaultPath(zotHome string) string {
	return filepath.Join(zotHome, FileName)
}

// Annotations are the MCP tool annotations (behaviour hints) of a tool.
// A nil hint means the server did not say.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Tool is one MCP tool as listed by its server.
type Tool struct {
	// Name is the MCP tool name as the server gives it.
	Name string `json:"name"`
	// Title is the human-readable title, if the server gave one.
	Title string `json:"title,omitempty"`
	// Description is the tool description as the server gives it.
	Description string `json:"description,omitempty"`
	// InputSchema is the compact, normalized input schema (see NormalizeSchema).
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the compact output schema, if the server gave one.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are the tool's hints, if the server gave any.
	Annotations *Annotations `json:"annotations,omitempty"`
}

// Server is what the cache knows about one configured server: its tools, resources and prompts
// as it listed them last, and what its initialize said.
type Server struct {
	// Fingerprint identifies the server configuration the entry was built from.
	Fingerprint string `json:"fingerprint"`
	// Transport is the transport that worked last (for url-only servers).
	Transport string `json:"transport,omitempty"`
	// Protocol is the MCP revision the server spoke last ("2026-07-28", "2025-11-25"),
	// and ProtocolKey the key of what decides it (config.Server.ProtocolKey): while the
	// key matches, the next connection speaks that revision first (session.Era.Known).
	// Unlike Transport, neither counts as a change of the tools.
	Protocol    string `json:"protocol,omitempty"`
	ProtocolKey string `json:"protocolKey,omitempty"`
	// ServerName is the serverInfo.name the server reported.
	ServerName string `json:"serverName,omitempty"`
	// Instructions are the MCP initialize instructions, at most
	// MaxInstructionsBytes long.
	Instructions string `json:"instructions,omitempty"`
	// UpdatedAt is when the entry was last refreshed with different content.
	UpdatedAt time.Time `json:"updatedAt"`
	// RefreshDue is when the server's listing goes stale by its own ttlMs hint, so that a
	// start after it lists the server again in the background; zero when the server gave
	// no hint (a legacy server), whose entry stays until its configuration changes or
	// it announces a change.
	RefreshDue time.Time `json:"refreshDue,omitzero"`
	// Tools are the server's tools, sorted by Name.
	Tools []Tool `json:"tools"`
	// Resources, ResourceTemplates and Prompts are what the server lists besides tools
	// (absent in files written before they were cached; such entries simply have none).
	Resources         []Resource         `json:"resources,omitempty"`
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates,omitempty"`
	Prompts           []Prompt           `json:"prompts,omitempty"`
	// Project is, for a private listing of a project server, the project it was listed
	// for (the key of File.Projects it is stored under); "" for a shared entry. Update
	// stores an entry by it, and View offers such an entry to that project only.
	Project string `json:"-"`
}

// File is the whole cache file: the format version and one Server per
// configured server name.
type File struct {
	Version int                `json:"version"`
	Servers map[string]*Server `json:"servers"`
	// Projects holds the private listings of project servers: per project (the
	// caller's key of the project directory), one Server per server name. A session in
	// another project never sees them: to it such a server has no entry of its own, so
	// it lists the server itself. Absent in files without any (an older bridge ignores
	// the key, so it never offers them either).
	Projects map[string]map[string]*Server `json:"projects,omitempty"`
}

// View is the entries a session in project sees, by server name: the shared entries,
// with project's private listings in their place. It is f.Servers itself when project
// has none; the caller must not modify it.
func (f *File) View(project string) map[string]*Server {
	return view(f.Servers, f.Projects, project)
}

// view is the entries of shared a session in project sees, with project's private ones
// of projects in their place: shared itself when project has none.
func view[E any](shared map[string]E, projects map[string]map[string]E, project string) map[string]E {
	own := projects[project]
	if project == "" || len(own) == 0 {
		return shared
	}
	out := make(map[string]E, len(shared)+len(own))
	maps.Copy(out, shared)
	maps.Copy(out, own)
	return out
}

// newFile returns an empty cache of the current version.
func newFile() *File {
	return &File{Version: Version, Servers: map[string]*Server{}}
}

// SameTools reports whether two entries describe the same tool set: same
// fingerprint, transport, instructions and tools (compared field by field,
// schemas byte by byte). ServerName, Protocol and UpdatedAt are not compared. Two nil
// entries are the same; a nil and a non-nil entry are not.
func SameTools(a, b *Server) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Fingerprint != b.Fingerprint || a.Transport != b.Transport ||
		a.Instructions != b.Instructions || len(a.Tools) != len(b.Tools) {
		return false
	}
	for i := range a.Tools {
		if !sameTool(&a.Tools[i], &b.Tools[i]) {
			return false
		}
	}
	return true
}

// sameEntry reports whether a and b are equal in everything but UpdatedAt (a later
// RefreshDue is stored, so that a listing within its ttl is not due again).
func sameEntry(a, b *Server) bool {
	return SameTools(a, b) && a.ServerName == b.ServerName && a.RefreshDue.Equal(b.RefreshDue) && a.Protocol == b.Protocol &&
		a.ProtocolKey == b.ProtocolKey && sameExtras(a, b)
}

func sameTool(a, b *Tool) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description &&
		bytes.Equal(a.InputSchema, b.InputSchema) &&
		bytes.Equal(a.OutputSchema, b.OutputSchema) &&
		sameAnnotations(a.Annotations, b.Annotations)
}

func sameAnnotations(a, b *Annotations) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Title == b.Title &&
		sameHint(a.ReadOnlyHint, b.ReadOnlyHint) &&
		sameHint(a.DestructiveHint, b.DestructiveHint) &&
		sameHint(a.IdempotentHint, b.IdempotentHint) &&
		sameHint(a.OpenWorldHint, b.OpenWorldHint)
}

func sameHint(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
