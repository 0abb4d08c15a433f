// Command macemc finds liveness and safety bugs in the example systems:
// bounded search, random walks, and the critical transition (seed 003).
// See the README and 'macemc --help'.
package main

import (
	"os"

	"github.com/macemc/macemc/cmd/cli"
	_ "github.com/macemc/macemc/services/all"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
