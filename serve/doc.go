// Package serve is mcp-bridge's MCP front end: the bridge's catalog served as one MCP
// server to other clients, over stdio or HTTP.
package serve
