package main

import (
	"os"

	"github.com/macemc/macemc/mdb"
	_ "github.com/macemc/macemc/services/all"
)

func main() { os.Exit(mdb.Main("mdb", os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
