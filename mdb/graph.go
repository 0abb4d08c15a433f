package mdb

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// sendRec is one message or datagram a step sent, or a copy of a datagram
// a duplication made.
type sendRec struct {
	step     int // the step that sent it or made the copy (0: the initial state)
	from, to int
	text     string // engine.FormatValue of the message
	typ      string
	datagram bool
	// copyOf is, for a copy, the step that sent the datagram it copies;
	// -1 for a message or datagram as sent.
	copyOf int
	end    int    // the step that delivered, dropped or lost it; 0: none in the window
	fate   string // "received", "dropped", "lost" (a break, a crash, a partition)
	// how says how a lost message was lost, e.g. "lost: node 2 crashed
	// at step 7", and short in a word or two, for the SVG's label.
	how, short string
	// lostAs is, for a message the simulator lost as it was sent, why:
	// "node down" or "partition" (the simulator's log).
	lostAs string
}

// lose ends sr at step n, lost.
func (sr *sendRec) lose(n int, how, short string) {
	sr.end, sr.fate, sr.how, sr.short = n, "lost", how, short
}

// describe describes sr in a sentence from the start of the range from
// on: what it is, between which nodes, where it comes from and its end,
// e.g. "datagram Put{N: 1} from node 0 to node 1, sent at step 2, received
// at step 4", or "..., lost: node 1 crashed at step 3"; to is the range's
// end, after which it is in flight.
func (sr *sendRec) describe(from, to int) string {
	desc := fmt.Sprintf("%s from node %d to node %d", sr.text, sr.from, sr.to)
	if sr.datagram {
		desc = "datagram " + desc
	}
	verb := "sent"
	if sr.copyOf >= 0 {
		desc, verb = "a copy of "+desc, "made"
	}
	desc += fmt.Sprintf(", %s at step %d", verb, sr.step)
	if sr.step < from {
		desc += " (before the range)"
	}
	if sr.copyOf >= 0 {
		desc += fmt.Sprintf(" from the datagram sent at step %d", sr.copyOf)
	}
	switch {
	case sr.end <= 0 || sr.end > to:
		desc += ", in flight"
	case sr.fate == "lost":
		desc += ", " + sr.how
	default:
		desc += fmt.Sprintf(", %s at step %d", sr.fate, sr.end)
	}
	return desc
}

// sentAt returns the step that sent the message or datagram of a
// delivery, drop or duplication ev, and the step that made ev's datagram
// by duplicating it (-1 when it is no copy).
func sentAt(ev engine.Event) (sent, copied int) {
	copied = ev.CopiedAt()
	if copied >= 0 {
		copied++
	}
	return int(ev.Cause) + 1, copied
}

// provenance describes where the message of a delivery, drop or
// duplication ev comes from, e.g. "sent at step 2" or "copy made at step 5
// of the datagram sent at step 2".
func provenance(ev engine.Event) string {
	sent, copied := sentAt(ev)
	if copied >= 0 {
		return fmt.Sprintf("copy made at step %d of the datagram sent at step %d", copied, sent)
	}
	return fmt.Sprintf("sent at step %d", sent)
}

// is reports whether sr is the message or datagram delivery or drop ev
// takes: the same ends, kind and text, sent by the step ev says
// (Event.Cause), and the same copy (Event.CopiedAt). Equal payloads sent
// by different steps, and a copy and its original, are told apart however
// they overtake each other.
func (sr *sendRec) is(ev engine.Event) bool {
	if sr.fate != "" || sr.from != int(ev.Peer) || sr.to != int(ev.Node) || sr.datagram != (ev.Kind != engine.EvMessage) {
		return false
	}
	sent, copied := sentAt(ev)
	if copied >= 0 {
		if sr.copyOf != sent || sr.step != copied {
			return false
		}
	} else if sr.copyOf >= 0 || sr.step != sent {
		return false
	}
	return sr.text == engine.FormatValue(ev.Msg)
}

// stepRec is what one step did, for the event graph.
type stepRec struct {
	n      int
	ev     engine.Event
	sends  []*sendRec
	timers []string   // "set retx", "cancel retx"
	recv   *sendRec   // the send a delivery or drop consumed; nil if sent before the window
	lost   []*sendRec // what a break, a crash or a partition lost in flight
	// lostBefore is what it lost that was sent before the replay's
	// first step (the simulator's log says what), as "Ack{N: 1} from
	// node 0 to node 1".
	lostBefore []string
	// replayed is the first step the graph replayed.
	replayed int
}

// graph is the data of an event graph over steps from..to of a path.
type graph struct {
	p        *path
	from, to int
	nodes    []string // "node 0 (Sender)"
	steps    []*stepRec
	sends    []*sendRec // every send and copy of the window, in order
	crit     int
	cur      int
	// A lasso's cycle: transitions cycStart+1 .. cycStart+cycLen
	// (cycLen 0: none).
	cycStart, cycLen int
}

// cycleIndex returns i when step n is transition i (1..cycLen) of the
// lasso's cycle, else 0.
func (g *graph) cycleIndex(n int) int {
	if g.cycLen > 0 && n > g.cycStart && n <= g.cycStart+g.cycLen {
		return n - g.cycStart
	}
	return 0
}

// cycleShown returns the range of the cycle's transitions within the
// graph's steps; ok is false when they do not meet.
func (g *graph) cycleShown() (a, b int, ok bool) {
	a, b = max(g.from, g.cycStart+1), min(g.to, g.cycStart+g.cycLen)
	return a, b, g.cycLen > 0 && a <= b
}

// cycleText describes the lasso's cycle.
func (g *graph) cycleText() string {
	return fmt.Sprintf("the lasso's cycle: transitions %d-%d (%s), from step %d back to its state", g.cycStart+1, g.cycStart+g.cycLen, plural(g.cycLen, "step"), g.cycStart)
}

// captureWriter receives the simulator's log as zerolog JSON and keeps the
// sends, timer changes and losses of the step being replayed.
type captureWriter struct {
	step  int
	sends []*sendRec
	tm    map[int][]string
	// lost are the messages the step's event lost in flight, as the log
	// names them: "Ack{N: 1} from node 0 to node 1".
	lost []string
}

type logEntry struct {
	Message string `json:"message"`
	Node    *int   `json:"node"`
	To      *int   `json:"to"`
	Type    string `json:"type"`
}

func (w *captureWriter) Write(b []byte) (int, error) {
	var e logEntry
	if err := json.Unmarshal(b, &e); err != nil || e.Node == nil {
		return len(b), nil
	}
	switch {
	case e.To != nil && strings.HasPrefix(e.Message, "send datagram "):
		w.sends = append(w.sends, &sendRec{step: w.step, from: *e.Node, to: *e.To, typ: e.Type, datagram: true, text: strings.TrimPrefix(e.Message, "send datagram "), copyOf: -1})
	case e.To != nil && strings.HasPrefix(e.Message, "send "):
		w.sends = append(w.sends, &sendRec{step: w.step, from: *e.Node, to: *e.To, typ: e.Type, text: strings.TrimPrefix(e.Message, "send "), copyOf: -1})
	case strings.HasPrefix(e.Message, "set timer "), strings.HasPrefix(e.Message, "cancel timer "):
		w.tm[w.step] = append(w.tm[w.step], e.Message)
	case e.To != nil && strings.HasPrefix(e.Message, "lost ("):
		// The simulator logs a message it loses as it is sent (to a
		// crashed node, a datagram across a partition) right after its
		// send, and what a crash, a break or a partition loses in flight
		// at that event.
		why, text, _ := strings.Cut(strings.TrimPrefix(e.Message, "lost ("), ") ")
		if n := len(w.sends); n > 0 && (why == "node down" || why == "partition") {
			if sr := w.sends[n-1]; sr.lostAs == "" && sr.from == *e.Node && sr.to == *e.To && sr.text == text {
				sr.lostAs = why
				break
			}
		}
		w.lost = append(w.lost, fmt.Sprintf("%s from node %d to node %d", text, *e.Node, *e.To))
	}
	return len(b), nil
}

// graphWindow is how many steps before the range the graph replays to find
// where the messages delivered or lost in the range were sent. A variable
// only for the tests (SetGraphWindow in export_test.go), which show what g
// says of a message sent before the replay.
var graphWindow = 64

// makeGraph replays steps from..to of p (and some before, to find where
// messages were sent) with the simulator's log captured.
func (s *Session) makeGraph(p *path, from, to int) (*graph, error) {
	g := &graph{p: p, from: from, to: to, crit: -1, cur: -1}
	if p == s.paths[0] {
		g.crit = s.critStep()
	}
	if p == s.p {
		g.cur = s.pos
	}
	if start, n, ok := s.cycle(p); ok {
		g.cycStart, g.cycLen = start, n
	}
	w := &captureWriter{tm: map[int][]string{}}
	logger := zerolog.New(w)
	start := max(0, from-1-graphWindow) / p.k
	var sm *engine.Sim
	var err error
	if start == 0 {
		opts := p.opts
		opts.Chooser, opts.Logger = engine.NewRecorded(p.choices), &logger
		if sm, err = engine.New(p.cfg, opts); err != nil && !(sm != nil && p.steps() == 0 && p.endErr != nil) {
			return nil, err
		}
	} else {
		snap := p.snaps[start]
		sm = snap.Clone(engine.NewRecorded(p.choices[p.choiceAt(snap.Steps()):]))
		sm.SetLogger(&logger)
	}
	for i := 0; i < sm.Nodes(); i++ {
		title, _, _ := strings.Cut(sm.NodeText(sim.NodeID(i)), "\n")
		g.nodes = append(g.nodes, title)
	}
	pending := w.sends // sends of the initial state
	replayed := sm.Steps() + 1
	// The step each crashed node crashed at, and that of the partition
	// that holds, as far as the replay saw them (0: before it).
	crashed := map[int]int{}
	partition := 0
	for sm.Steps() < to {
		if s.interrupted() {
			return nil, errInterrupted
		}
		n := sm.Steps() + 1
		w.step = n
		w.sends, w.lost = nil, nil
		before := sm.Steps()
		_, err := sm.Step()
		if err != nil && !(sm.Steps() == p.steps() && p.endErr != nil) {
			return nil, fmt.Errorf("replay step %d: %w", n, err)
		}
		if sm.Steps() == before {
			return nil, fmt.Errorf("replay stuck at step %d", before)
		}
		ev := sm.LastEvent()
		rec := &stepRec{n: n, ev: ev, sends: w.sends, timers: w.tm[n], replayed: replayed}
		switch ev.Kind {
		case engine.EvMessage, engine.EvDatagram, engine.EvDrop:
			for _, sr := range pending {
				if sr.is(ev) {
					sr.end, sr.fate = n, "received"
					if ev.Kind == engine.EvDrop {
						sr.fate = "dropped"
					}
					rec.recv = sr
					break
				}
			}
		case engine.EvDuplicate:
			// The copy joins what is in flight, from the original's
			// sender, made at this step.
			sent, _ := sentAt(ev)
			pending = append(pending, &sendRec{step: n, from: int(ev.Peer), to: int(ev.Node), typ: sim.MessageName(ev.Msg),
				datagram: true, text: engine.FormatValue(ev.Msg), copyOf: sent})
		case engine.EvBreak:
			// What was in flight on the connection, both ways.
			a, b := int(ev.Node), int(ev.Peer)
			how, short := rec.lostHow()
			for _, sr := range pending {
				if sr.fate == "" && !sr.datagram && (sr.from == a && sr.to == b || sr.from == b && sr.to == a) {
					sr.lose(n, how, short)
					rec.lost = append(rec.lost, sr)
				}
			}
		case engine.EvCrash:
			// What was on its way to the node, and the messages on its
			// connections either way; its datagrams in flight are still
			// delivered.
			a := int(ev.Node)
			crashed[a] = n
			how, short := rec.lostHow()
			for _, sr := range pending {
				if sr.fate == "" && (sr.to == a || !sr.datagram && sr.from == a) {
					sr.lose(n, how, short)
					rec.lost = append(rec.lost, sr)
				}
			}
		case engine.EvPartition:
			// The datagrams in flight across the split; the messages
			// across it are held until it heals.
			partition = n
			side := ev.Side()
			how, short := rec.lostHow()
			for _, sr := range pending {
				if sr.fate == "" && sr.datagram && (side>>sr.from^side>>sr.to)&1 == 1 {
					sr.lose(n, how, short)
					rec.lost = append(rec.lost, sr)
				}
			}
		case engine.EvHeal:
			partition = 0
		}
		// What the log says the event lost and the replay did not see
		// sent.
		for _, sr := range rec.lost {
			if i := slices.Index(w.lost, fmt.Sprintf("%s from node %d to node %d", sr.text, sr.from, sr.to)); i >= 0 {
				w.lost = slices.Delete(w.lost, i, i+1)
			}
		}
		rec.lostBefore = w.lost
		// What was lost as it was sent.
		for _, sr := range w.sends {
			switch sr.lostAs {
			case "node down":
				how := fmt.Sprintf("lost: node %d is down", sr.to)
				if c := crashed[sr.to]; c > 0 {
					how += fmt.Sprintf(" (it crashed at step %d)", c)
				}
				sr.lose(n, how, fmt.Sprintf("node %d down", sr.to))
			case "partition":
				how := "lost: sent across a partition"
				if partition > 0 {
					how = fmt.Sprintf("lost: sent across the partition of step %d", partition)
				}
				sr.lose(n, how, "partitioned")
			}
		}
		pending = append(pending, w.sends...)
		if n >= from {
			g.steps = append(g.steps, rec)
		}
	}
	for _, sr := range pending {
		if sr.step >= from || sr.end >= from {
			g.sends = append(g.sends, sr)
		}
	}
	return g, nil
}

// graphRange parses "g [FROM TO | cycle] [--svg FILE] [--html FILE]".
func (s *Session) graphRange(args []string) (from, to int, svg, page string, err error) {
	var nums []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--svg", a == "--html":
			if i+1 >= len(args) {
				return 0, 0, "", "", fmt.Errorf("%s needs a file name", a)
			}
			if a == "--svg" {
				svg = args[i+1]
			} else {
				page = args[i+1]
			}
			i++
		case strings.HasPrefix(a, "--svg="):
			svg = strings.TrimPrefix(a, "--svg=")
		case strings.HasPrefix(a, "--html="):
			page = strings.TrimPrefix(a, "--html=")
		case strings.HasPrefix(a, "--"):
			return 0, 0, "", "", fmt.Errorf("unknown option %s", a)
		default:
			nums = append(nums, a)
		}
	}
	p := s.p
	if p.steps() == 0 {
		return 0, 0, "", "", fmt.Errorf("the %s path has no steps", p.name)
	}
	switch len(nums) {
	case 0:
		from = max(1, s.pos-5)
		to = min(p.steps(), from+10)
		from = max(1, to-10)
	case 1:
		if !strings.EqualFold(nums[0], "cycle") {
			return 0, 0, "", "", fmt.Errorf("usage: g [FROM TO | cycle] [--svg FILE] [--html FILE]")
		}
		start, n, ok := s.cycle(p)
		if !ok {
			if s.errT.CycleLen > 0 {
				return 0, 0, "", "", fmt.Errorf("the lasso's cycle is on the error path (path error)")
			}
			return 0, 0, "", "", fmt.Errorf("the trace has no lasso cycle (a search records one when it finds a lasso: a fair cycle of its state graph, or --lasso in its walks)")
		}
		from, to = start+1, start+n
	case 2:
		if from, err = s.stepArg(nums[0], p); err != nil {
			return
		}
		if to, err = s.stepArg(nums[1], p); err != nil {
			return
		}
		switch {
		case from > to:
			return 0, 0, "", "", fmt.Errorf("the range is empty: FROM %s is after TO %s", typedStep(nums[0], from), typedStep(nums[1], to))
		case to == 0:
			return 0, 0, "", "", fmt.Errorf("the range has no events: step 0 is the initial state, and the graph draws the events that lead to steps 1-%d", p.steps())
		}
		from = max(from, 1)
	default:
		return 0, 0, "", "", fmt.Errorf("usage: g [FROM TO | cycle] [--svg FILE] [--html FILE]")
	}
	return from, to, svg, page, nil
}

// typedStep names step n as the user typed it: "5", or "crit (step 6)".
func typedStep(typed string, n int) string {
	if typed == strconv.Itoa(n) {
		return typed
	}
	return fmt.Sprintf("%s (step %d)", typed, n)
}

func (s *Session) cmdGraph(args []string, _ string) error {
	from, to, svg, page, err := s.graphRange(args)
	if err != nil {
		return err
	}
	g, err := s.makeGraph(s.p, from, to)
	if err != nil {
		return err
	}
	if (svg == "" && page == "") || to-from <= maxTextWithFile {
		g.text(s.out)
	} else {
		fmt.Fprintf(s.out, "(the text graph of steps %d-%d is left out beside the file: g %d %d alone prints it)\n", from, to, from, to)
	}
	if svg != "" {
		if err := writeSVGFile(svg, g); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "wrote %s (steps %d-%d of the %s path)\n", svg, from, to, s.p.name)
	}
	if page != "" {
		return s.writePage(page)
	}
	return nil
}

// maxTextWithFile is the most steps g prints as text when it also writes
// the graph to a file (--svg, --html): a file of thousands of steps is
// what was asked for, not as many lines on the terminal.
const maxTextWithFile = 100

// text writes the event graph as text: a column per node, a row per step.
func (g *graph) text(w io.Writer) {
	colW := 14
	for _, n := range g.nodes {
		colW = max(colW, len(n)+2)
	}
	n := len(g.nodes)
	width := n * colW
	center := func(i int) int { return i*colW + colW/2 }
	// A lasso's cycle gets a bracket column left of the step numbers.
	_, _, showCycle := g.cycleShown()
	lead := "        "
	if showCycle {
		lead += " "
	}
	fmt.Fprintf(w, "event graph of the %s path, steps %d-%d\n", g.p.name, g.from, g.to)
	if showCycle {
		fmt.Fprintf(w, "%s (┌│└)\n", g.cycleText())
	}
	head := []rune(strings.Repeat(" ", width))
	for i, name := range g.nodes {
		c := center(i) - len(name)/2
		copy(head[max(0, c):], []rune(name))
	}
	fmt.Fprintln(w, lead+strings.TrimRight(string(head), " "))
	blank := func() []rune {
		r := []rune(strings.Repeat(" ", width))
		for i := range n {
			r[center(i)] = '|'
		}
		return r
	}
	put := func(r []rune, at int, text string) {
		for j, c := range text {
			if at+j >= 0 && at+j < len(r) {
				r[at+j] = c
			}
		}
	}
	line := func(r []rune, a, b int, fill rune, label string) {
		lo, hi := min(center(a), center(b)), max(center(a), center(b))
		for x := lo + 1; x < hi; x++ {
			r[x] = fill
		}
		if l := len(label) + 2; l <= hi-lo-3 {
			put(r, (lo+hi-l)/2+1, " "+label+" ")
		}
	}
	for _, st := range g.steps {
		r := blank()
		ev := st.ev
		node := int(ev.Node)
		desc := ev.String()
		switch ev.Kind {
		case engine.EvMessage, engine.EvDatagram, engine.EvDrop:
			peer := int(ev.Peer)
			if peer == node {
				r[center(node)] = '@'
			} else {
				fill, head := '-', '>'
				if ev.Kind == engine.EvDrop {
					fill, head = '.', 'x'
				} else if peer > node {
					head = '<'
				}
				line(r, peer, node, fill, sim.MessageName(ev.Msg))
				r[center(peer)] = 'o'
				r[center(node)] = head
			}
			desc += " (" + provenance(ev) + ")"
		case engine.EvTimer:
			r[center(node)] = 'T'
		case engine.EvApp:
			r[center(node)] = 'A'
		case engine.EvReset:
			r[center(node)] = 'X'
		case engine.EvCrash:
			r[center(node)] = '#'
			desc += st.lostText()
		case engine.EvDuplicate:
			r[center(node)] = '2'
			desc += " (" + provenance(ev) + ")"
		case engine.EvPartition, engine.EvHeal:
			mark := '/'
			if ev.Kind == engine.EvHeal {
				mark = '+'
			} else {
				desc += st.lostText()
			}
			for i := 0; i < 64; i++ {
				if ev.Side()&(1<<i) != 0 && center(i) < len(r) {
					r[center(i)] = mark
				}
			}
		case engine.EvConnError:
			r[center(node)] = '!'
		case engine.EvBreak:
			line(r, node, int(ev.Peer), '~', "break")
			r[center(node)], r[center(int(ev.Peer))] = 'x', 'x'
			desc += st.lostText()
		}
		m := " "
		switch {
		case st.n == g.crit:
			m = "*"
		case st.n == g.cur:
			m = ">"
		}
		rowLead := lead
		if showCycle {
			br, cont := " ", " "
			switch i := g.cycleIndex(st.n); {
			case i == 0:
			case g.cycLen == 1:
				br = "["
			case i == 1:
				br, cont = "┌", "│"
			case i == g.cycLen:
				br = "└"
			default:
				br, cont = "│", "│"
			}
			m += br
			rowLead = " " + cont + lead[2:]
			if i := g.cycleIndex(st.n); i > 0 {
				desc += fmt.Sprintf(" [cycle %d/%d]", i, g.cycLen)
			}
		}
		fmt.Fprintf(w, "%s%6d %s  %s\n", m, st.n, string(r), desc)
		var more []string
		for _, sr := range st.sends {
			kind := "sends"
			if sr.datagram {
				kind = "sends datagram"
			}
			line := fmt.Sprintf("%s %s to node %d", kind, sr.text, sr.to)
			if sr.fate == "lost" && sr.end == st.n {
				line += ", " + sr.how // as it was sent
			}
			more = append(more, line)
		}
		more = append(more, st.timers...)
		for _, sr := range st.lost {
			more = append(more, sr.describe(1, st.n))
		}
		for _, l := range st.lostBefore {
			how, _ := st.lostHow()
			more = append(more, fmt.Sprintf("%s, sent before step %d, %s", l, st.replayed, how))
		}
		for _, t := range more {
			fmt.Fprintf(w, "%s%s    %s\n", rowLead, string(blank()), t)
		}
	}
	legend := "o-->: message  o..x: dropped  x~~x: break  T: timer  A: app request  X: reset  !: connection error  *: critical  >: current"
	faults := map[engine.EventKind]string{engine.EvCrash: "#: crash", engine.EvDuplicate: "2: duplicated",
		engine.EvPartition: "/: partition (the side cut off)  +: its heal"}
	for _, k := range []engine.EventKind{engine.EvCrash, engine.EvDuplicate, engine.EvPartition} {
		if slices.ContainsFunc(g.steps, func(st *stepRec) bool {
			return st.ev.Kind == k || k == engine.EvPartition && st.ev.Kind == engine.EvHeal
		}) {
			legend += "  " + faults[k]
		}
	}
	if showCycle {
		legend += "  ┌│└: cycle"
	}
	fmt.Fprintln(w, legend)
}

// lostText says how many messages the step's event lost in flight, e.g.
// " (2 messages lost)"; "" for none.
func (st *stepRec) lostText() string {
	if n := len(st.lost) + len(st.lostBefore); n > 0 {
		return fmt.Sprintf(" (%s lost)", plural(n, "message"))
	}
	return ""
}

// lostHow says how the step's event lost a message in flight, e.g. "lost
// when the connection broke at step 5", and in a word, for a label.
func (st *stepRec) lostHow() (how, short string) {
	switch st.ev.Kind {
	case engine.EvCrash:
		return fmt.Sprintf("lost: node %d crashed at step %d", st.ev.Node, st.n), "crash"
	case engine.EvPartition:
		return fmt.Sprintf("lost in the partition of step %d", st.n), "partition"
	}
	return fmt.Sprintf("lost when the connection broke at step %d", st.n), "break"
}

// SVG geometry.
const (
	svgLeft   = 130
	svgTop    = 80
	svgColW   = 260
	svgRowH   = 48
	svgBottom = 40
	svgFont   = "font-family=\"monospace\""
	svgHalo   = "paint-order=\"stroke\" stroke=\"white\" stroke-width=\"3\" stroke-linejoin=\"round\""
	// A lasso's cycle: its colour and the band behind its rows.
	svgCycle     = "#7d3cb5"
	svgCycleBand = "#f1e8fa"
)

// esc escapes text for XML character data and attribute values.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// svg writes the event graph as a self-contained SVG document.
func (g *graph) svg(w io.Writer) error {
	n := len(g.nodes)
	rows := len(g.steps)
	width := svgLeft + n*svgColW + 20
	height := svgTop + rows*svgRowH + svgBottom
	x := func(i int) int { return svgLeft + i*svgColW + svgColW/2 }
	y := func(step int) int { return svgTop + (step-g.from)*svgRowH + svgRowH/2 }
	var b strings.Builder
	f := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	f("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	f("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-size=\"12\" %s>\n", width, height, width, height, svgFont)
	f("<title>%s</title>\n", esc(fmt.Sprintf("mdb event graph: %s path, steps %d-%d", g.p.name, g.from, g.to)))
	f("<defs>\n")
	for _, m := range []struct{ id, color string }{{"arrow", "#1f4e9c"}, {"arrow-red", "#c0392b"}, {"arrow-grey", "#888888"}} {
		f("<marker id=\"%s\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"%s\"/></marker>\n", m.id, m.color)
	}
	f("</defs>\n")
	f("<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height)
	f("<text x=\"10\" y=\"22\" font-size=\"14\" font-weight=\"bold\">%s</text>\n", esc(fmt.Sprintf("event graph of the %s path, steps %d-%d", g.p.name, g.from, g.to)))
	// A lasso's cycle: a band behind its rows, a bracket and a label.
	if a, b, ok := g.cycleShown(); ok {
		top, bot := y(a)-svgRowH/2, y(b)+svgRowH/2
		f("<g class=\"cycle\" id=\"cycle\">\n<title>%s</title>\n", esc(g.cycleText()))
		f("<text x=\"10\" y=\"%d\" font-size=\"11\" fill=\"%s\">%s</text>\n", height-10, svgCycle, esc(g.cycleText()))
		f("<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", top, width, bot-top, svgCycleBand)
		// The bracket is open at an end the range cuts off.
		bx, t, bb := svgLeft-14, top+4, bot-4
		d := fmt.Sprintf("M %d %d L %d %d", bx, t, bx, bb)
		if a == g.cycStart+1 {
			d = fmt.Sprintf("M %d %d L %d %d L %d %d", bx+8, t, bx, t, bx, bb)
		}
		if b == g.cycStart+g.cycLen {
			d += fmt.Sprintf(" L %d %d", bx+8, bb)
		}
		f("<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", d, svgCycle)
		lx, ly := bx-6, (top+bot)/2
		f("<text x=\"%d\" y=\"%d\" fill=\"%s\" font-size=\"11\" font-weight=\"bold\" text-anchor=\"middle\" transform=\"rotate(-90 %d %d)\">%s</text>\n",
			lx, ly, svgCycle, lx, ly, esc(fmt.Sprintf("cycle (%s)", plural(g.cycLen, "step"))))
		f("</g>\n")
	}
	// Row highlights and step labels.
	for _, st := range g.steps {
		yy := y(st.n)
		switch {
		case st.n == g.crit:
			f("<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fde2e2\"/>\n", yy-svgRowH/2, width, svgRowH)
		case st.n == g.cur:
			f("<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff7cc\"/>\n", yy-svgRowH/2, width, svgRowH)
		}
		label := "step " + strconv.Itoa(st.n)
		if st.n == g.crit {
			label += " (critical)"
		}
		f("<text x=\"8\" y=\"%d\" fill=\"#444\">%s</text>\n", yy+4, esc(label))
		if i := g.cycleIndex(st.n); i > 0 {
			f("<text x=\"8\" y=\"%d\" fill=\"%s\" font-size=\"11\">%s</text>\n", yy+17, svgCycle, esc(fmt.Sprintf("cycle %d/%d", i, g.cycLen)))
		}
	}
	// Node columns.
	for i, name := range g.nodes {
		f("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">%s</text>\n", x(i), svgTop-30, esc(name))
		f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#bbbbbb\" stroke-width=\"2\"/>\n", x(i), svgTop-20, x(i), height-svgBottom+10)
	}
	// Messages: from the send to the receipt, drop or loss.
	for _, sr := range g.sends {
		x1, y1 := x(sr.from), svgTop-10
		if sr.step >= g.from {
			y1 = y(sr.step)
		}
		x2, y2 := x(sr.to), height-svgBottom+10
		color, marker, dash := "#1f4e9c", "arrow", ""
		switch {
		case sr.fate == "received" && sr.end <= g.to:
			y2 = y(sr.end)
		case (sr.fate == "dropped" || sr.fate == "lost") && sr.end <= g.to:
			y2 = y(sr.end)
			x2 = (x1 + x2) / 2
			if sr.fate == "dropped" {
				x2 = x(sr.to) - (x(sr.to)-x1)/6
			}
			color, marker, dash = "#c0392b", "arrow-red", " stroke-dasharray=\"6 4\""
		default: // still in flight after the range
			x2 = x1 + (x2-x1)/2
			color, marker, dash = "#888888", "arrow-grey", " stroke-dasharray=\"2 4\""
		}
		f("<g>\n<title>%s</title>\n", esc(sr.describe(g.from, g.to)))
		if sr.from == sr.to {
			f("<path d=\"M %d %d C %d %d %d %d %d %d\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s marker-end=\"url(#%s)\"/>\n",
				x1, y1, x1+70, y1, x1+70, y2, x2, y2, color, dash, marker)
		} else {
			f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\"%s marker-end=\"url(#%s)\"/>\n", x1, y1, x2, y2, color, dash, marker)
		}
		if sr.fate == "dropped" && sr.end <= g.to {
			f("<text x=\"%d\" y=\"%d\" fill=\"#c0392b\" font-size=\"16\" font-weight=\"bold\" text-anchor=\"middle\">%s</text>\n", x2, y2+5, "✕")
		}
		lx, ly := (x1+x2)/2, (y1+y2)/2-4
		if sr.from == sr.to {
			lx = x1 + 60
		}
		label := sr.text
		if sr.copyOf >= 0 {
			label += " (copy)"
		}
		switch {
		case sr.end <= 0 || sr.end > g.to:
		case sr.fate == "dropped":
			label += " (dropped)"
		case sr.fate == "lost":
			label += " (lost: " + sr.short + ")"
		}
		f("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\" font-size=\"11\" %s>%s</text>\n</g>\n", lx, ly, color, svgHalo, esc(label))
	}
	// Events.
	for _, st := range g.steps {
		ev := st.ev
		xx, yy := x(int(ev.Node)), y(st.n)
		f("<g>\n<title>%s</title>\n", esc(fmt.Sprintf("step %d: %s", st.n, ev.String())))
		switch ev.Kind {
		case engine.EvMessage, engine.EvDatagram:
			f("<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"#1f4e9c\"/>\n", xx, yy)
			if st.recv == nil {
				f("<text x=\"%d\" y=\"%d\" fill=\"#1f4e9c\" font-size=\"11\">%s</text>\n", xx+8, yy+4, esc(fmt.Sprintf("receives %s from node %d", engine.FormatValue(ev.Msg), ev.Peer)))
			}
		case engine.EvDrop:
			if st.recv == nil {
				f("<text x=\"%d\" y=\"%d\" fill=\"#c0392b\" font-size=\"11\">%s</text>\n", xx+8, yy+4, esc(fmt.Sprintf("drop of %s from node %d", engine.FormatValue(ev.Msg), ev.Peer)))
			}
		case engine.EvTimer:
			f("<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"#e67e22\"/>\n", xx-5, yy-5)
			f("<text x=\"%d\" y=\"%d\" fill=\"#a04000\">%s</text>\n", xx+10, yy+4, esc("timer "+safetext.QuoteUnsafe(ev.Timer)))
		case engine.EvApp:
			f("<circle cx=\"%d\" cy=\"%d\" r=\"6\" fill=\"#27ae60\"/>\n", xx, yy)
			f("<text x=\"%d\" y=\"%d\" fill=\"#1e8449\">%s</text>\n", xx+10, yy+4, esc("app "+engine.FormatValue(ev.Msg)))
		case engine.EvReset:
			f("<text x=\"%d\" y=\"%d\" fill=\"#c0392b\" font-size=\"20\" font-weight=\"bold\" text-anchor=\"middle\">%s</text>\n", xx, yy+7, "✕")
			f("<text x=\"%d\" y=\"%d\" fill=\"#c0392b\" font-weight=\"bold\">reset</text>\n", xx+12, yy+4)
		case engine.EvCrash, engine.EvDuplicate, engine.EvPartition, engine.EvHeal:
			f("<text x=\"%d\" y=\"%d\" fill=\"#c0392b\" font-weight=\"bold\">%s</text>\n", xx+12, yy+4, esc(ev.String()))
		case engine.EvConnError:
			f("<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\"/>\n", xx, yy)
			f("<text x=\"%d\" y=\"%d\" fill=\"#c0392b\">%s</text>\n", xx+10, yy+4, esc(fmt.Sprintf("connection to node %d broke", ev.Peer)))
		case engine.EvBreak:
			xp := x(int(ev.Peer))
			f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#c0392b\" stroke-width=\"3\" stroke-dasharray=\"2 3\"/>\n", xx, yy, xp, yy)
			f("<text x=\"%d\" y=\"%d\" fill=\"#c0392b\" text-anchor=\"middle\" font-weight=\"bold\">%s</text>\n", (xx+xp)/2, yy-6, esc(fmt.Sprintf("connection %d-%d breaks", ev.Node, ev.Peer)))
		}
		for j, t := range st.timers {
			f("<text x=\"%d\" y=\"%d\" fill=\"#a04000\" font-size=\"10\" %s>%s</text>\n", xx-svgColW/2+4, yy+16+10*j, svgHalo, esc(t))
		}
		// What the event lost that was sent before the replay's first
		// step: no arrow, a line of text each.
		for j, l := range st.lostBefore {
			how, _ := st.lostHow()
			f("<text x=\"%d\" y=\"%d\" fill=\"#c0392b\" font-size=\"10\" %s>%s</text>\n", xx+12, yy+16+10*j, svgHalo,
				esc(fmt.Sprintf("%s, sent before step %d, %s", l, st.replayed, how)))
		}
		f("</g>\n")
	}
	f("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeSVGFile(file string, g *graph) error {
	if err := trace.CheckNotTrace(file); err != nil {
		return err
	}
	return trace.WriteAtomic(file, g.svg) // the command's name is added by the session
}
