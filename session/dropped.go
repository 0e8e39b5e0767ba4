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

// LogUnreadable is a LimitOptions.Unreadable that logs, as a warning, that the named
// server sent a message mcp-go's decoder rejects: the server, the transport, the fault,
// the reply's id or the message's method when found, and what became of it. Never the
// message's content.
func LogUnreadable(log zerolog.Logger, server string, kind config.Transport) func(error) {
	return func(err error) {
		ev := log.Warn().Str("server", server).Str("transport", string(kind))
		msg := "dropped a server message that cannot be decoded as JSON"
		var bad *UnreadableError
		if errors.As(err, &bad) {
			ev = ev.Stringer("fault", bad.Fault)
			switch {
			case bad.NotReply:
				if bad.Method != "" {
					ev = ev.Str("method", bad.Method)
				}
				msg += "; no call failed"
			case bad.ID != "":
				ev = ev.Str("id", bad.ID)
				msg += "; the call it answers fails"
			default:
				msg += "; its id was not found, so its call waits until its timeout"
			}
		}
		ev.Str("reason", err.Error()).Msg(msg)
	}
}
