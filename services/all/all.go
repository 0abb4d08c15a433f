package all

import (
	// The four systems of seed 003 (MaceMC).
	_ "github.com/macemc/macemc/services/chord"
	_ "github.com/macemc/macemc/services/pastry"
	_ "github.com/macemc/macemc/services/randtree"
	_ "github.com/macemc/macemc/services/transport"

	// The systems of seed 000 (lassos) and seed 001 (the vNext bug).
	_ "github.com/macemc/macemc/services/failuredetector"
	_ "github.com/macemc/macemc/services/philosophers"
	_ "github.com/macemc/macemc/services/proposers"
	_ "github.com/macemc/macemc/services/scheduler"
	_ "github.com/macemc/macemc/services/storage"

	// The systems of seed 004 (DS2): linearizability of client histories.
	_ "github.com/macemc/macemc/services/kvmap"
	_ "github.com/macemc/macemc/services/register"
)
