// Command lassodemo is macemc with the lasso-* systems of package lassotest
// registered besides the usual ones: scripts/lasso_table.sh runs it, and it
// shows what lasso detection and the temperature method make of systems
// that only look like livelocks.
//
//	go run ./walks/lasso/internal/lassodemo search --system lasso-slow --temperature 50
package main

import (
	"os"

	"github.com/macemc/macemc/cmd/cli"
	_ "github.com/macemc/macemc/services/all"
	_ "github.com/macemc/macemc/walks/lasso/lassotest"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
