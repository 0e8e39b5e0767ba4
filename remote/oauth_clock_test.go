package remote

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zot-mcp/mcp-bridge/internal/clock"
	"github.com/zot-mcp/mcp-bridge/testkit/fakeoauth"
)

// TestOAuthRefreshBoundOnInjectedClock: a token refresh whose token endpoint never
// answers fails once oauthRequestTimeout has passed on the bridge's clock, the one its
// expiry is judged on, not on the wall clock beside it.
func TestOAuthRefreshBoundOnInjectedClock(t *testing.T) {
	t.Parallel()
	f := fakeoauth.New(t, false)
	reached := make(chan struct{}, 1)
	var requests atomic.Int32
	f.Routes = map[string]http.Handler{"/token": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_ = r.ParseForm() // read the body: the server notices the client gave up only then
		select {
		case reached <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	})}
	s := oauthServer(t, f, nil)
	fake := clock.NewFake()
	s.d.Clock = fake
	store := seedRefresh(t, s, f)
	failed := make(chan error, 1)
	go func() {
		_, err := store.GetToken(testCtx(t))
		failed <- err
	}()
	select {
	case <-reached:
	case err := <-failed:
		t.Fatalf("the refresh ended before its token request was sent: %v", err)
	}
	if err := fake.AdvanceWhenSet(testCtx(t), oauthRequestTimeout); err != nil {
		t.Fatal(err)
	}
	if err := <-failed; err == nil {
		t.Fatal("a refresh the token endpoint never answered succeeded")
	} else if !strings.Contains(err.Error(), "deadline exceeded") || requests.Load() != 1 {
		t.Fatalf("refresh: %v after %d token requests, want one that ran out of time", err, requests.Load())
	}
}
