package session

import (
	"errors"

	"github.com/rs/zerolog"

	"github.com/zot-mcp/mcp-bridge/config"
)

// LogDropped is a LimitOptions.Dropped that logs, as a warning, that the named server's
// over-size request or notification was dropped (the server, the transport, the cap and
// the method when it was found), or its reply that named another request's id (the ids).
// Never the message's content.
func LogDropped(log zerolog.Logger, server string, kind config.Transport) func(error) {
	return func(err error) {
		ev := log.Warn().Str("server", server).Str("transport", string(kind))
		var foreign *ForeignReplyError
		if errors.As(err, &foreign) {
			ev.Str("id", foreign.ID).Str("want", foreign.Want).
				Msg("ignored a reply that named another request's id; it was not taken as the answer")
			return
		}
		var big *TooLargeError
		if errors.As(err, &big) && big.Method != "" {
			ev = ev.Str("method", big.Method)
		}
		ev.Str("reason", err.Error()).Msg("dropped a server request or notification over the reply cap; the stream goes on")
	}
}
