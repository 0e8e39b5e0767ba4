package remote

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
)

// Scope selection (the MCP authorization spec's "scope selection strategy", SEP-835,
// SEP-2207 and SEP-2350):
//
//   - the scopes the server's challenge names (the scope of its 401's WWW-Authenticate);
//     else all of its protected-resource metadata's scopes_supported; else none, and the
//     scope parameter is left out (the authorization server applies its default);
//   - plus, on a login after one already made, the scopes that login asked for and the
//     ones a 403 insufficient_scope asked for since (step-up): re-authorizing never drops
//     what was granted before;
//   - plus offline_access (a refresh token) only when the authorization server lists it in
//     its scopes_supported, and only beside other scopes (alone it would replace the
//     authorization server's default scopes).

// offlineAccess is the OpenID Connect scope that asks for a refresh token.
const offlineAccess = "offline_access"

// loginScopes are the scopes a login requests (nil: the scope parameter is omitted).
func loginScopes(challenge, prmScopes, asScopes []string, earlier ...[]string) []string {
	base := challenge
	if len(base) == 0 {
		base = prmScopes
	}
	out := unionScopes(append([][]string{base}, earlier...)...)
	if len(out) > 0 && slices.Contains(asScopes, offlineAccess) && !slices.Contains(out, offlineAccess) {
		out = append(out, offlineAccess)
	}
	return out
}

// unionScopes is every scope of the lists, once each, in the order first seen (nil when
// there is none).
func unionScopes(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// insufficientScope reads a 403's Bearer challenge: whether it says
// error="insufficient_scope" (RFC 6750 section 3.1), and the scopes it asks for.
func insufficientScope(h http.Header) ([]string, bool) {
	for _, v := range h.Values("WWW-Authenticate") {
		if code, ok := authParam(v, "error"); ok && code == "insufficient_scope" {
			sc, _ := authParam(v, "scope")
			return strings.Fields(sc), true
		}
	}
	return nil, false
}

// hasOAuthLogin says whether the server's credentials are an OAuth login's (a stored
// client).
func (s *Server) hasOAuthLogin() bool {
	c, err := s.storedCreds()
	return err == nil && c != nil
}

// noteStepUp records in the credential file the scopes a 403 insufficient_scope asked
// for, so that the next login requests them beside the ones it has (SEP-2350). Scopes
// over the bound of a login's scopes are not recorded (the login would refuse them).
func (s *Server) noteStepUp(scopes []string) {
	if s.d.OAuth == nil || s.cfg.URL == "" {
		return
	}
	ctx, cancel := clock.WithTimeout(context.Background(), s.d.Clock, oauthRequestTimeout)
	defer cancel()
	path := s.d.OAuth.credPath(s.cfg.URL)
	unlock, err := lockCreds(ctx, path)
	if err != nil {
		return
	}
	defer unlock()
	c, err := readCreds(path)
	if err != nil || c == nil {
		return
	}
	want := unionScopes(c.StepUpScopes, scopes)
	if len(want) == len(c.StepUpScopes) || checkScopes(unionScopes(c.Scopes, want)) != nil {
		return
	}
	c.StepUpScopes = want
	if err := writeCreds(path, c); err != nil {
		s.d.Log.Warn().Str("server", s.cfg.Name).Str("error", pathErrReason(err).Error()).Msg("could not record the scopes the server asked for; the next login may not request them")
	}
}
