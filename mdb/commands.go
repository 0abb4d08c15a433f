package mdb

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// command is one mdb command.
type command struct {
	name    string
	aliases []string
	args    string
	summary string
	detail  string
	raw     bool // run gets the rest of the line unsplit
	run     func(s *Session, args []string, rest string) error
}

var commands []*command

func init() {
	commands = []*command{
		{name: "help", aliases: []string{"h", "?"}, args: "[COMMAND]", summary: "list the commands, or explain one",
			run: (*Session).cmdHelp},
		{name: "next", aliases: []string{"n"}, args: "[COUNT]", summary: "step forward (through the selected node's events only, after w)",
			detail: "On a branch, stepping past its end runs new random steps (the branch's seed).",
			run:    (*Session).cmdNext},
		{name: "prev", aliases: []string{"p"}, args: "[COUNT]", summary: "step backward (through the selected node's events only, after w)",
			run: (*Session).cmdPrev},
		{name: "jump", aliases: []string{"j"}, args: "STEP", summary: "jump to a step: N, +N, -N, crit, cycle, home, end",
			detail: "Step N is the state after N events; step 0 is the initial state. `j crit` jumps to the\ncritical step: the first dead state, reached by the critical transition. On another path it\njumps to the same step: the same dead state on a branch made after the critical step; on\none that leaves the error path just before it (the live path), the state after the\ntransition taken instead, which it says; a path that leaves earlier has no such step.\nA live path's trace (kind live) has no critical step.\n`j cycle` jumps to the first state of a lasso's cycle (a trace of macemc search --lasso):\nthe cycle's transitions follow it, marked cycle 1/L .. cycle L/L, and the last one returns\nto the state `j cycle` shows. n and p step through it; info and g show it too.",
			run:    (*Session).cmdJump},
		{name: "home", summary: "jump to step 0, the initial state", run: func(s *Session, a []string, _ string) error { return s.jumpTo("home", a) }},
		{name: "end", summary: "jump to the last step", run: func(s *Session, a []string, _ string) error { return s.jumpTo("end", a) }},
		{name: "where", aliases: []string{"."}, summary: "show the current step and its event", run: (*Session).cmdWhere},
		{name: "info", aliases: []string{"i"}, summary: "show what the traces say (system, property, critical step, depths)",
			run: (*Session).cmdInfo},
		{name: "state", aliases: []string{"st"}, args: "[NODE|net]", summary: "show every node's and monitor's state and the network, one node's, or the network's",
			run: (*Session).cmdState},
		{name: "props", summary: "show which safety and liveness properties hold at this step", run: (*Session).cmdProps},
		{name: "history", aliases: []string{"hist"}, args: "[all]", summary: "show the clients' history up to this step, and whether it is linearizable",
			detail: "The invocations and responses the clients recorded (sim.Context.Invoke, Return) up to this\nstep, marked `<-` where the current step recorded them, and the operations still pending.\nWith the system's model, the checker's verdict on the history so far and, when it is not\nlinearizable, a minimal part of it that is not. `history all` shows the whole path's history.",
			run:    (*Session).cmdHistory},
		{name: "diff", aliases: []string{"d"}, args: "[A [B]]", summary: "diff the global state between steps A and B (default: this step and the one before)",
			detail: "`-` lines are step A's, `+` lines step B's. With one step, B is the current step: `d 2` shows what\nchanged from step 2 to here, and `d -1` is `d`.",
			run:    (*Session).cmdDiff},
		{name: "filediff", aliases: []string{"m"}, args: "[STEP] [PATH]", summary: "diff the same step on the error path (-) and the live path (+)",
			detail: "Seed 003 Figure 3. STEP defaults to the current step; PATH names another path to compare\nthe error path against (see paths), by default the live path.",
			run:    (*Session).cmdFilediff},
		{name: "avail", aliases: []string{"a"}, summary: "list the events that could run next (the ready events)",
			detail: "The copy a duplication made of a datagram says so (copy made at step 5 of the datagram sent\nat step 2), and deliveries that would read alike say when their datagram was sent.",
			run:    (*Session).cmdAvail},
		{name: "branch", aliases: []string{"B"}, args: "I [SEED]", summary: "run ready event I (see a) as the next step, on a new branch",
			detail: "From the middle of a path this makes a new branch path (b1, b2, ...) and moves onto it;\nat the end of a branch it extends that branch. SEED seeds the branch's random choices\n(handler random numbers, later random steps).",
			run:    (*Session).cmdBranch},
		{name: "random", aliases: []string{"r"}, args: "N [SEED]", summary: "run N random (weighted) steps from here, on a branch",
			detail: "Failures (resets, drops, ...) are among the steps, within the trace's failure budgets; R runs without them.",
			run:    (*Session).cmdRandom},
		{name: "run", aliases: []string{"R"}, args: "[CAP] [SEED]", summary: "run random steps from here until the system is live (at most CAP)",
			detail: "Runs on a branch like random. CAP defaults to the trace's walk depth (d_max), or 20000.\nLike the search's recovery walks it injects no failures (unless the trace's walks did, --walk-failures).",
			run:    (*Session).cmdRun},
		{name: "watch", aliases: []string{"w"}, args: "[NODE|all]", summary: "select a node: n and p then step through its events only; w alone or w all deselects",
			run: (*Session).cmdWatch},
		{name: "events", aliases: []string{"e"}, args: "FILTER... [--all]", summary: "list the steps where an event occurred: by kind, message type or timer, node=N",
			detail: "Kinds: " + eventKindList() + ".\nAnything else is a message type name (Ack) or a timer name. Filters combine with AND.\nIt lists the first {limit} steps that match and says how many more there are; --all lists them all.",
			run:    (*Session).cmdEvents},
		{name: "search", aliases: []string{"s"}, args: "[REGEXP]", summary: "jump to the next step whose log lines match (again with no argument)",
			raw: true, run: (*Session).cmdSearch},
		{name: "filter", aliases: []string{"x"}, args: "[--all] REGEXP", summary: "show the path's log lines that match, with their steps",
			detail: "The log is the one macemc writes (error.log, live.log), made by replaying the path. Each line\nis shown after the step it belongs to (the log's own step= field: transition N leads to\nstep N; step=0 is the boot). Quotes around REGEXP are removed. It shows the first {limit}\nlines that match and says how many more there are; --all shows them all.",
			raw:    true, run: (*Session).cmdFilter},
		{name: "log", aliases: []string{"l"}, args: "[STEP]", summary: "show the log lines of a step (default: this one)",
			run: (*Session).cmdLog},
		{name: "graph", aliases: []string{"g"}, args: "[FROM TO | cycle] [--svg FILE] [--html FILE]", summary: "draw the event graph of a range of steps; --svg also writes it as SVG, --html the report page",
			detail: "Seed 003 Figure 4: nodes are columns, steps rows. o--->: a message from the sender's column to\nthe receiver's; o. . .x: a dropped datagram; x~~~~x: a connection break; T: a timer fires;\nA: an application request; X: a reset; !: a node learns a connection broke.\nThe default range is the ten steps around the current one; `g cycle` draws a lasso's cycle.\n--html FILE writes the report page of the error and live paths (swim lanes, states), opening at this step.\nA lasso's cycle is bracketed (┌│└) and its steps marked cycle i/L; the SVG bands it.\nWith a file, a range of more than 100 steps is not printed as text too.",
			run:    (*Session).cmdGraph},
		{name: "paths", summary: "list the paths: error, live and the branches", run: (*Session).cmdPaths},
		{name: "path", args: "NAME", summary: "move to another path (error, live, b1, ...), at the same step if it has it",
			run: (*Session).cmdPath},
		{name: "quit", aliases: []string{"q", "exit"}, summary: "leave mdb", run: func(s *Session, _ []string, _ string) error { s.done = true; return nil }},
	}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name || slices.Contains(c.aliases, name) {
			return c
		}
	}
	return nil
}

// Commands returns the names and aliases of every command, for completion.
func Commands() []string {
	var out []string
	for _, c := range commands {
		out = append(out, c.name)
		out = append(out, c.aliases...)
	}
	sort.Strings(out)
	return out
}

func (c *command) usage() string {
	names := c.name
	if len(c.aliases) > 0 {
		names += ", " + strings.Join(c.aliases, ", ")
	}
	if c.args != "" {
		return names + " " + c.args
	}
	return names
}

func (s *Session) cmdHelp(args []string, _ string) error {
	if len(args) > 0 {
		c := lookup(args[0])
		if c == nil {
			return fmt.Errorf("no command %q", args[0])
		}
		fmt.Fprintf(s.out, "%s\n  %s\n", c.usage(), c.summary)
		if c.detail != "" {
			detail := strings.ReplaceAll(c.detail, "{limit}", strconv.Itoa(s.o.Limit))
			for _, l := range strings.Split(detail, "\n") {
				fmt.Fprintln(s.out, "  "+l)
			}
		}
		return nil
	}
	fmt.Fprintln(s.out, "commands (step N is the state after N events; step 0 is the initial state):")
	for _, c := range commands {
		fmt.Fprintf(s.out, "  %-32s %s\n", c.usage(), c.summary)
	}
	fmt.Fprintln(s.out, "Separate commands with ';'. help COMMAND says more.")
	return nil
}

func (s *Session) cmdWhere(args []string, _ string) error {
	if len(args) > 0 {
		return fmt.Errorf("no arguments expected")
	}
	s.where()
	return nil
}

// printLimit is how many steps a forward move prints one by one.
const printLimit = 20

func (s *Session) cmdNext(args []string, _ string) error {
	count, err := countArg(args, 1)
	if err != nil {
		return err
	}
	p := s.p
	moved := 0
	for moved < count {
		if s.interrupted() {
			break
		}
		next := s.pos + 1
		if s.node >= 0 {
			for next <= p.steps() && !involves(p.events[next-1], s.node) {
				next++
			}
		}
		if next > p.steps() {
			if !p.branch {
				if moved > 0 {
					break
				}
				if s.node >= 0 {
					return fmt.Errorf("node %d has no event after step %d on the %s path (%d steps)", s.node, s.pos, p.name, p.steps())
				}
				return fmt.Errorf("at the end of the %s path (step %d); a lists what could run next, B I branches", p.name, p.steps())
			}
			// Run new steps on the branch until one is the node's.
			start := p.steps()
			for {
				if err := p.extend(-1); err != nil {
					if moved > 0 {
						s.where()
					}
					return err
				}
				if s.node < 0 || involves(p.events[p.steps()-1], s.node) {
					break
				}
				if p.steps()-start >= 10000 {
					p.truncate(start)
					return fmt.Errorf("node %d had no event in 10,000 new steps of the branch (they were dropped: the branch still ends at step %d)", s.node, start)
				}
			}
			next = p.steps()
		}
		if err := s.moveTo(next); err != nil {
			return err
		}
		moved++
		if count <= printLimit {
			s.where()
		}
	}
	if count > printLimit || moved == 0 {
		s.where()
	}
	if moved < count && !s.interrupted() {
		fmt.Fprintf(s.out, "(moved %d of %d: end of the path)\n", moved, count)
	}
	return nil
}

func (s *Session) cmdPrev(args []string, _ string) error {
	count, err := countArg(args, 1)
	if err != nil {
		return err
	}
	target := s.pos
	for i := 0; i < count; i++ {
		prev := target - 1
		if s.node >= 0 {
			for prev >= 1 && !involves(s.p.events[prev-1], s.node) {
				prev--
			}
			if prev < 1 {
				if i == 0 {
					return fmt.Errorf("node %d has no event before step %d", s.node, s.pos)
				}
				break
			}
		}
		if prev < 0 {
			if i == 0 {
				return fmt.Errorf("already at step 0")
			}
			break
		}
		target = prev
	}
	if err := s.moveTo(target); err != nil {
		return err
	}
	s.where()
	return nil
}

func (s *Session) cmdJump(args []string, _ string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: j STEP (N, +N, -N, crit, cycle, home, end)")
	}
	n, err := s.stepArg(args[0], s.p)
	if err != nil {
		return err
	}
	if err := s.moveTo(n); err != nil {
		return err
	}
	s.where()
	if note := s.critAlternative(s.p, n); note != "" && isCrit(args[0]) {
		fmt.Fprintln(s.out, note)
	}
	return nil
}

// isCrit reports whether a step argument names the critical step.
func isCrit(a string) bool {
	switch strings.ToLower(a) {
	case "crit", "critical", "c":
		return true
	}
	return false
}

func (s *Session) jumpTo(where string, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("no arguments expected")
	}
	return s.cmdJump([]string{where}, "")
}

func (s *Session) cmdInfo(args []string, _ string) error {
	t := s.errT
	fmt.Fprintf(s.out, "system:        %s\n", safetext.QuoteUnsafe(t.System))
	if len(t.Params) > 0 {
		fmt.Fprintf(s.out, "parameters:    %s\n", sim.Params(t.Params).Text())
	}
	fmt.Fprintf(s.out, "kind:          %s\n", t.Kind)
	if t.Property != "" {
		fmt.Fprintf(s.out, "property:      %s\n", safetext.QuoteUnsafe(t.Property))
	}
	fmt.Fprintf(s.out, "steps:         %d\n", s.paths[0].steps())
	switch {
	case s.liveKind():
		fmt.Fprintln(s.out, "critical step: none (a live path has no dead state)")
	case t.Critical >= 0 && t.Condition == "C2":
		fmt.Fprintf(s.out, "critical step: none found within the search depth (C2: the search stopped at step %d without evidence of a dead state; raise the walk depth)\n", t.Critical)
	case t.Critical >= 0:
		fmt.Fprintf(s.out, "critical step: %d (%s)\n", t.Critical, t.Condition)
	}
	if t.CycleLen > 0 {
		fmt.Fprintf(s.out, "lasso:         a stem of %s, then a cycle of %s: transitions %d-%d, from step %d back to its state (j cycle)\n",
			plural(t.CycleStart, "step"), plural(t.CycleLen, "step"), t.CycleStart+1, t.CycleStart+t.CycleLen, t.CycleStart)
	}
	fmt.Fprintf(s.out, "search depth:  %d\n", t.Depth)
	if t.WalkDepth > 0 {
		fmt.Fprintf(s.out, "walk depth:    %d\n", t.WalkDepth)
	}
	if f := s.p.cfg.Failures; f.Any() || f.Reorder {
		given := ""
		if t.Faults != "" {
			given = " (set by --faults)"
		}
		fmt.Fprintf(s.out, "faults:        %s%s\n", f, given)
	}
	if t.FailuresUntil > 0 {
		fmt.Fprintf(s.out, "failures:      off from step %d\n", t.FailuresUntil)
	}
	if t.NoFailures {
		fmt.Fprintln(s.out, "failures:      off")
	}
	fmt.Fprintf(s.out, "seed:          %d\n", t.Seed)
	if t.Tool != "" {
		fmt.Fprintf(s.out, "written by:    %s\n", t.Tool)
	}
	if t.Note != "" {
		fmt.Fprintf(s.out, "note:          %s\n", t.Note)
	}
	if s.live != nil {
		fmt.Fprintf(s.out, "live path:     %d steps, shares %d with the error path", s.live.steps(), s.shared)
		if s.liveT.Shared != s.shared {
			fmt.Fprintf(s.out, " (the trace says %d)", s.liveT.Shared)
		}
		if s.liveT.Kind != trace.KindLive {
			fmt.Fprintf(s.out, "; not a live path: its trace's kind is %q", s.liveT.Kind)
		}
		fmt.Fprintln(s.out)
	}
	return nil
}

func (s *Session) cmdState(args []string, _ string) error {
	sm, err := s.current()
	if err != nil {
		return err
	}
	if len(args) > 1 {
		return fmt.Errorf("usage: state [NODE|net]")
	}
	if len(args) == 1 && (args[0] == "net" || args[0] == "network") {
		writeNetwork(s.out, sm)
		return nil
	}
	if len(args) == 1 && args[0] != "all" {
		n, err := s.nodeArg(args[0])
		if err != nil {
			return err
		}
		fmt.Fprint(s.out, sm.NodeText(sim.NodeID(n)))
		return nil
	}
	if len(args) == 0 && s.node >= 0 {
		fmt.Fprint(s.out, sm.NodeText(sim.NodeID(s.node)))
		return nil
	}
	for i := 0; i < sm.Nodes(); i++ {
		fmt.Fprint(s.out, sm.NodeText(sim.NodeID(i)))
	}
	for i := 0; i < sm.Monitors(); i++ {
		fmt.Fprint(s.out, sm.MonitorText(i))
	}
	writeNetwork(s.out, sm)
	return nil
}

func writeNetwork(w io.Writer, sm *engine.Sim) {
	net := sm.NetworkText()
	if net == "" {
		fmt.Fprintln(w, "network: nothing in flight")
		return
	}
	fmt.Fprintln(w, "network:")
	for _, l := range splitLines(net) {
		fmt.Fprintln(w, "  "+l)
	}
}

func (s *Session) cmdHistory(args []string, _ string) error {
	sm, err := s.current()
	if err != nil {
		return err
	}
	at := s.pos
	switch {
	case len(args) == 1 && args[0] == "all":
		if sm, err = s.p.at(s.p.steps()); err != nil {
			return err
		}
		at = s.p.steps()
	case len(args) > 0:
		return fmt.Errorf("usage: history [all]")
	}
	h := sm.History()
	if len(h) == 0 {
		fmt.Fprintf(s.out, "no client history at step %d\n", at)
		return nil
	}
	fmt.Fprintf(s.out, "history at step %d (%s):\n", at, plural(len(h), "event"))
	lines := strings.Split(strings.TrimSuffix(engine.HistoryText(h), "\n"), "\n")
	for i, l := range lines {
		mark := ""
		if h[i].Step == s.pos && s.pos > 0 {
			mark = "  <-"
		}
		fmt.Fprintf(s.out, "  %s%s\n", l, mark)
	}
	open := map[int]sim.HistoryEvent{}
	for _, e := range h {
		if e.Kind == sim.Invocation {
			open[e.Client] = e
		} else {
			delete(open, e.Client)
		}
	}
	if len(open) > 0 {
		clients := slices.Sorted(maps.Keys(open))
		for _, c := range clients {
			fmt.Fprintf(s.out, "pending: client %d's %s (invoked at step %d)\n", c, engine.FormatValue(open[c].Value), open[c].Step)
		}
	}
	m := s.p.cfg.Model
	if m == nil {
		fmt.Fprintln(s.out, "(the system has no model: linearizability is not checked)")
		return nil
	}
	c := lin.New(m, 0)
	switch v := c.Check(lin.Key(h), h); v {
	case lin.Illegal:
		fmt.Fprintln(s.out, "NOT LINEARIZABLE; a minimal part that is not:")
		for _, l := range strings.Split(strings.TrimSuffix(engine.HistoryText(c.Minimize(h)), "\n"), "\n") {
			fmt.Fprintf(s.out, "  %s\n", l)
		}
	case lin.Unknown:
		fmt.Fprintf(s.out, "linearizable: unknown (the checker timed out)\n")
	default:
		fmt.Fprintln(s.out, "linearizable (operations still pending may take effect or not)")
	}
	return nil
}

func (s *Session) cmdProps(args []string, _ string) error {
	sm, err := s.current()
	if err != nil {
		return err
	}
	cfg := s.p.cfg
	// A monitor whose Handle panicked at this step was unwound mid-event:
	// its properties say nothing of it here.
	monitor := s.panickedMonitor()
	panicked := false
	show := func(kind string, ps []sim.Property) bool {
		all := true
		if len(ps) == 0 {
			fmt.Fprintf(s.out, "%s: none\n", kind)
			return false
		}
		fmt.Fprintf(s.out, "%s:\n", kind)
		for i := range ps {
			ok, err := sm.Holds(&ps[i])
			v := "holds"
			switch {
			case monitor != nil && ps[i].Name == monitor.Monitor:
				v = fmt.Sprintf("PANICKED at this step, in its Handle (notified by node %d's handler): not checked, the panic unwound it", monitor.Node)
				panicked = panicked || kind == "liveness"
			case err != nil:
				v, all = "error: "+err.Error(), false
			case !ok:
				v, all = "VIOLATED", false
			}
			fmt.Fprintf(s.out, "  %-24s %s\n", safetext.QuoteUnsafe(ps[i].Name), v)
		}
		return all
	}
	var live bool
	if err := s.p.guarded(sm, func() error {
		show("safety", cfg.Safety)
		live = show("liveness", cfg.Liveness)
		return nil
	}); err != nil {
		fmt.Fprintln(s.out)
		return err
	}
	switch {
	case live && !panicked:
		fmt.Fprintf(s.out, "step %d is live\n", s.pos)
	case live:
		fmt.Fprintf(s.out, "step %d is not known to be live: monitor %s panicked at it\n", s.pos, safetext.QuoteUnsafe(monitor.Monitor))
	case len(cfg.Liveness) > 0:
		fmt.Fprintf(s.out, "step %d is not live\n", s.pos)
	}
	return nil
}

// panickedMonitor returns the panic of a monitor's Handle that ends the
// current path at the current step, or nil.
func (s *Session) panickedMonitor() *engine.HandlerPanicError {
	var hp *engine.HandlerPanicError
	if s.pos != s.p.steps() || !errors.As(s.p.endErr, &hp) || hp.Monitor == "" {
		return nil
	}
	return hp
}

// stateAt returns the text sections of step n of path p.
func (s *Session) stateAt(p *path, n int) ([]section, error) {
	sm, err := p.at(n)
	if err != nil {
		return nil, err
	}
	return stateSections(sm), nil
}

func (s *Session) cmdDiff(args []string, _ string) error {
	var a, b int
	var err error
	switch len(args) {
	case 0:
		if s.pos == 0 {
			return fmt.Errorf("at step 0 there is no step before; give two steps")
		}
		a, b = s.pos-1, s.pos
	case 1:
		b = s.pos
		if a, err = s.stepArg(args[0], s.p); err != nil {
			return err
		}
	case 2:
		if a, err = s.stepArg(args[0], s.p); err != nil {
			return err
		}
		if b, err = s.stepArg(args[1], s.p); err != nil {
			return err
		}
	default:
		return fmt.Errorf("usage: d [A [B]]")
	}
	x, err := s.stateAt(s.p, a)
	if err != nil {
		return err
	}
	y, err := s.stateAt(s.p, b)
	if err != nil {
		return err
	}
	writeStateDiff(s.out, x, y, fmt.Sprintf("step %d", a), fmt.Sprintf("step %d", b), s.o.Color)
	return nil
}

func (s *Session) cmdFilediff(args []string, _ string) error {
	ep := s.paths[0]
	other := s.live
	n := s.pos
	for _, a := range args {
		if _, err := strconv.Atoi(a); err == nil || strings.HasPrefix(a, "+") || strings.HasPrefix(a, "-") || lookupStepWord(a) {
			v, err := s.stepArg(a, ep)
			if err != nil {
				return err
			}
			n = v
			continue
		}
		p, err := s.pathByName(a)
		if err != nil {
			return err
		}
		other = p
	}
	if other == nil {
		if s.liveErr != nil {
			return fmt.Errorf("no live path to compare with: %w; name a branch instead", s.liveErr)
		}
		if c := s.errT.Critical; c > 0 && s.errT.Condition == "C1" {
			// A dead path whose state before the critical transition is
			// live itself has no live alternative to write.
			return fmt.Errorf("no live path to compare with: none is open (a run writes live.trace only when it found a live alternative, which it has none of when the state before the critical step %d is live itself: 'j %d' then 'props' says); 'd %d %d' compares the states on either side of it; or give --live, or name a branch", c, c-1, c-1, c)
		}
		return fmt.Errorf("no live path to compare with: open a macemc output directory with live.trace, give --live, or name a branch")
	}
	if other == ep {
		return fmt.Errorf("compare the error path with another path (live or a branch)")
	}
	if n > ep.steps() || n > other.steps() {
		return fmt.Errorf("step %d is beyond the error path (%d steps) or the %s path (%d steps)", n, ep.steps(), other.name, other.steps())
	}
	common := shared(ep, other)
	if n > common {
		fmt.Fprintf(s.out, "the paths part after step %d:\n  error step %d: %s\n  %s step %d: %s\n", common,
			common+1, ep.events[common].String(), other.name, common+1, other.events[common].String())
	}
	x, err := s.stateAt(ep, n)
	if err != nil {
		return err
	}
	y, err := s.stateAt(other, n)
	if err != nil {
		return err
	}
	if !writeStateDiff(s.out, x, y, fmt.Sprintf("error step %d", n), fmt.Sprintf("%s step %d", other.name, n), s.o.Color) && n <= common {
		fmt.Fprintf(s.out, "(the paths share their first %d steps)\n", common)
	}
	return nil
}

func lookupStepWord(a string) bool {
	switch strings.ToLower(a) {
	case "crit", "critical", "c", "cycle", "cyc", "loop", "home", "first", "start", "end", "last", ".", "here", "^", "$":
		return true
	}
	return false
}

func (s *Session) cmdAvail(args []string, _ string) error {
	p := s.p
	sm, err := s.current()
	if err != nil {
		return err
	}
	if s.pos == p.steps() && p.endErr != nil {
		return fmt.Errorf("the path ends with an error at this step: %v", p.endErr)
	}
	ready := sm.Ready()
	if len(ready) == 0 {
		fmt.Fprintf(s.out, "nothing is ready at step %d: the system is quiescent\n", s.pos)
		return nil
	}
	taken := -1
	if s.pos < p.steps() {
		taken = int(p.choices[p.starts[s.pos]])
	}
	fmt.Fprintf(s.out, "ready at step %d (%s):\n", s.pos, plural(len(ready), "event"))
	// Equal datagrams in flight read alike: a copy says so, and events
	// that would read alike say when their datagram was sent.
	same := map[string]int{}
	for _, ev := range ready {
		same[ev.String()]++
	}
	for i, ev := range ready {
		note := ""
		switch ev.Kind {
		case engine.EvMessage, engine.EvDatagram, engine.EvDrop, engine.EvDuplicate:
			if ev.CopiedAt() >= 0 || same[ev.String()] > 1 {
				note = " (" + provenance(ev) + ")"
			}
		}
		if ev.Kind.IsFailure() {
			note += " (failure)"
		}
		if i == taken {
			note += fmt.Sprintf("  <- the %s path's step %d", p.name, s.pos+1)
		}
		fmt.Fprintf(s.out, "  [%d] %s%s\n", i, ev, note)
	}
	return nil
}

// branchHere returns the path new steps run on: the current branch when at
// its end, or a new branch from the current step, which becomes current.
func (s *Session) branchHere(seed string) (*path, bool, error) {
	var sd uint64
	hasSeed := false
	if seed != "" {
		v, err := strconv.ParseUint(seed, 10, 64)
		if err != nil {
			return nil, false, fmt.Errorf("%q is not a seed (a non-negative integer)", seed)
		}
		sd, hasSeed = v, true
	}
	if s.p.branch && s.pos == s.p.steps() {
		if hasSeed {
			s.p.seed, s.p.rng = sd, engine.NewRandom(sd)
		}
		return s.p, false, nil
	}
	s.nbranch++
	if !hasSeed {
		sd = uint64(s.nbranch)
	}
	q, err := s.p.fork(s.pos, "b"+strconv.Itoa(s.nbranch), sd)
	if err != nil {
		s.nbranch--
		return nil, false, err
	}
	q.origin = fmt.Sprintf("branch of %s at step %d", s.p.name, s.pos)
	fmt.Fprintf(s.out, "%s: a branch of %s at step %d (seed %d)\n", q.name, s.p.name, s.pos, q.seed)
	s.paths = append(s.paths, q)
	s.p = q
	return q, true, nil
}

func (s *Session) cmdBranch(args []string, _ string) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("usage: B I [SEED] (a lists the ready events)")
	}
	i, err := strconv.Atoi(args[0])
	if err != nil || i < 0 {
		return fmt.Errorf("%q is not an event index (a lists them)", args[0])
	}
	sm, err := s.current()
	if err != nil {
		return err
	}
	ready := sm.Ready()
	if i >= len(ready) {
		if len(ready) == 0 {
			return fmt.Errorf("nothing is ready at step %d", s.pos)
		}
		if len(ready) == 1 {
			return fmt.Errorf("there is 1 ready event (0); a lists it")
		}
		return fmt.Errorf("there are %d ready events (0-%d); a lists them", len(ready), len(ready)-1)
	}
	seed := ""
	if len(args) == 2 {
		seed = args[1]
	}
	fromPos := s.pos
	q, isNew, err := s.branchHere(seed)
	if err != nil {
		return err
	}
	err = q.extend(i)
	if q.steps() > fromPos {
		s.pos = fromPos + 1
	}
	if isNew {
		q.origin += fmt.Sprintf(" taking [%d]", i)
	}
	s.where()
	return err
}

// runRandom runs up to n new steps on the branch from the current step,
// stopping early when stop says so, at a safety violation or when nothing
// is ready. It returns why it stopped ("" when it ran all n).
func (s *Session) runRandom(n int, seed string, stop func(*engine.Sim) bool, recovery bool) (*path, int, string, error) {
	q, _, err := s.branchHere(seed)
	if err != nil {
		return nil, 0, "", err
	}
	if recovery {
		q.recover()
	}
	from := s.pos
	why := ""
	for i := 0; i < n; i++ {
		if s.interrupted() {
			why = "interrupted"
			break
		}
		if err := q.extend(-1); err != nil {
			if err == errQuiescent {
				why = "nothing is ready: the system is quiescent"
				break
			}
			s.pos = q.steps()
			return q, from, "", err
		}
		sm, err := q.at(q.steps())
		if err != nil {
			return q, from, "", err
		}
		i, stopped := -1, false
		if err := q.guarded(sm, func() error {
			var err error
			if i, err = sm.FirstViolated(q.cfg.Safety); err != nil {
				return err
			}
			stopped = i < 0 && stop != nil && stop(sm)
			return nil
		}); err != nil {
			why = err.Error()
			break
		}
		if i >= 0 {
			why = "safety property " + safetext.QuoteUnsafe(q.cfg.Safety[i].Name) + " is violated"
			break
		}
		if stopped {
			why = "stop"
			break
		}
	}
	s.pos = q.steps()
	return q, from, why, nil
}

func (s *Session) cmdRandom(args []string, _ string) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("usage: random N [SEED]")
	}
	n, err := countArg(args[:1], 0)
	if err != nil {
		return err
	}
	seed := ""
	if len(args) == 2 {
		seed = args[1]
	}
	q, from, why, err := s.runRandom(n, seed, nil, false)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "ran %s from step %d on %s", plural(q.steps()-from, "random step"), from, q.name)
	if why != "" {
		fmt.Fprintf(s.out, "; stopped: %s", why)
	}
	fmt.Fprintln(s.out)
	s.where()
	return nil
}

func (s *Session) cmdRun(args []string, _ string) error {
	if len(args) > 2 {
		return fmt.Errorf("usage: R [CAP] [SEED]")
	}
	cfg := s.p.cfg
	if len(cfg.Liveness) == 0 {
		return fmt.Errorf("the system has no liveness properties: nothing to run to")
	}
	limit := min(s.errT.WalkDepth, maxCount)
	if limit <= 0 {
		limit = 20000
	}
	if len(args) >= 1 {
		v, err := countArg(args[:1], 0)
		if err != nil {
			return err
		}
		limit = v
	}
	seed := ""
	if len(args) == 2 {
		seed = args[1]
	}
	sm, err := s.current()
	if err != nil {
		return err
	}
	var ok bool
	if err := s.p.guarded(sm, func() error { ok, _ = sm.AllHold(cfg.Liveness); return nil }); err != nil {
		return err
	}
	if ok {
		fmt.Fprintf(s.out, "step %d is already live\n", s.pos)
		return nil
	}
	live := func(sm *engine.Sim) bool { ok, _ := sm.AllHold(cfg.Liveness); return ok }
	// The critical step speaks of the error path's states: of this
	// path's up to where it leaves the error path, and of all its later
	// ones if it leaves after the critical step (they descend from a dead
	// state).
	shared := sharedSteps(s.p, s.paths[0])
	q, from, why, err := s.runRandom(limit, seed, live, true)
	if err != nil {
		return err
	}
	switch why {
	case "stop":
		fmt.Fprintf(s.out, "live at step %d on %s, after %s from step %d (seed %d)\n", q.steps(), q.name, plural(q.steps()-from, "random step"), from, q.seed)
		if c := s.critStep(); c >= 0 && s.errT.Condition == "C1" && sharedSteps(q, s.paths[0]) >= c {
			// This execution passed through the error path's state c.
			fmt.Fprintf(s.out, "note: this execution passes through the error path's state %d, after its critical transition, and still became live: "+
				"state %d is not dead but near dead (seed 003 §4.4: it recovers too rarely for the walks that took it for dead); the step of no return is later: "+
				"`critical --trace` with a larger --walks or --confirm-budget searches again\n", c, c)
		}
	case "":
		fmt.Fprintf(s.out, "not live after %s from step %d (seed %d)", plural(q.steps()-from, "random step"), from, q.seed)
		if c := s.critStep(); c >= 0 && s.errT.Condition == "C1" {
			switch {
			case from >= c && shared >= c:
				fmt.Fprintf(s.out, "; step %d is at or after the critical step %d", from, c)
			case from < c && from <= shared:
				fmt.Fprintf(s.out, "; the critical step is %d", c)
			default:
				fmt.Fprintf(s.out, "; this path left the error path after step %d, before its critical step %d", shared, c)
			}
		}
		fmt.Fprintln(s.out)
	default:
		fmt.Fprintf(s.out, "not live: stopped after %s from step %d: %s\n", plural(q.steps()-from, "random step"), from, why)
	}
	s.where()
	return nil
}

func (s *Session) cmdWatch(args []string, _ string) error {
	if len(args) > 1 {
		return fmt.Errorf("usage: w [NODE|all]")
	}
	if len(args) == 0 || args[0] == "all" || args[0] == "none" {
		if s.node >= 0 {
			fmt.Fprintf(s.out, "node %d deselected: n and p step through every event\n", s.node)
		} else {
			fmt.Fprintln(s.out, "no node selected")
		}
		s.node = -1
		return nil
	}
	n, err := s.nodeArg(args[0])
	if err != nil {
		return err
	}
	s.node = n
	count := 0
	for _, ev := range s.p.events {
		if involves(ev, n) {
			count++
		}
	}
	fmt.Fprintf(s.out, "node %d selected: n and p step through its %s on the %s path\n", n, plural(count, "event"), s.p.name)
	return nil
}

func (s *Session) cmdEvents(args []string, _ string) error {
	all := false
	var filters []func(engine.Event) bool
	var names map[string]bool
	for _, a := range args {
		if a == "--all" {
			all = true
			continue
		}
		if v, ok := strings.CutPrefix(a, "node="); ok {
			n, err := s.nodeArg(v)
			if err != nil {
				return err
			}
			filters = append(filters, func(ev engine.Event) bool { return involves(ev, n) })
			continue
		}
		if a == "failure" || a == "failures" {
			filters = append(filters, func(ev engine.Event) bool { return ev.Kind.IsFailure() })
			continue
		}
		if k, ok := engine.ParseEventKind(a); ok {
			filters = append(filters, func(ev engine.Event) bool { return ev.Kind == k })
			continue
		}
		if names == nil {
			names = map[string]bool{}
			for _, ev := range s.p.events {
				if n := eventName(ev); n != "" {
					names[n] = true
				}
			}
		}
		if !names[a] {
			var known []string
			for n := range names {
				known = append(known, safetext.QuoteUnsafe(n))
			}
			sort.Strings(known)
			return fmt.Errorf("%q is no event kind, and no message type or timer on the %s path (kinds: %s; types and timers: %s; nodes: node=N)",
				a, s.p.name, eventKindList(), strings.Join(known, ", "))
		}
		filters = append(filters, func(ev engine.Event) bool { return eventName(ev) == a })
	}
	if len(filters) == 0 {
		return fmt.Errorf("usage: events FILTER... (a kind, a message type, a timer, node=N)")
	}
	var hits []int
	for i, ev := range s.p.events {
		ok := true
		for _, f := range filters {
			if !f(ev) {
				ok = false
				break
			}
		}
		if ok {
			hits = append(hits, i+1)
		}
	}
	if len(hits) == 0 {
		fmt.Fprintf(s.out, "no step of the %s path matches\n", s.p.name)
		return nil
	}
	fmt.Fprintf(s.out, "%s:\n", plural(len(hits), "step"))
	for j, n := range hits {
		if !all && j == s.o.Limit {
			fmt.Fprintf(s.out, "... %d more (events ... --all lists them all)\n", len(hits)-j)
			break
		}
		fmt.Fprintf(s.out, "%s%6d  %s%s\n", mark(s, n), n, s.p.events[n-1], s.tags(s.p, n))
	}
	return nil
}

// eventKindList lists the kinds events accepts: every kind of event
// (engine.EventKinds) and failure, any injected failure.
func eventKindList() string {
	var names []string
	for _, k := range engine.EventKinds() {
		names = append(names, k.String())
	}
	return strings.Join(append(names, "failure"), ", ")
}

// mark flags the current step in listings.
func mark(s *Session, n int) string {
	if n == s.pos {
		return ">"
	}
	return " "
}

// eventName returns the message type, request type or timer of an event.
func eventName(ev engine.Event) string {
	switch ev.Kind {
	case engine.EvMessage, engine.EvDatagram, engine.EvDrop, engine.EvApp:
		if ev.Msg != nil {
			return sim.MessageName(ev.Msg)
		}
	case engine.EvTimer:
		return ev.Timer
	}
	return ""
}

func (s *Session) cmdSearch(_ []string, rest string) error {
	rest = unquote(rest)
	if rest != "" {
		re, err := compile(rest)
		if err != nil {
			return err
		}
		s.search = re
	}
	if s.search == nil {
		return fmt.Errorf("usage: s REGEXP (then s alone finds the next match)")
	}
	l, err := s.logOf(s.p)
	if err != nil {
		return err
	}
	for i := l.first[min(s.pos+1, len(l.first)-1)]; i < len(l.lines); i++ {
		if s.search.MatchString(l.lines[i]) {
			n := l.stepOfLine(i)
			if err := s.moveTo(n); err != nil {
				return err
			}
			fmt.Fprintf(s.out, "%6d  %s\n", n, l.lines[i])
			s.where()
			return nil
		}
	}
	return fmt.Errorf("no log line after step %d matches %s", s.pos, s.search)
}

func (s *Session) cmdFilter(_ []string, rest string) error {
	all := false
	if r, ok := strings.CutPrefix(rest, "--all"); ok && (r == "" || r[0] == ' ') {
		all, rest = true, strings.TrimSpace(r)
	}
	re, err := compile(unquote(rest))
	if err != nil {
		return err
	}
	l, err := s.logOf(s.p)
	if err != nil {
		return err
	}
	shown, total := 0, 0
	for i, line := range l.lines {
		if !re.MatchString(line) {
			continue
		}
		total++
		if all || shown < s.o.Limit {
			fmt.Fprintf(s.out, "%6d  %s\n", l.stepOfLine(i), line)
			shown++
		}
	}
	switch {
	case total == 0:
		fmt.Fprintf(s.out, "no log line of the %s path matches\n", s.p.name)
	case shown < total:
		fmt.Fprintf(s.out, "... %d more (x --all REGEXP shows them all)\n", total-shown)
	}
	return nil
}

func (s *Session) cmdLog(args []string, _ string) error {
	n := s.pos
	if len(args) > 1 {
		return fmt.Errorf("usage: log [STEP]")
	}
	if len(args) == 1 {
		v, err := s.stepArg(args[0], s.p)
		if err != nil {
			return err
		}
		n = v
	}
	l, err := s.logOf(s.p)
	if err != nil {
		return err
	}
	lines := l.stepLines(n)
	if len(lines) == 0 {
		fmt.Fprintf(s.out, "step %d wrote no log lines\n", n)
	}
	for _, line := range lines {
		fmt.Fprintf(s.out, "%6d  %s\n", n, line)
	}
	return nil
}

func (s *Session) cmdPaths(args []string, _ string) error {
	for _, p := range s.paths {
		cur := " "
		if p == s.p {
			cur = "*"
		}
		desc := ""
		switch {
		case p == s.paths[0]:
			desc = strings.TrimPrefix(s.critText(), ", ")
		case p == s.live:
			desc = fmt.Sprintf("shares %s with the error path", plural(s.shared, "step"))
		default:
			desc = p.origin + ", " + p.seedText()
		}
		if p.file != "" {
			desc += "; " + p.file
		}
		fmt.Fprintf(s.out, "%s %-6s %6d steps  %s\n", cur, p.name, p.steps(), desc)
	}
	return nil
}

func (s *Session) cmdPath(args []string, _ string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: path NAME (paths lists them)")
	}
	p, err := s.pathByName(args[0])
	if err != nil {
		return err
	}
	n := min(s.pos, p.steps())
	if _, err := p.at(n); err != nil {
		return err
	}
	s.p, s.pos = p, n
	s.where()
	return nil
}
