// Package lin checks the clients' histories of executions for
// linearizability (seed 004, DS2): a system declares the sequential
// specification of the object it implements (sim.Model), its clients
// record their invocations and responses (sim.Context.Invoke, Return),
// and the checker asks github.com/anishathalye/porcupine whether some
// order of the operations, consistent with their real-time order, makes
// the model give every response the clients saw.
//
// The search (package search) checks the history of every execution where
// it ends (explore.PathCheck): a violation is a finding of kind
// linearizability with a minimal non-linearizable sub-history (Minimize)
// and porcupine's HTML visualization (Visualize) beside the report.
//
// # Verdicts and the cache
//
// A check is Ok, Illegal, Unknown or Panicked: Unknown when porcupine did
// not decide within the timeout, Panicked when the model panicked on the
// history (ModelPanic says what and where: a bug of the model, or a
// history it does not expect), and neither is ever counted as Ok. Verdicts are cached by the history's canonical hash
// (engine.Sim.HistoryHash): histories that order the same operations the
// same way in real time are linearizable alike, so each is checked once.
// Without a timeout (and the default is 10 s for histories that take
// microseconds) the verdicts are deterministic.
//
// Operations that never returned may have taken effect or not: they are
// given to porcupine as returning after every other event, with a result
// the model accepts whatever it computes.
//
// The HTML visualization lists porcupine's partial linearizations, which
// porcupine collects through a map: two visualizations of the same history
// may list equally long ones in another order. Everything else the search
// writes is byte-for-byte reproducible.
//
// # Usage
//
//	c := lin.New(cfg.Model, 0)
//	switch c.CheckSim(s) { // s an *engine.Sim at the end of an execution
//	case lin.Illegal:
//		witness := c.Minimize(s.History())
//		_, err := c.Visualize(witness, w) // porcupine's HTML
//	case lin.Unknown:
//		// the checker timed out: not a verdict
//	case lin.ModelFailed:
//		err := c.ModelErr(s.History()) // a *lin.ModelPanicError
//	}
package lin
