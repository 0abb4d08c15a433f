package engine

import (
	"io"

	"github.com/rs/zerolog"
)

// NewLogger returns a logger that writes one plain-text line per log entry
// to w, with no timestamps or colour, so that replaying the same choices
// writes the same bytes:
//
//	INF begin node 1 receives Pong{n: 1} from node 0 event=message node=1 step=3
func NewLogger(w io.Writer) *zerolog.Logger {
	cw := zerolog.ConsoleWriter{
		Out:        w,
		NoColor:    true,
		PartsOrder: []string{zerolog.LevelFieldName, zerolog.MessageFieldName},
	}
	l := zerolog.New(cw).Level(zerolog.DebugLevel)
	return &l
}
