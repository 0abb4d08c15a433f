package main

import (
	"os"

	"github.com/macemc/macemc/cmd/cli"
	_ "github.com/macemc/macemc/services/all"
	_ "github.com/macemc/macemc/walks/lasso/lassotest"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
