// Package ctxval is the one context that keeps a parent's deadline and cancellation and
// drops its values: what crosses from one MCP conversation into another (a front end's
// request into a server's, a server's request into a handler's) without the values
// mcp-go keeps in a context about the conversation it came from.
package ctxval

import "context"

// WithoutValues is ctx's deadline and cancellation with no values.
func WithoutValues(ctx context.Context) context.Context { return valuesless{ctx} }

type valuesless struct{ context.Context }

func (valuesless) Value(any) any { return nil }
