package htmlreport

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

//go:embed assets
var assets embed.FS

var pageTmpl = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"comma": comma,
	"steps": func(n int) string { return plural(int64(n), "step") },
}).ParseFS(assets, "assets/report.html.tmpl"))

func mustAsset(name string) string {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

var (
	pageCSS = mustAsset("report.css")
	pageJS  = compactJS(mustAsset("report.js"))
)

// compactJS leaves out the script's indentation and its lines that are
// only a comment, which the page does not need (the script has no
// template literals or strings over several lines that they could be
// part of): 6 KB of every page.
func compactJS(js string) string {
	var b strings.Builder
	for _, l := range strings.Split(js, "\n") {
		l = strings.TrimLeft(l, " ")
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

// builder gathers what a page shows.
type builder struct {
	o     Options
	strs  interner
	nodes []string
	// monitors are the monitors' titles: their sections follow the
	// nodes', and the network's follows theirs.
	monitors []string
	props    []propInfo
	// markers are the ids of the strings that stand for lines a view
	// leaves out.
	markers map[int]bool
	// cmpWith is the error path while the live path is recorded, cmp the
	// comparison of their states at the critical step made then.
	cmpWith *pathData
	cmp     *compare
}

// ctxErr is the error of Options.Context once it has ended.
func (b *builder) ctxErr() error {
	if b.o.Context == nil {
		return nil
	}
	if err := b.o.Context.Err(); err != nil {
		return fmt.Errorf("htmlreport: %w", err)
	}
	return nil
}

// pageData is the data the page's script reads.
type pageData struct {
	Nodes []string `json:"nodes"`
	// Monitors title the sections after the nodes' (the network's is
	// last).
	Monitors []string    `json:"monitors"`
	Strs     []string    `json:"strs"`
	Props    []propInfo  `json:"props"`
	Paths    []*pathData `json:"paths"`
	// Select is the step of the first path selected when the page opens.
	Select int `json:"select"`
	// Markers lists the strings that stand for lines a view leaves out
	// (the page styles them), Debug the command that opens the result
	// directory in mdb, where states are shown whole.
	Markers []int  `json:"markers"`
	Debug   string `json:"debug"`
}

// page is a page ready to render.
type page struct {
	View view
}

// view is what the template shows besides the script's data.
type view struct {
	Title        string
	VerdictClass string // liveness, safety, none
	Headline     string
	Kind         string
	System       string
	Params       string
	Facts        []fact
	Explain      string
	Notes        []string
	Lasso        *Lasso
	LassoFirst   int // the cycle's first transition
	Failure      *failure
	Commands     []command
	Nodes        []string
	Monitors     []string
	Tabs         []tab
	Marks        []mark
	Compare      *compare
	CSS          template.CSS
	JS           template.JS
	Data         template.JS
	DataBytes    int
}

// fact is a row of the headline's facts: its value, then links to the
// files beside the page.
type fact struct {
	Label, Value string
	Links        []link
}

type link struct{ Text, Href string }

type command struct{ Label, Text string }

type failure struct {
	Step  int
	Text  string
	Stack string
	// StackOf titles Stack, saying whose it is: "the handler's stack",
	// "the stack of monitor Pings's Handle".
	StackOf string
}

// tab is one path the lanes can show.
type tab struct {
	Index int
	Name  string
	Title string
	Steps int
}

// mark is a telling step, listed above the lanes.
type mark struct {
	Path  int
	Step  int
	Class string
	Text  string
}

// compare is the dead and the live state at the critical step.
type compare struct {
	Step      int
	Shared    int
	DeadEvent string
	LiveEvent string
	Sections  []sectionDiff
	// Cut says that some section's rows or lines are cut; Debug is the
	// command that shows them whole.
	Cut   bool
	Debug string
}

type sectionDiff struct {
	Title string
	Same  bool
	Rows  []diffRow
	Cut   bool // rows or lines are cut
}

// diffRow is one row of a side-by-side diff: a line of the dead state,
// a line of the live state, or both.
type diffRow struct {
	Left, Right []seg
	// Op: "same", "change" (a dead line replaced by a live one), "del"
	// (only on the dead side), "add" (only on the live side), "cut" (a
	// marker for rows left out).
	Op string
}

// seg is a run of a line's text; Mark runs differ from the other side.
type seg struct {
	Text string
	Mark bool
}

// build replays the input's traces and makes the page.
func build(in Input) (*page, error) {
	o := in.Options
	if o.Tool == "" {
		o.Tool = "macemc"
	}
	o.Limits = o.Limits.withDefaults()
	b := &builder{o: o}
	if in.Error == nil && (in.Report == nil || in.Report.Verdict != "none") {
		return nil, fmt.Errorf("%w: no error trace", ErrInput)
	}
	pd := &pageData{}
	v := &view{}
	var ep *pathData
	if in.Error != nil {
		var err error
		if ep, err = b.record("error", pathTitle(in.Error, in.Report), in.Error, in.Error.Critical); err != nil {
			return nil, err
		}
		pd.Paths = append(pd.Paths, ep)
		if r := in.Report; r != nil && r.Kind == "linearizability" && ep.Fail < 0 {
			// No step breaks a property: the clients' history, complete
			// at the end of the path, has no linearization.
			ep.Fail = ep.Steps
			ep.FailText = linFailure(r.MinimalHistory)
		}
		other := func(name, title string, t *trace.Trace, keep int) *pathData {
			if t == nil {
				return nil
			}
			if t.System != in.Error.System || sim.Params(t.Params).Canonical() != sim.Params(in.Error.Params).Canonical() {
				v.Notes = append(v.Notes, fmt.Sprintf("The %s trace is for %s %s, not this system: left out.", name, safetext.QuoteUnsafe(t.System), sim.Params(t.Params).Text()))
				return nil
			}
			p, err := b.record(name, title, t, keep)
			if err != nil {
				if b.ctxErr() == nil {
					v.Notes = append(v.Notes, fmt.Sprintf("The %s trace could not be replayed: %v", name, err))
				}
				return nil
			}
			pd.Paths = append(pd.Paths, p)
			return p
		}
		other("min", "minimized path", in.Min, -1)
		if ep.Crit >= 0 && ep.kept != nil {
			b.cmpWith = ep
		}
		lp := other("live", "live alternative", in.Live, ep.Crit)
		if r := in.Report; r != nil && r.PrefixSteps > 0 {
			// The paths the search found begin with its prefix (the
			// minimized path's steps are a selection of the dead path's).
			for _, p := range []*pathData{ep, lp} {
				if p != nil {
					p.Prefix = min(r.PrefixSteps, p.Steps)
				}
			}
		}
		b.cmpWith, ep.kept = nil, nil
		if err := b.ctxErr(); err != nil {
			return nil, err
		}
		if lp != nil {
			// The live alternative is the error path's: the minimized
			// path is compared with none.
			ep.Shared = shared(ep, lp)
			lp.Shared = ep.Shared
			ep.Other, lp.Other = slices.Index(pd.Paths, lp), slices.Index(pd.Paths, ep)
		}
		for _, p := range pd.Paths {
			if p == ep {
				// The dead path's: a live path's last step is where it
				// becomes live, and a minimized one is short.
				b.collapse(p)
			}
			p.nonNil()
		}
		pd.Select = in.Select
		if pd.Select <= 0 || pd.Select > ep.Steps {
			pd.Select = defaultSelect(ep)
		}
		if lp != nil && b.cmp != nil {
			v.Compare = b.cmp
			v.Compare.Shared, v.Compare.Debug = ep.Shared, b.debugCommand(in)
		}
		for _, p := range pd.Paths {
			if p.Cut {
				v.Notes = append(v.Notes, b.cutNote(in, pd.Select))
				break
			}
		}
	}
	pd.Nodes, pd.Monitors, pd.Strs, pd.Props = b.nodes, b.monitors, b.strs.list, b.props
	if pd.Monitors == nil {
		pd.Monitors = []string{}
	}
	pd.Debug = b.debugCommand(in)
	pd.Markers = []int{}
	for id := range b.markers {
		pd.Markers = append(pd.Markers, id)
	}
	sort.Ints(pd.Markers)
	if pd.Props == nil {
		pd.Props = []propInfo{} // a system checked only by its history (linearizability)
	}
	if pd.Paths == nil {
		pd.Paths, pd.Nodes, pd.Monitors, pd.Strs, pd.Props = []*pathData{}, []string{}, []string{}, []string{}, []propInfo{}
	}
	data, err := jsonBytes(pd)
	if err != nil {
		return nil, fmt.Errorf("htmlreport: encode the page's data: %w", err)
	}
	b.headline(v, in, ep)
	v.Nodes, v.Monitors = b.nodes, b.monitors
	for i, p := range pd.Paths {
		v.Tabs = append(v.Tabs, tab{Index: i, Name: p.Name, Title: p.Title, Steps: p.Steps})
		v.Marks = append(v.Marks, marks(i, p)...)
	}
	v.CSS, v.JS, v.Data, v.DataBytes = template.CSS(pageCSS), template.JS(pageJS), template.JS(data), len(data)
	return &page{View: *v}, nil
}

// render writes the page to w, as valid UTF-8 (validUTF8Writer): the page
// says it is.
func (p *page) render(w io.Writer) error {
	vw := &validUTF8Writer{w: w}
	if err := pageTmpl.Execute(vw, &p.View); err != nil {
		return fmt.Errorf("htmlreport: %w", err)
	}
	if err := vw.Close(); err != nil {
		return fmt.Errorf("htmlreport: %w", err)
	}
	return nil
}

// validUTF8Writer writes what it is given to w as valid UTF-8: each run of
// bytes that are not UTF-8 (a name or text a service chose can hold them,
// and html/template passes them on) becomes U+FFFD, as the page's JSON
// data has them. A rune split between two writes is kept until the next;
// Close writes what is left of one.
type validUTF8Writer struct {
	w    io.Writer
	tail []byte // the start of a rune the last write ended in
	buf  []byte
}

func (v *validUTF8Writer) Write(p []byte) (int, error) {
	n := len(p)
	if len(v.tail) > 0 {
		v.buf = append(append(v.buf[:0], v.tail...), p...)
		p, v.tail = v.buf, v.tail[:0]
	}
	// Keep a rune the write ends in the middle of.
	for i := len(p) - 1; i >= 0 && i > len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				v.tail = append(v.tail, p[i:]...)
				p = p[:i]
			}
			break
		}
	}
	if !utf8.Valid(p) {
		p = bytes.ToValidUTF8(p, []byte("\uFFFD"))
	}
	if _, err := v.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}

// Close writes the start of a rune the last write ended in, which no
// write completed, as U+FFFD.
func (v *validUTF8Writer) Close() error {
	if len(v.tail) == 0 {
		return nil
	}
	v.tail = v.tail[:0]
	_, err := io.WriteString(v.w, "\uFFFD")
	return err
}

// inlineHistory bounds the operations a linearizability failure lists in
// its first line, which the step's badge and the lanes' mark show.
const inlineHistory = 300

// linFailure says that the clients' history is not linearizable, and
// which of its operations already are not (ops, report.json's
// minimal_history): in its first line when they are short, else listed
// after it, one a line.
func linFailure(ops []string) string {
	s := "the clients' history is not linearizable"
	switch all := strings.Join(ops, "; "); {
	case len(ops) == 0:
		return s
	case len(all) <= inlineHistory:
		return fmt.Sprintf("%s; nor are these %s of it: %s", s, plural(int64(len(ops)), "operation"), all)
	}
	return fmt.Sprintf("%s; nor are %s of it, listed under What failed:\n%s", s, plural(int64(len(ops)), "operation"), strings.Join(ops, "\n"))
}

// pathTitle names the error path by what it shows.
func pathTitle(t *trace.Trace, r *Report) string {
	switch {
	case r != nil && r.Kind == "lasso", t.CycleLen > 0:
		return "lasso path"
	case r != nil && r.Kind == "temperature":
		// Not known to be dead: the temperature method saw too many
		// steps without a live state.
		return "path to the alarm"
	case t.Kind == trace.KindLiveness:
		return "dead path"
	}
	return "violating path"
}

// defaultSelect is the step the page opens at: the critical step, the
// failure, the lasso's cycle, or the end.
func defaultSelect(p *pathData) int {
	switch {
	case p.Crit >= 0:
		return p.Crit
	case p.Fail >= 0:
		return min(p.Fail, p.Steps) // a hung handler's step has no state
	case p.CycleLen > 0:
		return p.CycleStart + 1
	}
	return p.Steps
}

// marks lists the telling steps of path i.
func marks(i int, p *pathData) []mark {
	var out []mark
	add := func(step int, class, text string) {
		out = append(out, mark{Path: i, Step: step, Class: class, Text: text})
	}
	if p.Shared >= 0 && p.Shared < p.Steps {
		if p.Name == "live" {
			add(p.Shared+1, "diverge", fmt.Sprintf("step %d: the live alternative leaves the dead path", p.Shared+1))
		} else {
			add(p.Shared+1, "diverge", fmt.Sprintf("step %d: the live alternative goes another way", p.Shared+1))
		}
	}
	if p.Crit >= 0 {
		add(p.Crit, "crit", fmt.Sprintf("step %d: critical transition (%s)", p.Crit, p.Cond))
	}
	if p.CycleLen > 0 {
		add(p.CycleStart+1, "cycle", fmt.Sprintf("steps %d-%d: the lasso's cycle (%d steps) back to the state of step %d", p.CycleStart+1, p.CycleStart+p.CycleLen, p.CycleLen, p.CycleStart))
	}
	if p.Fail >= 0 {
		// A hung handler's step is after the path's last (the page
		// selects that last state).
		add(p.Fail, "fail", fmt.Sprintf("step %d: %s", p.Fail, firstLine(p.FailText)))
	}
	if p.Tail >= 0 {
		add(p.Tail+1, "tail", fmt.Sprintf("steps %d-%d: only kinds of events seen before (collapsed)", p.Tail+1, p.Steps))
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Step < out[b].Step })
	return out
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// headline fills the verdict, the facts and the commands.
func (b *builder) headline(v *view, in Input, ep *pathData) {
	r := in.Report
	t := in.Error
	if r == nil {
		r = &Report{Verdict: string(t.Kind), Property: t.Property, System: t.System, Params: t.Params, Seed: t.Seed, Steps: t.Steps, Depth: t.Depth}
		if t.Kind == trace.KindLiveness {
			r.Kind = "dead"
			if t.CycleLen > 0 {
				r.Kind = "lasso"
			}
		}
	}
	// Names and parameters as the terminal shows them
	// (safetext.QuoteUnsafe): quoted when they hold a control character,
	// a newline or a bidi control.
	v.System, v.Params = safetext.QuoteUnsafe(r.System), sim.Params(r.Params).Text()
	property := safetext.QuoteUnsafe(r.Property)
	monitor := panickedMonitor(r, ep)
	v.VerdictClass = r.Verdict
	switch r.Verdict {
	case "liveness":
		v.Headline = "Liveness violation of " + property
		switch r.Kind {
		case "dead":
			v.Kind = deadKind(r)
		case "lasso":
			v.Kind = "a lasso: a fair cycle that repeats forever without a live state"
		case "temperature":
			v.Kind = "a temperature alarm: the path stayed not live for too long"
			if tp := r.Temperature; tp != nil && tp.Verdict == "false alarm" {
				// As the text report's headline says it: the execution
				// became live after the alarm.
				v.Headline = "FALSE ALARM: a temperature alarm on " + property
				v.VerdictClass = "none"
				v.Kind = fmt.Sprintf("the temperature method reports a liveness violation (no live state in %d steps in a row, at step %d), but the execution became live at step %d and its path holds no lasso: a false alarm; raise --temperature", tp.Threshold, tp.AlarmStep, tp.LiveAt)
			}
		}
	case "safety":
		v.Headline = "Safety violation of " + property
		switch {
		case monitor != "":
			// The monitor's own code panicked, called by a node's handler
			// (Context.Notify): the monitor is at fault, not the handler.
			v.Headline = "Monitor " + safetext.QuoteUnsafe(monitor) + " panicked"
			v.Kind = "the monitor's own code panicked when a node's handler notified it (Context.Notify): the fault is the monitor's, not the handler's"
		case r.Kind == "panic" || ep != nil && ep.Stack != "":
			v.Headline = "Handler panic"
		case r.Kind == "hang":
			v.Headline = "A handler that does not return"
		case r.Kind == "linearizability" && strings.HasPrefix(r.Error, "lin: the model"):
			v.Headline = "Linearizability not checked: the model failed"
		case r.Kind == "linearizability":
			v.Headline = "Linearizability violation"
		}
	case "nondeterministic":
		v.Headline = "Nondeterministic service"
		v.Kind = "two replays of the same choices diverge: the search cannot trust its results"
		// The report's property says which check failed.
		switch {
		case r.Property == walks.SharedProperty:
			v.Headline = "Nodes that share memory"
			v.Kind = "a handler of one node changed another node's state: nodes on a network share nothing, so the search cannot trust its results"
		case r.Property == walks.MessagesProperty:
			v.Headline = "A message changed in flight"
			v.Kind = "a message changed between its send and its delivery: the search cannot trust its results"
		case r.Property == walks.ReadOnlyProperty:
			v.Headline = "A property that changes the state"
			v.Kind = "checking a property changed a node's state: the search cannot trust its results"
		case r.Kind == "escape":
			v.Headline = "A service that acts outside its handlers"
			v.Kind = "a node ran code outside its handlers (a goroutine it started, a Context it kept): the search cannot trust its results"
		}
	case "none":
		v.Headline = "Nothing found within the budget"
		v.VerdictClass = "none"
	default:
		v.Headline = safetext.QuoteUnsafe(r.Verdict) + " " + property
	}
	v.Title = fmt.Sprintf("macemc: %s: %s", strings.ToLower(v.Headline[:1])+v.Headline[1:], v.System)
	add := func(label, value string) {
		if value != "" {
			v.Facts = append(v.Facts, fact{Label: label, Value: value})
		}
	}
	add("system", strings.TrimSpace(v.System+" "+v.Params))
	add("seed", strconv.FormatUint(r.Seed, 10))
	add("certainty", r.Certainty)
	if r.Strategy != "" && r.Strategy != "dfs" {
		add("exploration", r.Strategy)
	}
	if len(r.Properties) > 0 {
		props := make([]string, len(r.Properties))
		for i, n := range r.Properties {
			props[i] = safetext.QuoteUnsafe(n)
		}
		add("properties", strings.Join(props, ", "))
	}
	if r.PrefixSteps > 0 {
		add("prefix", fmt.Sprintf("searched from the end of a %d-step prefix: every path and verdict is of executions that begin with it", r.PrefixSteps))
	}
	if ep != nil {
		steps := plural(int64(ep.Steps), "step")
		if end := pathEnd(r, monitor, t.Depth, ep.Steps); end != "" {
			steps += " (" + end + ")"
		}
		if ep.Fail > ep.Steps {
			steps += fmt.Sprintf(", then the handler of step %d did not return", ep.Fail)
		}
		add("path", steps)
		switch {
		case r.Kind == "lasso" || ep.CycleLen > 0:
			add("search depth", lassoDepth(r, ep))
		case t.Depth > 0 && r.Verdict == "liveness" && ep.Steps <= t.Depth:
			// The path ended before the search depth: liveness was
			// checked at its end (the critical transition's d_init).
			add("search depth", fmt.Sprintf("%d; this path ended before it, at step %d, so its liveness was checked there (d_init = %d)", t.Depth, ep.Steps, ep.Steps))
		case t.Depth > 0 && r.Verdict == "liveness":
			add("search depth", fmt.Sprintf("%d (liveness counts after it)", t.Depth))
		}
		if t.WalkDepth > 0 {
			add("walk depth d_max", comma(t.WalkDepth))
		}
	}
	if c := r.Critical; c != nil {
		switch {
		case c.Condition == "C2" && r.Kind == "lasso":
			// A lasso keeps reaching states from which walks recover:
			// a transient-state violation, which has no critical
			// transition; C2 is no call to raise d_max.
			add("critical transition", "none, as expected of a lasso: walks from its states still reach live states (condition C2)")
		case c.Interrupted:
			add("critical transition", "not known: "+interruptedBounds(c))
		case c.Condition == "C2":
			add("critical transition", "none found within the search depth (condition C2: not enough evidence of a dead state; raise the walk depth)")
		case c.Event == "":
			add("critical transition", fmt.Sprintf("none: dead from step %d (condition %s)", c.Step, c.Condition))
		default:
			add("critical transition", fmt.Sprintf("step %d, %s (condition %s)", c.Step, c.Event, c.Condition))
		}
		search := fmt.Sprintf("k = %d walks per probe to d_max = %s, %s", c.Walks, comma(c.WalkDepth), plural(int64(c.Probes), "probe"))
		if c.Interrupted {
			search += ", interrupted"
		}
		add("critical search", search)
		v.Explain = c.Explain
		if r.CriticalNote != "" {
			v.Notes = append(v.Notes, r.CriticalNote)
		}
	} else if ep != nil && ep.Crit >= 0 {
		add("critical transition", fmt.Sprintf("step %d (condition %s)", ep.Crit, ep.Cond))
	}
	if r.Rounds > 0 || r.Paths > 0 {
		rounds := "1 round"
		if r.Rounds != 1 {
			rounds = fmt.Sprintf("%d rounds", r.Rounds)
		}
		// As the text report says it: a search that hashes no state
		// (--no-hashing, or a strategy that never prunes) counts no
		// distinct states, which is not "0 distinct states".
		paths, states := plural(r.Paths, "path")+fmt.Sprintf(" (%s cut by a repeated state)", comma64(r.Pruned)), plural(r.DistinctStates, "distinct state")
		switch {
		case r.Unhashed:
			paths, states = plural(r.Paths, "path")+" (none pruned)", "distinct states not counted"
		case r.Forgotten > 0:
			states = plural(r.DistinctStates, "state") + " recorded (not all distinct: the full visited-state set forgot earlier rounds' states)"
		case r.Unrecorded > 0:
			states = plural(r.DistinctStates, "distinct state") + " recorded (the visited-state set was full: more were reached)"
		}
		add("coverage", fmt.Sprintf("%s, depth %d complete, %s, %s, %s, %s",
			rounds, r.DeepestComplete, paths, plural(r.Walks, "walk"), plural(r.Transitions, "transition"), states))
	}
	if r.Stop != "" {
		add("stopped", stopText(r))
	}
	if m := r.Minimized; m != nil {
		add("minimization", minimizedText(m))
	}
	for _, a := range r.AlsoViolated {
		add("also failing", a)
	}
	if f, err := sim.ParseFailures(sim.Failures{}, r.Faults); err == nil && r.Faults != "" {
		add("faults", faultsText(r, f))
	}
	if r.Files["history_html"] != "" {
		// The history pages are written beside this one.
		value := "not linearizable"
		if l := r.Lin; l != nil {
			value += fmt.Sprintf(" (%s checked, %s, %s not linearizable, %s undecided)", plural(l.Checked, "execution"), pluralOf(l.Distinct, "distinct history", "distinct histories"), comma64(l.Illegal), comma64(l.Unknown))
		}
		f := fact{Label: "clients' history", Value: value + "; the pages beside this one show it:", Links: []link{{"history.html", filepath.Base(r.Files["history_html"])}}}
		if h := r.Files["history_full_html"]; h != "" {
			f.Links = append(f.Links, link{"history-full.html (every operation)", filepath.Base(h)})
		}
		v.Facts = append(v.Facts, f)
	}
	if len(r.Violations) > 1 {
		add("violations", fmt.Sprintf("%d violating paths; this page shows the first", len(r.Violations)))
	}
	if r.Lasso != nil {
		v.Lasso, v.LassoFirst = r.Lasso, r.Lasso.Stem+1
	}
	if tp := r.Temperature; tp != nil {
		add("temperature", fmt.Sprintf("alarm at step %d (threshold %d): %s", tp.AlarmStep, tp.Threshold, tp.Verdict))
		if tp.Note != "" {
			v.Notes = append(v.Notes, tp.Note)
		}
	}
	switch {
	case ep != nil && ep.Fail >= 0:
		text := ep.FailText
		if r.Error != "" && ep.Stack == "" && !strings.Contains(text, r.Error) {
			text += "\n" + r.Error
		}
		if r.Kind == "linearizability" && len(r.MinimalHistory) > 0 {
			// One operation a line.
			text = "the clients' history is not linearizable; these operations already are not:\n" + strings.Join(r.MinimalHistory, "\n")
		}
		if ep.Fail > ep.Steps {
			text += fmt.Sprintf("\nThe path ends after step %d, before the hung step: it has no state after it.", ep.Steps)
		}
		v.Failure = &failure{Step: ep.Fail, Text: text, Stack: ep.Stack, StackOf: "the handler's stack"}
		if monitor != "" {
			v.Failure.StackOf = "the stack of monitor " + safetext.QuoteUnsafe(monitor) + "'s Handle"
		}
	case r.Error != "":
		// A failure no step of the log shows (replays that differ, memory
		// shared between nodes, a model that failed): the report's text.
		v.Failure = &failure{Step: r.Steps, Text: r.Error}
	}
	if t != nil && t.Note != "" && (r.Lasso == nil || r.Lasso.Note != t.Note) && (r.Temperature == nil || !strings.Contains(r.Temperature.Note, t.Note)) {
		v.Notes = append(v.Notes, t.Note)
	}
	// The commands name the files where they are now, in.Dir (the
	// report's own commands name the directory the search wrote, which may
	// since have been moved), and the binary that makes the page.
	dir := in.Dir
	if t != nil {
		file := func(name string) string { return safetext.ShellQuotePath(filepath.Join(dir, name)) }
		v.Commands = append(v.Commands, command{"replay the violation", fmt.Sprintf("%s replay --trace %s --log %s", b.o.Tool, file(ErrorTrace), file("error.log"))})
		hint := ""
		switch {
		case ep != nil && ep.Crit >= 0 && in.Live != nil:
			hint = " -c 'j crit; filediff'"
		case ep != nil && ep.Crit >= 0:
			// mdb's filediff needs the live path (DIR/live.trace).
			hint = " -c 'j crit'"
		case ep != nil && ep.CycleLen > 0:
			hint = " -c 'j cycle; g cycle'"
		}
		v.Commands = append(v.Commands, command{"debug it", b.debugCommand(in) + hint})
	}
	v.Commands = append(v.Commands, command{"make this page again", fmt.Sprintf("%s report %s", b.o.Tool, safetext.ShellQuotePath(orDot(dir)))})
}

// deadKind says what a "dead" finding's path shows, as its critical
// transition and certainty tell: a dead state (C1), no live state within
// d_max on too little evidence of a dead one (C2, or suspected), or not
// known (the critical-transition search was interrupted).
func deadKind(r *Report) string {
	c := r.Critical
	switch {
	case c != nil && c.Interrupted:
		return "no live state within d_max; whether the path reaches a dead state is not known: the search for the critical transition was interrupted"
	case c != nil && c.Condition == "C2", r.Certainty == "suspected":
		return "no live state within d_max: not enough evidence of a dead state (the system may only need more steps than d_max to become live)"
	}
	return "a dead state: the path reaches a state from which no execution becomes live"
}

// interruptedBounds says how far an interrupted critical-transition
// search had narrowed the critical transition, as the text report does.
func interruptedBounds(c *Critical) string {
	s := "the search for it was interrupted"
	switch lo, hi := c.Recovered, c.Dead; {
	case lo >= 0 && hi == lo+1:
		return s + fmt.Sprintf(" once its probes had narrowed it to transition %d (state %d recovered, and no walk recovered from state %d; the confirmation had not finished)", hi, lo, hi)
	case lo >= 0 && hi >= 0:
		return s + fmt.Sprintf(" once its probes had narrowed it to transitions %d-%d (state %d recovered, and no walk recovered from state %d)", lo+1, hi, lo, hi)
	case lo >= 0:
		return s + fmt.Sprintf("; state %d still recovered, so the critical transition, if any, is later", lo)
	case hi >= 0:
		return s + fmt.Sprintf("; no walk recovered from state %d, so the critical transition is at or before it", hi)
	}
	return s + " before any probe had finished"
}

// stopText is the "stopped" fact: why the search stopped, what an
// interruption cut short, and the time of the search and its analysis.
// That time leaves out the writing of the files (report.json's phases_s),
// during which the search writes this page: a page made again later from
// the final report.json says the same.
func stopText(r *Report) string {
	stop := r.Stop
	if r.Stop == "violation" {
		stop = "at the violation"
	}
	files, ok := r.PhasesS["files"]
	if ok && r.ElapsedS >= files {
		stop += fmt.Sprintf("; the search and its analysis took %.2fs (the search %.2fs), besides writing the files", r.ElapsedS-files, r.SearchS)
	} else {
		stop += fmt.Sprintf(" after %.2fs (search %.2fs)", r.ElapsedS, r.SearchS)
	}
	if !r.Incomplete {
		return stop
	}
	if r.Stop != "violation" {
		return stop + "; the search was cut short"
	}
	// The search ended at its violation: the interruption came after.
	var what []string
	if c := r.Critical; c != nil && c.Interrupted {
		what = append(what, "the search for the critical transition")
	}
	if m := r.Minimized; m != nil && (m.Stopped == "an interruption" || m.StepsAfter == 0) {
		what = append(what, "the minimization")
	}
	if len(what) == 0 {
		what = append(what, "the analysis of the violation or the writing of its files")
	}
	return stop + "; the run was interrupted after it: " + strings.Join(what, " and ") + " was cut short"
}

// minimizedText is the "minimization" fact, as the text report's
// "minimized doomed path" line says it.
func minimizedText(m *Minimized) string {
	if m.StepsAfter == 0 {
		return m.Note
	}
	how := "1-minimal"
	if !m.OneMinimal {
		how = "not proved 1-minimal"
		if m.Stopped != "" {
			how += ": ddmin stopped at " + m.Stopped
		}
	}
	tests := plural(int64(m.Tests), "test")
	switch {
	case m.StepsAfter != m.StepsBefore:
		return fmt.Sprintf("%s of the dead path's first %d, ending with its critical transition (%s, %s)", plural(int64(m.StepsAfter), "step"), m.StepsBefore, how, tests)
	case !m.OneMinimal:
		return fmt.Sprintf("none of the dead path's first %s dropped (%s, %s)", plural(int64(m.StepsAfter), "step"), how, tests)
	case m.StepsAfter == 1:
		return fmt.Sprintf("its 1 step is needed (%s, %s)", how, tests)
	}
	return fmt.Sprintf("all of the dead path's first %s are needed (%s, %s)", plural(int64(m.StepsAfter), "step"), how, tests)
}

// pathEnd says how and where the error path ended, as the report's
// outcome and the trace's search depth tell: inside the bounded search
// (a path no longer than the depth) or in the random walk after it. It is
// "" for a finding whose own facts say how its path ends (a lasso, a
// temperature alarm, a history, a hung handler) and without a report.
func pathEnd(r *Report, monitor string, depth, steps int) string {
	var how string
	switch {
	case r.Verdict != "liveness" && r.Verdict != "safety", r.Kind == "linearizability", r.Kind == "hang":
		return ""
	case r.Outcome == "quiescent":
		how = "ended quiescent"
	case r.Outcome == "dead":
		how = "no live state within d_max,"
	case r.Outcome == "unsafe":
		how = fmt.Sprintf("unsafe at step %d,", steps)
	case r.Outcome == "failed" && monitor != "":
		how = fmt.Sprintf("monitor %s panicked in its Handle at step %d,", safetext.QuoteUnsafe(monitor), steps)
	case r.Outcome == "failed" && r.Kind == "panic":
		how = fmt.Sprintf("a handler panicked at step %d,", steps)
	case r.Outcome == "failed":
		how = fmt.Sprintf("failed at step %d,", steps)
	default:
		return ""
	}
	bound := fmt.Sprintf(" of depth %d", depth)
	if r.PrefixSteps > 0 && depth > r.PrefixSteps {
		bound = fmt.Sprintf(" of steps %d-%d, after the %d-step prefix", r.PrefixSteps+1, depth, r.PrefixSteps)
	}
	switch {
	case depth <= 0 && r.Strategy == "walk":
		return how + " in a random walk from the initial state: the walk strategy has no bounded search"
	case depth <= 0:
		return strings.TrimSuffix(how, ",")
	case steps <= depth:
		return how + " inside the bounded search" + bound
	}
	return how + " in the walk after the bounded search" + bound
}

// panickedMonitor names the monitor whose Handle panicked at the end of
// the error path, "" when none did: as the replay's panic says it (ep), or
// the report (a panic whose property is not a handler's is a monitor's).
func panickedMonitor(r *Report, ep *pathData) string {
	switch {
	case ep != nil && ep.monitor != "":
		return ep.monitor
	case r.Kind == "panic" && r.Property != walks.PanicProperty:
		return r.Property
	}
	return ""
}

// lassoDepth is the "search depth" fact of a lasso: the search's depth
// bound, which report.json's depth_bound has (its depth, and the trace's,
// are the lasso's stem), and where the cycle starts.
func lassoDepth(r *Report, ep *pathData) string {
	stem := ep.CycleStart
	if r.Lasso != nil {
		stem = r.Lasso.Stem
	}
	where := fmt.Sprintf("the lasso's cycle starts at step %d, after its %d-step stem", stem, stem)
	if r.DepthBound <= 0 {
		return "not recorded (" + where + ")"
	}
	return fmt.Sprintf("%d (the search's depth bound); %s", r.PrefixSteps+r.DepthBound, where)
}

// faultsText is the "faults" fact, f parsed from r.Faults: the failure
// budgets and where in a path they may happen, as the text report's
// faults line says it, with reordering set apart: datagrams are reordered
// all along each path, walks included, while the budgets stop where the
// bounded part ends unless --walk-failures.
func faultsText(r *Report, f sim.Failures) string {
	if !f.Any() && !f.Reorder {
		return "none"
	}
	reorder := ""
	if f.Reorder {
		reorder = "datagrams reordered all along"
	}
	if !f.Any() {
		return "no failure budget; " + reorder
	}
	text := r.Faults
	if f.Reorder {
		// Set apart from the budgets, which the note after them is of.
		var budgets []string
		for _, b := range strings.Split(r.Faults, ",") {
			if b != "reorder=true" {
				budgets = append(budgets, b)
			}
		}
		text = strings.Join(budgets, ",")
	}
	switch {
	case r.WalkFailures:
		text += " (failures in the walks too: --walk-failures)"
	case r.DepthBound > 0 && r.PrefixSteps > 0:
		// The prefix ran without failures, as the walks did.
		text += fmt.Sprintf(" (failures only in each path's bounded part, steps %d to %d after the %d-step prefix, which had none; the walks ran without them: --walk-failures injects them there too)", r.PrefixSteps+1, r.PrefixSteps+r.DepthBound, r.PrefixSteps)
	case r.DepthBound > 0:
		// Failures end at the bounded part's end (explore's
		// failuresUntil).
		text += fmt.Sprintf(" (failures only in each path's bounded part, up to step %d; the walks ran without them: --walk-failures injects them there too)", r.PrefixSteps+r.DepthBound)
	case r.Rounds > 0:
		// A search with no bounded part (walk) has them all along.
		text += " (failures all along each walk)"
	}
	if reorder != "" {
		text += " — " + reorder
	}
	return text
}

// cutNote says what the page cuts of large states and where to see them
// whole.
func (b *builder) cutNote(in Input, step int) string {
	lim := b.o.Limits
	return fmt.Sprintf("Some states are too large to show whole: in the state panel, lines over %s bytes show their start, length and digest, lists over %d items their first %d and last %d, and a node's state or the network at most %d lines. "+
		"A marker such as \"… 1,234 more items (digest 5b0e21aa)\" stands for what is left out, and its digest changes when that does. What each step changed is shown however deep it lies. "+
		"mdb shows states whole: %s -c 'j %d; state' (the state at step %d), -c 'j %d; d' (what step %d changed).",
		comma(lim.LineBytes), lim.ListItems, lim.ListItems/2, lim.ListItems/4, lim.SectionLines, b.debugCommand(in), step, step, step, step)
}

// debugCommand is the command that opens in's result directory in mdb,
// with the binary that makes the page (Options.Tool), as the replay
// command names it: a user's binary built on cli.Main knows the user's
// systems, the mdb command does not.
func (b *builder) debugCommand(in Input) string {
	return b.o.Tool + " mdb " + safetext.ShellQuotePath(orDot(in.Dir))
}

func orDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// compare diffs the dead state and the live state at the critical step,
// from their whole texts: ep's kept and live, the live path lp's sections
// at that step.
func (b *builder) compare(ep, lp *pathData, live []*textLines) *compare {
	n := ep.Crit
	c := &compare{Step: n}
	if n >= 1 {
		c.DeadEvent = b.strs.list[ep.Ev[(n-1)*evWidth+3]]
		c.LiveEvent = b.strs.list[lp.Ev[(n-1)*evWidth+3]]
	}
	titles := slices.Concat(b.nodes, b.monitors, []string{"network"})
	for k := range ep.kept {
		sd := b.sideBySide(titles[k], ep.kept[k], live[k])
		c.Cut = c.Cut || sd.Cut
		c.Sections = append(c.Sections, sd)
	}
	return c
}

// compareLines bounds the lines between the common start and end of two
// sections that sideBySide diffs with diffmatchpatch; past it they are
// diffed by diffSeqWork within compareWork comparisons.
const (
	compareLines = 4000
	compareWork  = 50_000_000
)

// sideBySide diffs two texts line by line into rows, pairing a run of
// removed lines with the run of added lines after it and marking the
// characters that differ within a pair. What would make the page grow
// with the state is cut as views are (see cut.go): a run of more than
// Limits.ListItems identical rows shows a quarter of that either end,
// a run of removed or added lines its first half and last quarter, a long
// line its start (or, in a pair that differs, the bytes around the
// difference), and a section at most Limits.SectionLines rows.
func (b *builder) sideBySide(title string, at, ct *textLines) sectionDiff {
	lim := b.o.Limits
	sd := sectionDiff{Title: title, Same: at.text == ct.text}
	dmp := diffmatchpatch.New()
	// No deadline: diffmatchpatch gives up on a diff after a second of
	// wall-clock time by default, which would make the page depend on the
	// machine; what it diffs here is bounded (compareLines, LineBytes).
	dmp.DiffTimeout = 0
	cutRow := func(text string) {
		sd.Rows = append(sd.Rows, diffRow{Left: []seg{{Text: text}}, Right: []seg{{Text: text}}, Op: "cut"})
		sd.Cut = true
	}
	short := func(l string) string {
		if len(l) > lim.LineBytes {
			sd.Cut = true
			return cutLine(l, lim.LineBytes, nil)
		}
		return l
	}
	// same adds n identical lines, line(i) the i-th.
	same := func(n int, line func(i int) string) {
		keep := lim.ListItems / 4
		for i := 0; i < n; i++ {
			if n > lim.ListItems && i == keep {
				cutRow(fmt.Sprintf("%s… %s identical lines", strings.Repeat(" ", indent(line(i))), comma(n-2*keep)))
				i = n - keep
			}
			l := short(line(i))
			sd.Rows = append(sd.Rows, diffRow{Left: []seg{{Text: l}}, Right: []seg{{Text: l}}, Op: "same"})
		}
	}
	sameOf := func(ls []string) { same(len(ls), func(i int) string { return ls[i] }) }
	sameAt := func(from, to int) { same(to-from, func(i int) string { return at.line(from + i) }) }
	var del, ins []string
	// pair adds the row of del[di] and ins[ii]; an index out of its
	// side's range leaves that side empty.
	pair := func(di, ii int) {
		hasD, hasI := di >= 0 && di < len(del), ii >= 0 && ii < len(ins)
		switch {
		case hasD && hasI:
			dl, il := del[di], ins[ii]
			if len(dl) > lim.LineBytes || len(il) > lim.LineBytes {
				sd.Cut = true
				cd, ci := changed(dl, il)
				if len(dl) > lim.LineBytes {
					dl = cutLine(dl, lim.LineBytes, &cd)
				}
				if len(il) > lim.LineBytes {
					il = cutLine(il, lim.LineBytes, &ci)
				}
			}
			l, r := markDiff(dmp, dl, il)
			sd.Rows = append(sd.Rows, diffRow{Left: l, Right: r, Op: "change"})
		case hasD:
			sd.Rows = append(sd.Rows, diffRow{Left: []seg{{Text: short(del[di])}}, Op: "del"})
		case hasI:
			sd.Rows = append(sd.Rows, diffRow{Right: []seg{{Text: short(ins[ii])}}, Op: "add"})
		}
	}
	flush := func() {
		head, tail := lim.ListItems/2, lim.ListItems/4
		if n := max(len(del), len(ins)); n <= lim.ListItems {
			for i := range n {
				pair(i, i)
			}
		} else {
			for i := range head {
				pair(i, i)
			}
			cutRow(fmt.Sprintf("… %s more lines removed, %s added", comma(max(0, len(del)-head-tail)), comma(max(0, len(ins)-head-tail))))
			// The last lines of each side.
			for j := tail; j > 0; j-- {
				di, ii := len(del)-j, len(ins)-j
				if di < head {
					di = -1
				}
				if ii < head {
					ii = -1
				}
				pair(di, ii)
			}
		}
		del, ins = nil, nil
	}
	n, m := at.len(), ct.len()
	pre := 0
	for pre < n && pre < m && at.line(pre) == ct.line(pre) {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && at.line(n-1-suf) == ct.line(m-1-suf) {
		suf++
	}
	sameAt(0, pre)
	if x, y := n-pre-suf, m-pre-suf; x+y > compareLines {
		eq := func(i, j int) bool { return at.line(pre+i) == ct.line(pre+j) }
		last := 0
		for _, h := range diffSeqWork(x, y, eq, compareWork) {
			sameAt(pre+last, pre+h.os)
			del, ins = at.lines(pre+h.os, pre+h.os+h.ol), ct.lines(pre+h.ns, pre+h.ns+h.nl)
			flush()
			last = h.os + h.ol
		}
		sameAt(pre+last, n-suf)
	} else {
		ca, cb, lines := dmp.DiffLinesToChars(joinLines(at.lines(pre, n-suf)), joinLines(ct.lines(pre, m-suf)))
		for _, d := range dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines) {
			ls := splitLines(d.Text)
			switch d.Type {
			case diffmatchpatch.DiffDelete:
				if len(ins) > 0 {
					flush()
				}
				del = append(del, ls...)
			case diffmatchpatch.DiffInsert:
				ins = append(ins, ls...)
			default:
				flush()
				sameOf(ls)
			}
		}
		flush()
	}
	sameAt(n-suf, n)
	if len(sd.Rows) > lim.SectionLines {
		left := len(sd.Rows) - lim.SectionLines
		sd.Rows = sd.Rows[:lim.SectionLines]
		cutRow(fmt.Sprintf("… %s more rows", comma(left)))
	}
	return sd
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// markDiff splits two lines into runs, marking the words (runs of letters
// and digits) and symbols that differ.
func markDiff(dmp *diffmatchpatch.DiffMatchPatch, a, b string) (l, r []seg) {
	// Diff the lines as strings of tokens, one rune per distinct token
	// (as DiffLinesToChars does for lines).
	var tokens []string
	ids := map[string]rune{}
	encode := func(s string) string {
		var out []rune
		for _, t := range tokenize(s) {
			id, ok := ids[t]
			if !ok {
				id = rune(len(tokens) + 1)
				if id >= 0xD800 { // past the surrogates
					id += 0x800
				}
				ids[t] = id
				tokens = append(tokens, t)
			}
			out = append(out, id)
		}
		return string(out)
	}
	decode := func(s string) string {
		var b strings.Builder
		for _, id := range s {
			if id > 0xD800 {
				id -= 0x800
			}
			b.WriteString(tokens[id-1])
		}
		return b.String()
	}
	diffs := dmp.DiffMain(encode(a), encode(b), false)
	for _, d := range diffs {
		text := decode(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			l = append(l, seg{Text: text})
			r = append(r, seg{Text: text})
		case diffmatchpatch.DiffDelete:
			l = append(l, seg{Text: text, Mark: true})
		case diffmatchpatch.DiffInsert:
			r = append(r, seg{Text: text, Mark: true})
		}
	}
	return l, r
}

// tokenize splits a line into words (letters, digits, _ and .) and single
// other characters.
func tokenize(s string) []string {
	var out []string
	word := func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || c == '.' }
	start := -1
	for i, c := range s {
		switch {
		case word(c) && start < 0:
			start = i
		case !word(c):
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			out = append(out, string(c))
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// comma writes n with thousands separators.
func comma(n int) string { return comma64(int64(n)) }

// plural is n (with commas) and noun, with an s unless n is 1.
func plural(n int64, noun string) string { return pluralOf(n, noun, noun+"s") }

// pluralOf is n (with commas) and one or many, as n is 1 or not.
func pluralOf(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return comma64(n) + " " + many
}

func comma64(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
