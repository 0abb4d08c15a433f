package cli

import (
	"encoding/json"

	"github.com/macemc/macemc/search"
)

// list prints the registered systems and the strategies.
func (a *App) list(args []string) (int, error) {
	fs := a.newFlags("list", "[--json]")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout (a usage or input error, exit 2, prints nothing there: its message is on stderr)")
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	c := search.List()
	if *asJSON {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		return ExitNone, enc.Encode(c)
	}
	return ExitNone, c.WriteText(a.Stdout)
}
