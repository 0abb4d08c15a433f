// Command critical_sweep runs `macemc search` (search.Run, in process,
// writing the same files) on every paper system over a range of seeds, as a user changing --seed
// would, and prints per system how many runs name a C1 critical transition
// at the paper's event, the time per run, and how much the minimized
// doomed path (min.trace) shortens the error path's prefix.
//
// Each search checks the system's liveness properties only (the paper's
// liveness search; chord's safety property SuccPred would otherwise stop
// it first) with the default budgets: d_max 20,000, k = 20, confirmation
// samples of 1,200,000 transitions. "Time" is the run's wall-clock time
// without the minimization, which has its own budget and column; the
// search and critical columns are the parts of it spent in the bounded
// search and in the critical-transition search (confirmation included).
// "cpu per run" is the process's CPU time per run (user and system, the
// minimization included unless --no-minimize): on a busy machine it shows
// what the wall-clock times would be on idle cores.
//
// # Usage
//
// From the repository's root (scripts/critical_sweep.sh runs it with a
// header line of the machine, Go version and date):
//
//	go run ./scripts/critical_sweep [--seeds 1-50] [--workers 2] [--no-minimize] [--rows] [--walks K] [--confirm-budget N] [--no-confirm] [SYSTEM...]
//	go run ./scripts/critical_sweep --seeds 1-10 --rows transport chord
//
// SYSTEM defaults to the seven systems whose critical event is known:
// transport, randtree, chord, pastry, storage, failuredetector and
// scheduler. --seeds takes a range (1-50) or a list (1,4,10); --workers,
// --walks, --confirm-budget and --no-confirm are passed to every search
// (0: the search's default); --no-minimize skips the minimization.
//
// It prints, with --rows, one line per run as it ends; then a header line
// (the settings, the date and the load average after each system) and a
// Markdown table, one row per system: runs with C1 at the paper's event,
// the other answers, how many answers were thin (weak confirmation),
// searched below d_init or refined by the confirmation, the time per run,
// the CPU per run, the search and critical times, the doomed path's median
// length before and after minimization and its mean shortening, how many
// are 1-minimal, and the minimization's time; then a list of the runs whose
// answer was not the paper's event (a search that failed is one, with its
// error). Exit status 0, or 2 for a bad flag or --seeds, an unknown system
// or one whose paper event is not known.
package main
