package search

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// WriteText writes the report as `macemc search` prints it: what was
// searched, the verdict, the first finding with its critical transition or
// lasso, the files, and the commands that debug and replay it (last).
func (r *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	r.writeText(ew, false)
	return ew.err
}

// WriteSummary writes what WriteText writes but for what differs between
// two runs of the same search: no times, the result files by name only
// (not the directory they are in), and no debug and replay commands,
// which name that directory. The same system, options and seed give the
// same summary on any machine and for any number of workers, so golden
// tests and examples compare it; users want WriteText.
func (r *Report) WriteSummary(w io.Writer) error {
	ew := &errWriter{w: w}
	r.writeText(ew, true)
	return ew.err
}

// sharedMapError reports whether err is replays that differ because the
// nodes of every run hold one map (NondeterminismError.SharedMap).
func sharedMapError(err error) bool {
	var nd *engine.NondeterminismError
	return errors.As(err, &nd) && nd.SharedMap
}

// unsearchedWhy says why a run that searched nothing (NothingSearched) did:
// the check before the search used the budget, or what the search had
// left of it was less than its first paths' walks took.
func (r *Report) unsearchedWhy() string {
	var pre time.Duration
	for _, ph := range r.Phases {
		if ph.Phase == PhasePrecheck {
			pre = ph.Time
		}
	}
	if r.Stats.TimeCut == 0 {
		return fmt.Sprintf("the check before the search used all of it, %.1fs", pre.Seconds())
	}
	walks := fmt.Sprintf("the walks of the first %d paths took longer than the %.1fs left: they were stopped", r.Stats.TimeCut, r.Stats.Elapsed.Seconds())
	if r.Stats.TimeCut == 1 {
		walks = fmt.Sprintf("the walk of the first path took longer than the %.1fs left: it was stopped", r.Stats.Elapsed.Seconds())
	}
	return fmt.Sprintf("the check before the search took %.1fs of it, and %s, and a path is counted when it is whole", pre.Seconds(), walks)
}

type errWriter struct {
	w   io.Writer
	err error
	// quiet: a write reports no error (the first is kept in err): a
	// logger that writes to it would print a line on stderr for every
	// entry it could not write, thousands for a log on a full disk.
	quiet bool
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
	if e.quiet {
		return len(p), nil
	}
	if e.err != nil {
		return 0, e.err
	}
	return len(p), nil
}

// writeText writes the text report; stable leaves out times, directories
// and commands (WriteSummary).
// faultsText is the text report's line of the failures in force, f (of
// r.Faults): where in a path they may happen, and "none". Reordering is no
// failure with a budget: datagrams are reordered all along, walks
// included.
func (r *Report) faultsText(f sim.Failures) string {
	reorder := ""
	if f.Reorder {
		reorder = "; datagrams are reordered all along, walks included"
	}
	switch {
	case !f.Any() && !f.Reorder:
		return "none"
	case !f.Any():
		return r.Faults
	case r.WalkFailures:
		return r.Faults + " (in the walks too: --walk-failures)"
	case r.Stats.Depth > 0 && r.PrefixSteps > 0:
		// Failures end at the bounded part's end (explore's
		// failuresUntil); the prefix ran without them.
		return fmt.Sprintf("%s (failures only in each path's bounded part, steps %d to %d after the %d-step prefix, which had none; the walks ran without them: --walk-failures injects them there too%s)",
			r.Faults, r.PrefixSteps+1, r.PrefixSteps+r.Stats.Depth, r.PrefixSteps, reorder)
	case r.Stats.Depth > 0:
		return fmt.Sprintf("%s (failures only in each path's bounded part, up to step %d; the walks ran without them: --walk-failures injects them there too%s)",
			r.Faults, r.Stats.Depth, reorder)
	case r.Stats.Rounds > 0:
		// A search with no bounded part (walk) has them all along.
		return r.Faults + " (all along each walk)"
	}
	return r.Faults
}

func (r *Report) writeText(w io.Writer, stable bool) {
	name := safetext.QuoteUnsafe(r.System)
	if params := sim.Params(r.Params).Text(); params != "" {
		name += " (" + params + ")"
	}
	strategy := r.Strategy
	if params := sim.Params(r.StrategyParams).Text(); params != "" {
		strategy += " (" + params + ")"
	}
	fmt.Fprintf(w, "system %s, seed %d, strategy %s\n", name, r.Seed, strategy)
	if f, err := sim.ParseFailures(sim.Failures{}, r.Faults); err == nil {
		fmt.Fprintf(w, "faults: %s\n", r.faultsText(f))
	}
	if r.PrefixSteps > 0 {
		fmt.Fprintf(w, "prefix: searched from the end of a %d-step prefix: every path and verdict below is of executions that begin with it\n", r.PrefixSteps)
	}
	st := &r.Stats
	switch {
	case st.Stop == 0:
		fmt.Fprintln(w, "not searched: the check of the system's replays before the search found the fault below")
	case st.Rounds == 0 && st.Paths == 0 && st.Stop == explore.StopMemory:
		fmt.Fprintln(w, "not searched: the run reached its memory limit before the search started, in the check of the system's replays "+
			"(its replays run side by side: --replays lowers their number, --max-memory raises the limit)")
	case st.Rounds == 0 && st.Paths == 0 && st.Stop == explore.StopInterrupted:
		fmt.Fprintln(w, "not searched: the run was stopped before the search started")
	default:
		took := fmt.Sprintf(" in %.2fs", r.SearchTime.Seconds())
		if stable {
			took = ""
		}
		// A search that prunes no path (--no-hashing, or a strategy that
		// never prunes: it still hashes states to end a path that comes
		// back to one of its own) counts no distinct states: say so
		// rather than "0 distinct states".
		paths, states := plural(st.Paths, "path")+fmt.Sprintf(" (%d cut by a repeated state)", st.Pruned), plural(st.DistinctStates, "distinct state")
		if st.Unhashed {
			paths, states = plural(st.Paths, "path"), "no path pruned, distinct states not counted"
		} else if st.Forgotten > 0 {
			// The full set dropped earlier rounds' states: those recorded
			// again are counted again.
			states = plural(st.DistinctStates, "state") + " recorded (not all distinct: the full visited-state set forgot earlier rounds' states)"
		} else if st.Unrecorded > 0 {
			states = plural(st.DistinctStates, "distinct state") + " recorded (the visited-state set was full: more were reached)"
		}
		rounds := plural(st.Rounds, "round")
		if r.Strategy == "delay" && st.Rounds > 0 {
			// Round r of iterative delay bounding runs the schedules of
			// at most r-1 delays; a round capped by --delay-max ends the
			// search as a depth cap does.
			rounds += fmt.Sprintf(" (delay bounds 0 to %d)", st.Rounds-1)
		}
		stop := st.Stop.String()
		if r.Strategy == "delay" && st.Stop == explore.StopDepth {
			// Either bound ends a delay search that does not exhaust: say
			// which (a --delay-max given was named when it was not).
			if max, _ := strconv.Atoi(r.StrategyParams["max"]); max > 0 && st.Rounds-1 >= max {
				stop += fmt.Sprintf(" (schedules reached the step bound, --delay-steps, or the delay bound reached --delay-max %d)", max)
			} else {
				stop += " (schedules reached the step bound, --delay-steps)"
			}
			if !st.Unhashed {
				// Seed 002's caching: a state is pruned when reached
				// before, whatever the scheduler's state then.
				stop += "; states are cached without the scheduler's state, so not every schedule within the bound ran (--no-hashing runs them all)"
			}
		}
		fmt.Fprintf(w, "searched: %s, depth bound %d (deepest complete %d), %s, %s, %s, %s%s; stopped: %s\n",
			rounds, st.Depth, st.DeepestComplete, paths, plural(st.Walks, "walk"), plural(st.Transitions, "transition"), states, took, stop)
	}
	if g := r.Stats.Graph; g != nil && g.States > 0 {
		fmt.Fprintf(w, "state graph: %s, %s, %d MiB; %s\n", plural(g.States, "state"), plural(g.Edges, "transition"), g.Bytes>>20, r.GraphVerdict())
	}
	if st.Blocked > 0 {
		fmt.Fprintf(w, "  %d paths ended by their scheduler: every way on is explored by other paths\n", st.Blocked)
	}
	if l := r.Lin; l != nil {
		panicked := ""
		if l.ModelFailed > 0 {
			panicked = fmt.Sprintf(", %d on which the model failed", l.ModelFailed)
		}
		fmt.Fprintf(w, "linearizability: %d executions checked, %d distinct histories, %d not linearizable, %d undecided (their check timed out)%s\n",
			l.Checked, l.Distinct, l.Illegal, l.Unknown, panicked)
	}
	switch {
	case r.MemoryLimited:
		fmt.Fprintln(w, "stopped at the memory limit (--max-memory): the run's heap grew past what the limit allows; this report covers what was found and checked before then")
	case r.Incomplete:
		fmt.Fprintln(w, "interrupted: this report covers what was found and checked before the run was stopped")
	}
	f := r.First()
	if f == nil {
		switch {
		case r.MemoryLimited:
			fmt.Fprintln(w, "nothing found before the run reached its memory limit")
		case r.Incomplete:
			fmt.Fprintln(w, "nothing found before the run was stopped (its budget was not spent)")
		case r.NothingSearched():
			why := ""
			if !stable {
				why = " (" + r.unsearchedWhy() + ")"
			}
			fmt.Fprintf(w, "NOTHING SEARCHED: the time budget ran out before the search finished a single path%s; this run shows nothing, raise --time\n", why)
		case r.Stats.Graph != nil && r.Stats.Graph.TimeWaits > 0:
			// A livelock may hide among them (a deadline a heartbeat keeps
			// moving): say it where a reader of the last line looks.
			fmt.Fprintln(w, "nothing found within this budget, but no proof of liveness either: cycles that wait forever on a timeout were set aside (the state graph line above)")
		default:
			fmt.Fprintln(w, "nothing found within this budget")
		}
		r.writeLasso(w, nil)
		if !stable {
			r.writeWarnings(w)
		}
		return
	}
	switch f.Verdict {
	case VerdictNondeterministic:
		var mc *engine.MessageChangedError
		var ss *engine.SharedStateError
		var pw *engine.PropertyWriteError
		switch {
		case errors.As(f.Err, &mc):
			fmt.Fprintf(w, "SERVICE CHANGED A MESSAGE IN FLIGHT: the %s node %d sent to node %d changed before its delivery\n  %v\n", safetext.QuoteUnsafe(mc.Message), mc.From, mc.To, f.Err)
		case errors.As(f.Err, &ss) && ss.Monitor != "":
			fmt.Fprintf(w, "SERVICE SHARES MEMORY WITH A MONITOR: monitor %s's state changed while node %d's handler ran\n  %v\n", safetext.QuoteUnsafe(ss.Monitor), ss.By, f.Err)
		case errors.As(f.Err, &ss):
			fmt.Fprintf(w, "SERVICE SHARES MEMORY BETWEEN NODES: node %d's state changed while node %d's handler ran\n  %v\n", ss.Node, ss.By, f.Err)
		case errors.As(f.Err, &pw):
			part := fmt.Sprintf("node %d's state", pw.Node)
			if pw.Part != "" {
				part = pw.Part
			}
			if pw.Driver >= 0 {
				fmt.Fprintf(w, "DRIVER CONDITION CHANGED THE STATE: the condition of node %d's request %s changed %s\n  %v\n", pw.Driver, safetext.QuoteUnsafe(pw.Property), part, f.Err)
			} else {
				fmt.Fprintf(w, "PROPERTY CHANGED THE STATE: checking %s changed %s\n  %v\n", safetext.QuoteUnsafe(pw.Property), part, f.Err)
			}
		case f.Kind == KindEscape:
			fmt.Fprintf(w, "NONDETERMINISTIC SERVICE: node %d acted outside its handlers\n  %v\n", f.Node, f.Err)
		case sharedMapError(f.Err):
			fmt.Fprintf(w, "SERVICE SHARES MEMORY ACROSS EXECUTIONS: the nodes of every run hold one map, made once\n  %v\n", f.Err)
		default:
			var nd *engine.NondeterminismError
			// The values that differ are the nondeterminism's own: the
			// stable text says where, not what.
			where := func() string {
				if nd.Step == 0 {
					return "in the initial state"
				}
				return fmt.Sprintf("after step %d (%s)", nd.Step, nd.Event)
			}
			switch {
			case stable && errors.As(f.Err, &nd) && nd.Property != "":
				fmt.Fprintf(w, "NONDETERMINISTIC SERVICE: replays of the same choices differ\n  %s, property %s\n", where(), safetext.QuoteUnsafe(nd.Property))
			case stable && errors.As(f.Err, &nd) && nd.Monitor != "":
				fmt.Fprintf(w, "NONDETERMINISTIC SERVICE: replays of the same choices differ\n  %s, monitor %s (%s) field %q\n",
					where(), safetext.QuoteUnsafe(nd.Monitor), nd.Type, nd.Path)
			case stable && errors.As(f.Err, &nd):
				fmt.Fprintf(w, "NONDETERMINISTIC SERVICE: replays of the same choices differ\n  %s, node %d (%s) field %q\n", where(), nd.Node, nd.Type, nd.Path)
			default:
				fmt.Fprintf(w, "NONDETERMINISTIC SERVICE: replays of the same choices differ\n  %v\n", f.Err)
			}
		}
	case VerdictSafety:
		what := "SAFETY VIOLATION: " + safetext.QuoteUnsafe(f.Property)
		switch f.Kind {
		case KindHandlerPanic:
			what = fmt.Sprintf("SAFETY VIOLATION: a handler of node %d panicked", f.Node)
			var pp *engine.PropertyPanicError
			var hp *engine.HandlerPanicError
			if errors.As(f.Err, &hp) && hp.Monitor != "" {
				what = fmt.Sprintf("SAFETY VIOLATION: monitor %s panicked (in its Handle, notified by node %d's handler)", safetext.QuoteUnsafe(hp.Monitor), hp.Node)
			} else if errors.As(f.Err, &pp) && pp.Condition {
				what = fmt.Sprintf("SAFETY VIOLATION: the condition of node %d's driver request %s panicked", pp.Node, safetext.QuoteUnsafe(pp.Property))
			} else if errors.As(f.Err, &pp) {
				what = fmt.Sprintf("SAFETY VIOLATION: property %s panicked", safetext.QuoteUnsafe(pp.Property))
			}
		case KindMisuse:
			what = fmt.Sprintf("SAFETY VIOLATION: node %d used the API wrongly", f.Node)
		case KindHandlerHang:
			what = fmt.Sprintf("SAFETY VIOLATION: a handler of node %d did not return", f.Node)
		}
		var hang *engine.HangError
		if f.Kind == KindHandlerHang && errors.As(f.Err, &hang) && hang.Memory {
			what += ", allocating past the run's memory limit"
		}
		switch {
		case f.Kind == KindLinearizability && errors.Is(f.Err, lin.ErrModel):
			fmt.Fprintf(w, "LINEARIZABILITY NOT CHECKED: the model failed on the clients' history of an execution of %s\n", plural(f.Steps, "step"))
		case f.Kind == KindLinearizability:
			fmt.Fprintf(w, "LINEARIZABILITY VIOLATION: the clients' history of an execution of %s is not linearizable\n", plural(f.Steps, "step"))
		case f.Kind == KindHandlerHang && errors.As(f.Err, &hang) && hang.Boot,
			f.Steps == 0 && (f.Kind == KindHandlerPanic || f.Kind == KindMisuse):
			fmt.Fprintf(w, "%s while the system booted\n", what)
		case f.Kind == KindHandlerHang && hang != nil && hang.Outside != "":
			// Code outside the handlers hung in the state after the
			// trace's last step.
			fmt.Fprintf(w, "SAFETY VIOLATION: the system's code outside its handlers did not return after step %d\n", f.Steps)
		case f.Kind == KindHandlerHang:
			// The hung step never completed: the trace holds the steps
			// before it.
			fmt.Fprintf(w, "%s at step %d\n", what, f.Steps+1)
		default:
			fmt.Fprintf(w, "%s at step %d\n", what, f.Steps)
		}
		if f.Err != nil {
			fmt.Fprintf(w, "  %v\n", f.Err)
		}
		for _, a := range f.AlsoViolated {
			fmt.Fprintf(w, "  also failing in that state: %s\n", safetext.QuoteUnsafe(a))
		}
		if len(f.Events) > 0 {
			fmt.Fprintf(w, "violating path (%s, error.trace):\n", plural(len(f.Events), "step"))
			writeEvents(w, f.Events, "error.log", f.FailureSteps...)
		}
		var mp *lin.ModelPanicError
		if f.Kind == KindLinearizability && errors.As(f.Err, &mp) {
			fmt.Fprintln(w, "  the model (sim.Config.Model) has a bug, or the history holds what it does not expect (an operation or a response of another type); the history below is what it was given")
		}
		if f.Stack != "" {
			stack := strings.TrimRight(f.Stack, "\n")
			if stable {
				stack = functionsOnly(stack)
			}
			fmt.Fprintf(w, "  in the service's code:\n    %s\n", strings.ReplaceAll(stack, "\n", "\n    "))
		}
		if h := f.History; h != nil {
			r.writeHistory(w, h)
		}
	case VerdictLiveness:
		how := "suspected liveness violation: no live state in"
		switch {
		case f.Outcome == walks.Quiescent:
			how = "liveness violation: the system fell quiescent (nothing left to run) without a live state after"
		case f.Kind == KindLasso && f.Lasso != nil && f.Lasso.Proof:
			how = "lasso: an infinite fair execution without a live state, shown in"
		case f.Kind == KindLasso && f.Lasso != nil && f.Lasso.NodeFair && !f.Lasso.Proof:
			how = "suspected lasso: an infinite execution without a live state, checked fair per node (--lasso-node-fairness), shown in"
		case f.Kind == KindLasso:
			how = "suspected lasso: a hot fair cycle of partial states, shown in"
		case f.Kind == KindTemperature:
			how = "temperature method: too many steps without a live state, alarm after"
		case f.Kind == KindDead && f.Certainty == Certain:
			how = "dead state, and a lasso that proves it: no live state in"
		case f.Kind == KindDead && f.Certainty == Likely:
			how = "dead state (critical transition C1): no live state in"
		}
		if tp := f.Temperature; f.Kind == KindTemperature && tp != nil && tp.Verdict == "false alarm" {
			// The method reports every alarm (seed 000 Algorithm 2); its
			// own execution shows this one false.
			fmt.Fprintf(w, "LIVENESS VIOLATION of %s as the temperature method reports it (%s %s), but a FALSE ALARM: the execution became live at step %d and its path holds no lasso; raise --temperature\n",
				safetext.QuoteUnsafe(f.Property), how, plural(f.Steps, "step"), tp.LiveAt)
		} else {
			what := safetext.QuoteUnsafe(f.Property)
			if l := f.Lasso; l != nil && len(l.InTurn) > 1 {
				what = andList(l.InTurn) + ", which hold in turn, never all at once"
			}
			fmt.Fprintf(w, "LIVENESS VIOLATION of %s (%s %s)\n", what, how, plural(f.Steps, "step"))
		}
		if c := f.Critical; c != nil {
			switch {
			case !c.Interrupted && c.Condition == critical.C2 && f.Kind == KindLasso && f.Lasso != nil && f.Lasso.Proof && c.Recovered < 0 && c.Dead == 0:
				// No walk recovered from any state probed, the initial
				// state included: not a transient-state violation but a
				// system that does not become live from the start.
				fmt.Fprintf(w, "no critical transition: no random walk from the states probed, the initial state among them, reached a live state (condition C2, %s), so the system looks dead from the start and the lasso proves it can stay so; check the driver's requests, the failure budgets and the liveness properties, or raise --walk-depth if a live state needs more steps\n", c.budget(stable))
			case !c.Interrupted && c.Condition == critical.C2 && f.Kind == KindLasso && f.Lasso != nil && f.Lasso.Proof && c.Recovered >= f.Lasso.Stem:
				// Walks recover from the lasso's states: a transient-state
				// violation, which has no critical transition. C2 is
				// then the expected answer, not a call to raise d_max.
				fmt.Fprintf(w, "no critical transition, as expected of this lasso: random walks from its states still reach live states, so it is a transient-state violation (seed 003 §2), which has none (condition C2, %s)\n", c.budget(stable))
			case !c.Interrupted && c.Condition == critical.C2 && f.Kind == KindLasso && f.Lasso != nil && c.Recovered >= 0:
				// A suspected lasso whose path's states recover, or one
				// whose cycle no walk started from: its explanation
				// (lassoCritical) says what C2 means there.
				fmt.Fprintf(w, "no critical transition (condition C2, %s)\n  %s\n", c.budget(stable), c.Explain)
			default:
				if c.Step >= 0 || c.Condition == critical.C2 && !c.Interrupted {
					fmt.Fprintln(w, c.headline(stable))
				}
				fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(strings.TrimSpace(c.Explain), "\n", "\n  "))
				if c.Note != "" {
					fmt.Fprintf(w, "  (%s)\n", c.Note)
				}
			}
			if c.LiveSteps > 0 {
				fmt.Fprintf(w, "live alternative: %s, sharing the first %d with the dead path\n", plural(c.LiveSteps, "step"), c.Shared)
			}
		}
		writeDoomed(w, f, stable)
		r.writeLasso(w, f)
	}
	if len(r.Findings) > 1 {
		fmt.Fprintf(w, "%d violating paths in all (the first is described)\n", len(r.Findings))
	}
	keys := make([]FileRole, 0, len(r.Files))
	for k := range r.Files {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	width := 12
	for _, k := range keys {
		width = max(width, len(k))
	}
	for _, k := range keys {
		path := r.Files[k]
		if stable {
			path = filepath.Base(path)
		}
		fmt.Fprintf(w, "  %-*s %s\n", width, k, safetext.QuoteUnsafe(path))
	}
	if stable {
		return
	}
	r.writeWarnings(w)
	switch {
	case r.LogsSkipped && !r.Incomplete:
		fmt.Fprintln(w, "  (logs not written: the time budget ended while they were written; the replay command below writes error.log)")
	case r.LogsSkipped:
		fmt.Fprintln(w, "  (logs not written: the run was interrupted; the replay command below writes error.log)")
	}
	fmt.Fprintf(w, "total %.2fs%s\n", r.Elapsed.Seconds(), r.phasesText())
	if r.Debug != "" {
		fmt.Fprintf(w, "debug:  %s\n", r.Debug)
	}
	if r.Replay != "" {
		fmt.Fprintf(w, "replay: %s\n", r.Replay)
	}
}

// writeHistory writes a linearizability violation's minimal history.
func (r *Report) writeHistory(w io.Writer, h *History) {
	if len(h.Minimal) > 0 {
		fmt.Fprintf(w, "a minimal non-linearizable sub-history (%d of the %d events; no order of these operations explains every result):\n", len(h.Minimal), len(h.Events))
		for _, l := range historyLines(h.Minimal) {
			fmt.Fprintf(w, "    %s\n", l)
		}
	} else {
		fmt.Fprintf(w, "history (%d events):\n", len(h.Events))
		for _, l := range historyLines(h.Events) {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	if m := h.TypeMismatch; m != nil {
		fmt.Fprintf(w, "  hint: %s\n", m)
	}
}

// writeLasso writes the lasso, temperature and detector parts.
func (r *Report) writeLasso(w io.Writer, f *Finding) {
	if f != nil {
		if l := f.Lasso; l != nil && l.Length > 0 {
			what := "lasso"
			if f.Kind == KindTemperature {
				what = "lasso in the alarm's path"
			}
			fmt.Fprintf(w, "%s: a stem of %s, then a cycle of %s (transitions %d-%d), replayed %s (%s hashing)\n",
				what, plural(l.Stem, "step"), plural(l.Length, "step"), l.Stem+1, l.Stem+l.Length, plural(l.Confirmed, "time"), l.Hash)
			if l.Origin == OriginGraph {
				fmt.Fprintf(w, "  found as %s\n", l.Source)
			}
			const show = 24
			for i, ev := range l.Events {
				if i == show {
					fmt.Fprintf(w, "    ... %d more\n", len(l.Events)-show)
					break
				}
				fmt.Fprintf(w, "    %d  %s\n", l.Stem+1+i, ev)
			}
			fmt.Fprintf(w, "  %s\n", l.Note)
		} else if l != nil {
			fmt.Fprintf(w, "  (%s)\n", l.Note)
		}
		if t := f.Temperature; t != nil {
			fmt.Fprintf(w, "temperature: %d at step %d, verdict %s\n  %s\n", t.Threshold, t.AlarmStep, t.Verdict, t.Note)
		}
	}
	if s := r.LassoStats; s != nil {
		fmt.Fprintf(w, "%s over %s: %s\n", s.Method, plural(s.Walks, "walk"), strings.Join(s.summary(), ", "))
	}
}

func (s *LassoStats) summary() []string {
	var out []string
	if s.Method != "temperature" {
		out = append(out, plural(s.Confirmed, "lasso")+" confirmed")
		if s.Refuted > 0 {
			out = append(out, fmt.Sprintf("%d refuted", s.Refuted))
		}
		out = append(out, plural(s.Discarded, "hot fair cycle")+" discarded by replay, "+plural(s.Unfair, "unfair cycle")+" ignored")
	}
	if s.Temperature > 0 {
		out = append(out, fmt.Sprintf("%s (%d of them became live later)", plural(s.Alarms, "temperature alarm"), s.Recovered))
	}
	return out
}

// functionsOnly keeps a stack's function lines and leaves out the file
// lines (indented), whose paths depend on where the code was built.
func functionsOnly(stack string) string {
	var keep []string
	for _, line := range strings.Split(stack, "\n") {
		if !strings.HasPrefix(line, "\t") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// plural writes n with noun, in the plural unless n is 1: "1 round",
// "3 rounds".
func plural[N int | int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// writeWarnings writes what the run could not do or says the user should
// know (Report.Warnings), a line each.
func (r *Report) writeWarnings(w io.Writer) {
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}

// phaseWords names the phases in the report's summary.
var phaseWords = map[Phase]string{PhasePrefix: "prefix walk", PhasePrecheck: "precheck", PhaseSearch: "search",
	PhaseCheck: "determinism check", PhaseCritical: "critical transition", PhaseLasso: "lasso", PhaseFiles: "files"}

// phasesText says where the run's time went, e.g. " (precheck 0.35s,
// search 0.31s, determinism check 5.74s, critical transition 35.02s,
// minimization 110.07s, files 9.79s)": the minimization of the doomed path,
// which runs within the critical-transition phase, apart.
func (r *Report) phasesText() string {
	if len(r.Phases) == 0 {
		return ""
	}
	var min time.Duration
	if f := r.First(); f != nil && f.Minimized != nil {
		min = f.Minimized.Elapsed
	}
	var parts []string
	for _, pt := range r.Phases {
		d := pt.Time
		if pt.Phase == PhaseCritical && min > 0 && min <= d {
			d -= min
		}
		parts = append(parts, fmt.Sprintf("%s %.2fs", phaseWords[pt.Phase], d.Seconds()))
		if pt.Phase == PhaseCritical && min > 0 && min <= pt.Time {
			parts = append(parts, fmt.Sprintf("minimization %.2fs", min.Seconds()))
		}
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// shownNames returns names (of properties, monitors), each as
// safetext.QuoteUnsafe shows it.
func shownNames(names []string) []string {
	shown := make([]string, len(names))
	for i, n := range names {
		shown[i] = safetext.QuoteUnsafe(n)
	}
	return shown
}

// andList joins names as a sentence does: "a", "a and b", "a, b and c",
// each as safetext.QuoteUnsafe shows it.
func andList(names []string) string {
	shown := shownNames(names)
	if len(shown) < 2 {
		return strings.Join(shown, "")
	}
	return strings.Join(shown[:len(shown)-1], ", ") + " and " + shown[len(shown)-1]
}
