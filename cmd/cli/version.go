package cli

import (
	"os"

	"github.com/mattn/go-isatty"

	"github.com/macemc/macemc/sim/trace"
)

func version() string { return trace.ToolVersion }

func stderrIsTerminal() bool {
	fd := os.Stderr.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}
