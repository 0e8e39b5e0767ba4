package remote

import (
	"context"
	"fmt"
	"sync"
)

// Probe notes what the server answered to the requests made under one context, so
// failures are classified from what the server really answered (mcp-go folds most
// statuses of an initialize POST into ErrLegacySSEServer).
type Probe struct {
	mu sync.Mutex
	ProbeInfo
	// refused is why a stream opened under the context was refused (an *EndpointError),
	// and refusedCh is closed when it is set: the connect waiting on the stream fails at
	// once, with that reason.
	refused   error
	refusedCh chan struct{}
}

type ProbeInfo struct {
	Method      string // HTTP method of the last response's request
	Status      int    // last HTTP status (0: no response)
	ContentType string // media type of the last response
	WithSession bool   // the request carried an Mcp-Session-Id
	SSEEndpoint bool   // a POST was answered with an SSE endpoint event (a legacy SSE server)
	// oauthChallenge: a 401 announced OAuth (WWW-Authenticate with resource_metadata).
	OAuthChallenge bool
	// InsufficientScope: a 403's Bearer challenge said error="insufficient_scope"
	// (RFC 6750 3.1), asking for ChallengedScopes (its scope parameter).
	InsufficientScope bool
	ChallengedScopes  []string
}

// Describe says what the server answered, for messages.
func (p ProbeInfo) Describe() string {
	switch {
	case p.SSEEndpoint:
		return "with an SSE endpoint event"
	case p.Status != 0:
		return fmt.Sprintf("HTTP %d", p.Status)
	}
	return "nothing"
}

type probeKey struct{}

// WithProbe returns a context whose requests are noted in the returned Probe.
func WithProbe(ctx context.Context) (context.Context, *Probe) {
	p := &Probe{refusedCh: make(chan struct{})}
	return context.WithValue(ctx, probeKey{}, p), p
}

func probeFrom(ctx context.Context) *Probe {
	p, _ := ctx.Value(probeKey{}).(*Probe)
	return p
}

// Snapshot is what was noted so far.
func (p *Probe) Snapshot() ProbeInfo {
	if p == nil {
		return ProbeInfo{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ProbeInfo
}

func (p *Probe) record(method string, status int, ct string, withSession bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Method, p.Status, p.ContentType, p.WithSession = method, status, ct, withSession
}

func (p *Probe) markOAuth() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.OAuthChallenge = true
}

func (p *Probe) markInsufficientScope(scopes []string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.InsufficientScope, p.ChallengedScopes = true, scopes
}

func (p *Probe) markEndpoint() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.SSEEndpoint = true
}

// refuse notes why a stream opened under the probe's context was refused; the first
// reason stays.
func (p *Probe) refuse(err error) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refused == nil {
		p.refused = err
		close(p.refusedCh)
	}
}

// Refused is closed once a stream opened under the probe's context was refused (nil
// Probe: never).
func (p *Probe) Refused() <-chan struct{} {
	if p == nil {
		return nil
	}
	return p.refusedCh
}

// Refusal is why a stream opened under the probe's context was refused (nil: none was).
func (p *Probe) Refusal() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}
