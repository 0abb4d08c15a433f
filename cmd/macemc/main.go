package main

import (
	"os"

	"github.com/macemc/macemc/cmd/cli"
	_ "github.com/macemc/macemc/services/all"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
