// Command raftkv is macemc for the raftkv system: a user's own binary,
// with every subcommand (search, replay, critical, tune, mdb) for the
// systems it registers.
//
//	raftkv search --system raftkv --param bug=forget-vote
//	raftkv mdb macemc-out
package main

import (
	"os"

	"github.com/macemc/macemc/cmd/cli"

	_ "github.com/macemc/macemc/services/raftkv"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
