// Command lassodemo is macemc with the lasso-* example systems of package
// lassotest registered besides the usual ones: scripts/lasso_table.sh runs
// it, and it shows lasso detection on systems built for it.
//
//	go run ./walks/lasso/internal/lassodemo search --system lasso-philosophers --lasso
package main

import (
	"os"

	"github.com/macemc/macemc/cmd/cli"
	_ "github.com/macemc/macemc/services/all"
	_ "github.com/macemc/macemc/walks/lasso/lassotest"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
