package htmlreport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/macemc/macemc/mdb/htmlreport"
	"github.com/macemc/macemc/mdb/htmlreport/reporttest"
	"github.com/macemc/macemc/mdb/mdbtest"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/services/register"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/simtest"
	"github.com/macemc/macemc/sim/trace"
)

// rewrite says to rewrite the golden files under testdata: it reads
// datadriven's -rewrite flag, which rewrites the scenario files
// (commands.txt) too.
func rewrite() bool {
	f := flag.Lookup("rewrite")
	return f != nil && f.Value.String() == "true"
}

// ---- reading a page ----

// page is a parsed report.html and its data.
type page struct {
	doc  *html.Node
	data pageData
	raw  []byte
}

// pageData mirrors what htmlreport writes into the page for its script.
type pageData struct {
	Nodes    []string `json:"nodes"`
	Monitors []string `json:"monitors"`
	Strs     []string `json:"strs"`
	Props    []struct {
		Name, Kind string
	} `json:"props"`
	Paths []struct {
		Name        string  `json:"name"`
		Steps       int     `json:"steps"`
		Crit        int     `json:"crit"`
		Depth       int     `json:"depth"`
		Prefix      int     `json:"prefix"`
		Shared      int     `json:"shared"`
		CycleStart  int     `json:"cycleStart"`
		CycleLen    int     `json:"cycleLen"`
		Fail        int     `json:"fail"`
		FailText    string  `json:"failText"`
		Stack       string  `json:"stack"`
		Tail        int     `json:"tail"`
		TailTop     []int   `json:"tailTop"`
		Ev          []int   `json:"ev"`
		Msgs        []int   `json:"msgs"`
		Init        [][]int `json:"init"`
		Diffs       []int   `json:"diffs"`
		Views       []int   `json:"views"`
		Cut         bool    `json:"cut"`
		Props       []int   `json:"props"`
		StatesUntil int     `json:"statesUntil"`
		StatesLimit string  `json:"statesLimit"`
	} `json:"paths"`
	Select  int    `json:"select"`
	Markers []int  `json:"markers"`
	Debug   string `json:"debug"`
}

func readPage(t *testing.T, file string) *page {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	p := &page{doc: doc, raw: raw}
	script := find(doc, func(n *html.Node) bool { return n.Data == "script" && attr(n, "id") == "macemc-data" })
	if len(script) != 1 {
		t.Fatalf("%d data scripts in the page", len(script))
	}
	if err := json.Unmarshal([]byte(text(script[0])), &p.data); err != nil {
		t.Fatalf("the page's data: %v", err)
	}
	return p
}

func find(n *html.Node, pred func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && pred(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	return slices.Contains(strings.Fields(attr(n, "class")), class)
}

// byClass finds the elements of tag (any tag when "") with class.
func byClass(n *html.Node, tag, class string) []*html.Node {
	return find(n, func(n *html.Node) bool { return (tag == "" || n.Data == tag) && hasClass(n, class) })
}

func byID(n *html.Node, id string) *html.Node {
	if f := find(n, func(n *html.Node) bool { return attr(n, "id") == id }); len(f) > 0 {
		return f[0]
	}
	return nil
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// stateAt rebuilds every section's text after n steps of path i from the
// page's data, as the page's script does.
func (p *page) stateAt(i, n int) []string {
	cur := p.viewAt(i, n)
	out := make([]string, len(cur))
	for k, c := range cur {
		var b strings.Builder
		for _, id := range c {
			b.WriteString(p.data.Strs[id] + "\n")
		}
		out[k] = b.String()
	}
	return out
}

// viewAt rebuilds every section's view (its lines' string ids) after n
// steps of path i, as the page's script does.
func (p *page) viewAt(i, n int) [][]int {
	d := p.data.Paths[i]
	cur := make([][]int, len(d.Init))
	for k, c := range d.Init {
		cur[k] = slices.Clone(c)
	}
	for o := 0; o < len(d.Diffs); {
		step, k, at, del, nins := d.Diffs[o], d.Diffs[o+1], d.Diffs[o+2], d.Diffs[o+3], d.Diffs[o+4]
		if step > n {
			break
		}
		cur[k] = slices.Replace(cur[k], at, at+del, d.Diffs[o+5:o+5+nins]...)
		o += 5 + nins
	}
	return cur
}

// replayed returns every node's and monitor's state (without its title
// line) and the network after n steps of t, from the simulator itself.
func replayed(t *testing.T, tr *trace.Trace, n int) []string {
	t.Helper()
	s, err := tr.Replay(n, nil)
	if err != nil && !errors.Is(err, engine.ErrHandlerPanic) {
		t.Fatalf("replay %d steps: %v", n, err)
	}
	var out []string
	for i := 0; i < s.Nodes(); i++ {
		_, body, _ := strings.Cut(s.NodeText(sim.NodeID(i)), "\n")
		out = append(out, body)
	}
	for i := range s.Monitors() {
		_, body, _ := strings.Cut(s.MonitorText(i), "\n")
		out = append(out, body)
	}
	return append(out, s.NetworkText())
}

// ---- every example system ----

// TestExamplePages renders every example system's finding (budget:
// reporttest.Examples) and checks the page: the headline names the
// verdict; one lane per node; the critical step, the lasso's cycle or the
// failing step is marked; the dead and live states at the critical step
// are compared section by section; the states the script rebuilds are the
// simulator's; every delivered message ends where a node receives it; and
// nothing is fetched from outside the file.
func TestExamplePages(t *testing.T) {
	for _, ex := range reporttest.Examples {
		t.Run(ex.Name, func(t *testing.T) {
			dir := t.TempDir()
			reporttest.Search(t, dir, ex)
			if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
				t.Fatal(err)
			}
			p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
			rep, err := htmlreport.ReadReport(filepath.Join(dir, htmlreport.ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != ex.Verdict || rep.Kind != ex.Kind {
				t.Fatalf("the search found %s/%s, want %s/%s", rep.Verdict, rep.Kind, ex.Verdict, ex.Kind)
			}
			et, err := trace.Read(filepath.Join(dir, htmlreport.ErrorTrace))
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := et.Config()
			if err != nil {
				t.Fatal(err)
			}
			checkHeadline(t, p, rep)
			checkSelfContained(t, p)

			// One lane per node, titled as the simulator names the node.
			heads := byClass(p.doc, "div", "lane-head")
			if len(heads) != cfg.Nodes {
				t.Fatalf("%d lane heads for %d nodes", len(heads), cfg.Nodes)
			}
			s0 := replayedTitles(t, et)
			for i, h := range heads {
				if text(h) != s0[i] || attr(h, "data-node") != strconv.Itoa(i) {
					t.Errorf("lane %d is %q (data-node %s), want %q", i, text(h), attr(h, "data-node"), s0[i])
				}
			}
			ep := p.data.Paths[0]
			if ep.Name != "error" || ep.Steps != et.Steps {
				t.Fatalf("the first path is %q with %d steps, want the error path's %d", ep.Name, ep.Steps, et.Steps)
			}
			if len(ep.Ev) != 5*ep.Steps {
				t.Errorf("%d event numbers for %d steps", len(ep.Ev), ep.Steps)
			}

			// The telling step is marked and selected.
			switch {
			case ex.Kind == "dead":
				if ep.Crit != et.Critical || ep.Crit < 0 || (rep.Critical != nil && rep.Critical.Step != ep.Crit) {
					t.Fatalf("critical step %d on the page, %d in the trace", ep.Crit, et.Critical)
				}
				checkMark(t, p, "crit", ep.Crit)
				if p.data.Select != ep.Crit {
					t.Errorf("the page opens at step %d, not the critical step %d", p.data.Select, ep.Crit)
				}
				checkCompare(t, p, et, dir)
			case ex.Kind == "lasso":
				if ep.CycleLen != rep.Lasso.CycleLength || ep.CycleStart != rep.Lasso.Stem {
					t.Fatalf("cycle %d+%d on the page, the report's is %d+%d", ep.CycleStart, ep.CycleLen, rep.Lasso.Stem, rep.Lasso.CycleLength)
				}
				checkMark(t, p, "cycle", ep.CycleStart+1)
				if byID(p.doc, "lasso") == nil {
					t.Error("no lasso section")
				}
				// A lasso's C2 is no call for a larger d_max.
				if c := rep.Critical; c != nil && c.Condition == "C2" && strings.Contains(text(p.doc), "raise the walk depth") {
					t.Error("the page advises a larger walk depth for a lasso's C2")
				}
				// The cycle returns to its first state.
				if a, b := p.stateAt(0, ep.CycleStart), p.stateAt(0, ep.CycleStart+ep.CycleLen); !slices.Equal(a, b) && rep.Lasso.Hash == "exact" {
					t.Errorf("the page's states at the cycle's ends differ:\n%v\n%v", a, b)
				}
			case ex.Verdict == "safety":
				if ep.Fail != ep.Steps {
					t.Fatalf("failing step %d, want the last, %d", ep.Fail, ep.Steps)
				}
				checkMark(t, p, "fail", ep.Fail)
				f := byID(p.doc, "failure")
				want := rep.Property
				if rep.Kind == "linearizability" {
					// The history, not a property of a state: the
					// operations that are not linearizable.
					want = rep.MinimalHistory[0]
				}
				if f == nil || !strings.Contains(text(f), want) {
					t.Errorf("the failure section does not say %q", want)
				}
			}

			// The states the script rebuilds are the simulator's.
			for _, n := range []int{0, 1, ep.Steps / 2, max(ep.Crit, 0), ep.Steps} {
				if got, want := p.stateAt(0, n), replayed(t, et, n); !slices.Equal(got, want) {
					t.Errorf("step %d: the page's state differs from the replay:\n%q\n%q", n, got, want)
				}
			}
			for _, d := range p.data.Paths[1:] {
				if d.Name == "live" && (d.Crit != -1 || d.Fail != -1) {
					t.Errorf("the live path has a critical step %d or a failure %d: none of its states is dead", d.Crit, d.Fail)
				}
			}
			checkMessages(t, p, dir)
		})
	}
}

func replayedTitles(t *testing.T, tr *trace.Trace) []string {
	t.Helper()
	s, err := tr.Replay(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := 0; i < s.Nodes(); i++ {
		title, _, _ := strings.Cut(s.NodeText(sim.NodeID(i)), "\n")
		out = append(out, title)
	}
	return out
}

func checkHeadline(t *testing.T, p *page, rep *htmlreport.Report) {
	t.Helper()
	h := byID(p.doc, "headline")
	if h == nil {
		t.Fatal("no headline")
	}
	h1 := text(find(h, func(n *html.Node) bool { return n.Data == "h1" })[0])
	want := map[string]string{"liveness": "Liveness violation of " + rep.Property, "safety": "Safety violation of " + rep.Property}[rep.Verdict]
	if rep.Kind == "linearizability" {
		want = "Linearizability violation"
	}
	if rep.Certainty != "" && !strings.Contains(text(h), rep.Certainty) {
		t.Errorf("the headline does not give the certainty %q", rep.Certainty)
	}
	if !strings.Contains(h1, want) || !strings.Contains(h1, rep.System) {
		t.Errorf("headline %q, want %q in %s", h1, want, rep.System)
	}
	facts := text(h)
	for _, w := range []string{sim.Params(rep.Params).Canonical(), "seed", strconv.FormatUint(rep.Seed, 10), rep.Replay, "walk depth d_max", "report"} {
		if !strings.Contains(facts, w) {
			t.Errorf("the headline does not say %q", w)
		}
	}
	if !strings.Contains(facts, rep.Debug) {
		t.Errorf("the headline does not give the mdb command %q", rep.Debug)
	}
	// Reordering is set apart from the budgets: it goes on all along.
	f, err := sim.ParseFailures(sim.Failures{}, rep.Faults)
	budgets := strings.Replace(strings.Replace(rep.Faults, ",reorder=true", "", 1), "reorder=true,", "", 1)
	switch {
	case err != nil:
	case f.Any() && !strings.Contains(facts, "faults"+budgets):
		t.Errorf("the headline does not give the faults in force, %s", rep.Faults)
	case f.Reorder && !strings.Contains(facts, "datagrams reordered all along"):
		t.Errorf("the headline does not say that datagrams were reordered, %s", rep.Faults)
	}
	for _, a := range rep.AlsoViolated {
		if !strings.Contains(facts, "also failing"+a) {
			t.Errorf("the headline does not say %q also fails", a)
		}
	}
}

// TestAlsoFailing: the page of a safety violation names the other
// properties failing in the same state.
func TestAlsoFailing(t *testing.T) {
	over := func(v *sim.View) bool { return sim.Node[rally](v, 1).Count < 3 }
	sys := &sim.System{Name: "htmlreport-also", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &rally{Rounds: 10} },
			App:    func(id sim.NodeID) []any { return []any{"serve"}[:1-min(int(id), 1)] },
			Safety: []sim.Property{{Name: "Short", Check: over}, {Name: "Brief", Check: over}},
		}, nil
	}}
	dir := t.TempDir()
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Workers: 1, MaxPaths: 100, Out: dir})
	if err != nil || rep.First() == nil || len(rep.First().AlsoViolated) != 1 {
		t.Fatalf("want a safety violation with another property failing: %v %+v", err, rep.First())
	}
	if err := htmlreport.WriteDir(dir, htmlreport.Options{System: sys}); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
	r, err := htmlreport.ReadReport(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkHeadline(t, p, r)
}

// checkSelfContained fails when the page refers to anything outside it
// (but for links to the files beside it, which nothing fetches).
func checkSelfContained(t *testing.T, p *page) {
	t.Helper()
	for _, n := range find(p.doc, func(n *html.Node) bool { return true }) {
		for _, a := range n.Attr {
			switch a.Key {
			case "src", "href", "xlink:href", "action", "srcset":
				if n.Data == "a" && a.Key == "href" && !strings.ContainsAny(a.Val, "/\\:") {
					// A link to a file beside the page (history.html):
					// followed when clicked, never fetched.
					continue
				}
				if !strings.HasPrefix(a.Val, "#") && !strings.HasPrefix(a.Val, "data:") {
					t.Errorf("<%s %s=%q>: the page must be self-contained", n.Data, a.Key, a.Val)
				}
			}
		}
		if n.Data == "link" {
			t.Errorf("the page has a <link> element")
		}
	}
	if bytes.Contains(p.raw, []byte("@import")) || bytes.Contains(p.raw, []byte("url(http")) {
		t.Error("the page's style fetches something")
	}
}

func checkMark(t *testing.T, p *page, class string, step int) {
	t.Helper()
	for _, m := range byClass(p.doc, "button", "mark") {
		if hasClass(m, class) && attr(m, "data-path") == "0" && attr(m, "data-step") == strconv.Itoa(step) {
			return
		}
	}
	t.Errorf("no %s mark at step %d", class, step)
}

// checkCompare checks the side-by-side comparison at the critical step.
func checkCompare(t *testing.T, p *page, et *trace.Trace, dir string) {
	t.Helper()
	c := byID(p.doc, "compare")
	lt, err := trace.Read(filepath.Join(dir, htmlreport.LiveTrace))
	if err != nil {
		if c != nil {
			t.Error("a comparison without a live trace")
		}
		return
	}
	if c == nil {
		t.Fatal("no comparison of the dead and live states at the critical step")
	}
	secs := byClass(c, "div", "section-diff")
	if len(secs) != len(p.data.Nodes)+len(p.data.Monitors)+1 {
		t.Fatalf("%d sections compared, want every node, every monitor and the network", len(secs))
	}
	dead, live := replayed(t, et, et.Critical), replayed(t, lt, et.Critical)
	differ := 0
	for k, sec := range secs {
		same := hasClass(sec, "same")
		if same != (dead[k] == live[k]) {
			t.Errorf("section %s: marked same=%v, but the replays say %v", attr(sec, "data-title"), same, dead[k] == live[k])
		}
		if !same {
			differ++
			// The marked rows hold the lines that differ.
			rows := byClass(sec, "tr", "change")
			rows = append(rows, byClass(sec, "tr", "del")...)
			rows = append(rows, byClass(sec, "tr", "add")...)
			if len(rows) == 0 {
				t.Errorf("section %s differs but no row is marked", attr(sec, "data-title"))
			}
			for _, r := range rows {
				tds := find(r, func(n *html.Node) bool { return n.Data == "td" })
				l, rr := strings.TrimSpace(text(tds[0])), strings.TrimSpace(text(tds[1]))
				if l != "" && !strings.Contains(dead[k], l) || rr != "" && !strings.Contains(live[k], rr) {
					t.Errorf("section %s: the marked row %q | %q is not from the dead and live states", attr(sec, "data-title"), l, rr)
				}
			}
		}
	}
	if differ == 0 {
		t.Error("the dead and live states at the critical step are identical")
	}
}

// checkMessages checks every message record against a replay of the
// path's trace in dir. A delivered or dropped one ends at a step where its
// receiver takes a message of its type from its sender, the very send or
// copy the simulator says that step took (Event.Cause, Event.CopiedAt). A
// lost one ends at a step that loses it: a break of its connection, a
// crash of its receiver (or of its sender, for a message on a
// connection), a partition that splits a datagram's ends; or, flagged
// lost as it was sent (16: to a crashed node, 32: a datagram across a
// partition), at the step that sent it, with its receiver down or the
// network split between them. And after every step, what the page has in
// flight is what the simulator holds (Sim.NetworkText).
func checkMessages(t *testing.T, p *page, dir string) {
	t.Helper()
	for i, d := range p.data.Paths {
		evs, nets := replayEvents(t, filepath.Join(dir, d.Name+".trace"), d.Steps)
		// down[n] and cut[n]: the crashed nodes and the partition's side
		// after step n.
		down, cut := make([]uint64, len(evs)+1), make([]uint64, len(evs)+1)
		for n, ev := range evs {
			down[n+1], cut[n+1] = down[n], cut[n]
			switch ev.Kind {
			case engine.EvCrash:
				down[n+1] |= 1 << ev.Node
			case engine.EvPartition:
				cut[n+1] = ev.Side()
			case engine.EvHeal:
				cut[n+1] = 0
			}
		}
		across := func(side uint64, a, b int) bool { return (side>>a^side>>b)&1 == 1 }
		// adds[n] and ends[n]: the records that join and leave what is in
		// flight at step n.
		adds, ends := map[int][]string{}, map[int][]string{}
		for m := 0; m < len(d.Msgs); m += 7 {
			step, from, to, end, flags, typ := d.Msgs[m], d.Msgs[m+1], d.Msgs[m+2], d.Msgs[m+3], d.Msgs[m+4], p.data.Strs[d.Msgs[m+6]]
			kindText := "conn"
			if flags&4 != 0 {
				kindText = "datagram"
			}
			key := fmt.Sprintf("%s %d->%d: %s", kindText, from, to, p.data.Strs[d.Msgs[m+5]])
			adds[step] = append(adds[step], key)
			if end < 0 {
				if flags&3 != 3 {
					t.Errorf("path %d: a message without an end is not in flight (flags %d)", i, flags)
				}
				continue
			}
			ends[end] = append(ends[end], key)
			atSend := flags&(16|32) != 0
			if end < step || end == step && (!atSend || flags&3 != 2) || end > d.Steps {
				t.Fatalf("path %d: message sent at %d (flags %d) ends at %d", i, step, flags, end)
			}
			ev := d.Ev[(end-1)*5:]
			kind, node, peer := engine.EventKind(ev[0]), ev[1], ev[2]
			desc := p.data.Strs[ev[3]]
			what := fmt.Sprintf("path %d: %s %d->%d sent at step %d (flags %d) ends at step %d, %q", i, typ, from, to, step, flags, end, desc)
			switch flags & 3 {
			case 0, 1:
				want := []engine.EventKind{engine.EvMessage}
				if flags&4 != 0 {
					want = []engine.EventKind{engine.EvDatagram, engine.EvDrop}
				}
				if !slices.Contains(want, kind) || node != to || peer != from || !strings.Contains(desc, typ) {
					t.Errorf("%s: not its delivery", what)
				}
				if evs == nil {
					break
				}
				took, copied := int(evs[end-1].Cause)+1, evs[end-1].CopiedAt()+1
				if copied > 0 && (flags&8 == 0 || step != copied) || copied == 0 && (flags&8 != 0 || step != took) {
					t.Errorf("%s, which took the one sent at step %d (copied at %d)", what, took, copied)
				}
			case 2:
				var ok bool
				switch {
				case flags&16 != 0:
					ok = evs == nil || down[end]&(1<<to) != 0
				case flags&32 != 0:
					ok = flags&4 != 0 && (evs == nil || across(cut[end], from, to))
				case kind == engine.EvBreak:
					ok = flags&4 == 0 && (node == from && peer == to || node == to && peer == from)
				case kind == engine.EvCrash:
					ok = node == to || node == from && flags&4 == 0
				case kind == engine.EvPartition:
					ok = flags&4 != 0 && across(uint64(peer), from, to)
				}
				if !ok {
					t.Errorf("%s: not what lost it", what)
				}
			}
		}
		if evs == nil {
			continue
		}
		flying := map[string]int{}
		for n := 0; n < len(nets); n++ {
			for _, k := range adds[n] {
				flying[k]++
			}
			for _, k := range ends[n] {
				if flying[k]--; flying[k] == 0 {
					delete(flying, k)
				}
			}
			var got []string
			for k, c := range flying {
				for range c {
					got = append(got, k)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, nets[n]) {
				t.Errorf("path %d: after step %d the page has in flight\n%s\nthe simulator\n%s", i, n, strings.Join(got, "\n"), strings.Join(nets[n], "\n"))
				break
			}
		}
	}
}

// replayEvents replays steps steps of the trace file and returns the event
// of every step and what is in flight after each step from 0 on, as the
// sorted lines of Sim.NetworkText for the messages; nil when there is no
// such file.
func replayEvents(t *testing.T, file string, steps int) ([]engine.Event, [][]string) {
	t.Helper()
	tr, err := trace.Read(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tr.Config()
	if err != nil {
		t.Fatal(err)
	}
	opts := tr.Options()
	opts.Chooser = engine.NewRecorded(tr.Choices)
	s, err := engine.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	network := func() []string {
		var out []string
		for _, l := range strings.Split(s.NetworkText(), "\n") {
			if strings.HasPrefix(l, "conn ") || strings.HasPrefix(l, "datagram ") {
				out = append(out, l)
			}
		}
		slices.Sort(out)
		return out
	}
	var evs []engine.Event
	nets := [][]string{network()}
	for s.Steps() < steps {
		before := s.Steps()
		_, err := s.Step()
		if s.Steps() > before {
			evs = append(evs, s.LastEvent())
			nets = append(nets, network())
		}
		if err != nil {
			break // a handler panic ends a safety trace
		}
	}
	return evs, nets
}

// ---- a dead path's tail, a minimized path, a panic ----

// rally plays Rounds round trips between nodes 0 and 1 over one
// connection; a break of it loses the ball for good (nothing resends).
type rally struct {
	sim.Base
	Rounds, Count int
}

type ball struct{ N int }

func (r *rally) HandleApp(ctx *sim.Context, _ any) { ctx.Send(1, ball{N: 1}) }

func (r *rally) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	b := m.(ball)
	r.Count = b.N
	if b.N < r.Rounds {
		ctx.Send(from, ball{N: b.N + 1})
	}
}

// TestLiveTailNotCollapsed: the live alternative is drawn whole, its
// last step being where it becomes live, though every step after its
// first few repeats a kind of event seen before (its tail of 250 steps was
// collapsed as "repeat what came before").
func TestLiveTailNotCollapsed(t *testing.T) {
	sys := &sim.System{Name: "htmlreport-rally", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &rally{Rounds: 300} },
			App:      func(id sim.NodeID) []any { return []any{"serve"}[:1-min(int(id), 1)] },
			Failures: sim.Failures{Breaks: 1},
			Liveness: []sim.Property{{Name: "Rallied", Check: func(v *sim.View) bool { return sim.Node[rally](v, 1).Count >= 299 }}},
		}, nil
	}}
	dir := t.TempDir()
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Workers: 1, WalkDepth: 2000, Walks: 10, MaxPaths: 200, Out: dir})
	if err != nil || rep.First() == nil || rep.First().Critical == nil || rep.First().Critical.LiveSteps < 250 {
		t.Fatalf("want a finding with a long live alternative: %v %+v", err, rep.First().Critical)
	}
	if err := htmlreport.WriteDir(dir, htmlreport.Options{System: sys}); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
	for _, path := range p.data.Paths {
		if path.Name == "live" && (path.Tail != -1 || path.Steps < 250) {
			t.Errorf("live path of %d steps collapsed after step %d", path.Steps, path.Tail)
		}
	}
}

// TestTailCollapses checks that transport's 2,000-step dead path starts
// collapsed after its last new kind of event, and that the summary counts
// the tail's events.
func TestTailCollapses(t *testing.T) {
	dir := t.TempDir()
	reporttest.Search(t, dir, reporttest.Examples[0])
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
	ep := p.data.Paths[0]
	if ep.Tail < ep.Crit || ep.Steps-ep.Tail < 200 {
		t.Fatalf("tail after step %d of %d (critical %d): want a long collapsed tail after the critical step", ep.Tail, ep.Steps, ep.Crit)
	}
	total := 0
	for i := 1; i < len(ep.TailTop); i += 2 {
		total += ep.TailTop[i]
	}
	if total == 0 || total > ep.Steps-ep.Tail {
		t.Errorf("the tail's summary counts %d events of %d steps", total, ep.Steps-ep.Tail)
	}
	// Every kind of event of the tail happened before it.
	kinds := func(from, to int) map[string]bool {
		out := map[string]bool{}
		for n := from; n <= to; n++ {
			e := ep.Ev[(n-1)*5:]
			out[fmt.Sprint(e[0], e[1], e[2], p.data.Strs[e[4]])] = true
		}
		return out
	}
	before := kinds(1, ep.Tail)
	for k := range kinds(ep.Tail+1, ep.Steps) {
		if !before[k] {
			t.Errorf("the collapsed tail has an event %q not seen before it", k)
		}
	}
	checkMark(t, p, "tail", ep.Tail+1)
}

// withMinimized writes mdbtest's result directory to dir and returns it
// with a minimized path made of the error path's steps up to its critical
// step.
func withMinimized(t *testing.T, dir string) (*mdbtest.Files, *trace.Trace) {
	t.Helper()
	mdbtest.Register()
	f, err := mdbtest.Write(dir, mdbtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	et := f.Found.Error
	s, err := et.Replay(et.Critical, nil)
	if err != nil {
		t.Fatal(err)
	}
	mt := *et
	mt.Choices, mt.Steps = s.ChoiceValues(), et.Critical
	return f, &mt
}

// TestMinimizedPath gives the page a min.trace (the first steps of the
// error path up to the critical step) and checks the tab and its data.
func TestMinimizedPath(t *testing.T) {
	dir := t.TempDir()
	f, mt := withMinimized(t, dir)
	et := f.Found.Error
	if err := mt.Write(filepath.Join(dir, htmlreport.MinTrace)); err != nil {
		t.Fatal(err)
	}
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
	var names []string
	for _, d := range p.data.Paths {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"error", "min", "live"}) {
		t.Fatalf("paths %v, want error, min, live", names)
	}
	tabs := byClass(p.doc, "button", "tab")
	if len(tabs) != 3 || attr(tabs[1], "data-name") != "min" || !strings.Contains(text(tabs[1]), "minimized") {
		t.Errorf("the minimized path's tab is missing")
	}
	if lp := p.data.Paths[2]; lp.Crit != -1 {
		t.Errorf("the live path has a critical step (%d): none of its states is dead", lp.Crit)
	}
	// The live alternative is the error path's: the minimized path is
	// not compared with it (testdata/commands.txt shows the marks).
	mp := p.data.Paths[1]
	if mp.Steps != et.Critical || mp.Crit != et.Critical || mp.Shared != -1 {
		t.Errorf("minimized path: %d steps, critical %d, shares %d with the live path; want %d, %d, -1 (not compared)",
			mp.Steps, mp.Crit, mp.Shared, et.Critical, et.Critical)
	}
}

// TestFailureEvents renders a path with every kind of network failure
// (reporttest.Faults): the lanes get each event's kind and label, the
// duplicated datagram's copy is a message of its own, and the messages a
// partition or a crash lost end there, lost, not in flight, as a replay
// says (checkMessages).
func TestFailureEvents(t *testing.T) {
	dir := t.TempDir()
	reporttest.Faults(t, dir)
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
	ep := p.data.Paths[0]
	kinds := map[int]struct {
		kind  engine.EventKind
		label string
	}{
		2: {engine.EvDuplicate, "dup Data"},
		4: {engine.EvPartition, "partition {0} | the rest"},
		5: {engine.EvHeal, "partition heals"},
		7: {engine.EvCrash, "crash"},
	}
	for step, want := range kinds {
		e := ep.Ev[(step-1)*5:]
		if engine.EventKind(e[0]) != want.kind || p.data.Strs[e[4]] != want.label {
			t.Errorf("step %d: kind %v label %q, want %v %q", step, engine.EventKind(e[0]), p.data.Strs[e[4]], want.kind, want.label)
		}
	}
	// step, from, to, end, flags (fate | 4 datagram | 8 copy | 16 lost to
	// a crashed node), type.
	want := []string{
		"1 0->1 end 3 flags 4 Data",  // received
		"2 0->1 end 4 flags 14 Data", // the copy, lost to the partition
		"3 1->0 end 4 flags 6 Ack",   // lost to the partition
		"6 0->1 end 8 flags 4 Data",  // received after node 0 crashed
		"8 1->0 end 8 flags 22 Ack",  // sent to the crashed node
	}
	var got []string
	for m := ep.Msgs; len(m) >= 7; m = m[7:] {
		got = append(got, fmt.Sprintf("%d %d->%d end %d flags %d %s", m[0], m[1], m[2], m[3], m[4], p.data.Strs[m[6]]))
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	legend := byID(p.doc, "legend")
	for _, class := range []string{"crash", "split", "reset", "drop", "brk"} {
		if len(byClass(legend, "span", class)) != 1 {
			t.Errorf("the legend has no %s entry", class)
		}
	}
	checkMessages(t, p, dir)
}

// messageRecords gives each message record of the page's first path as
// "step from->to end E flags F S", S the string its field at index str
// names (5: the message's text, 6: its type).
func messageRecords(p *page, str int) []string {
	var got []string
	for m := p.data.Paths[0].Msgs; len(m) >= 7; m = m[7:] {
		got = append(got, fmt.Sprintf("%d %d->%d end %d flags %d %s", m[0], m[1], m[2], m[3], m[4], p.data.Strs[m[str]]))
	}
	return got
}

// scriptedPage writes the page of the path a scripted mdbtest system
// makes (mdbtest.Reorder, mdbtest.Lost) into a new directory and reads it.
func scriptedPage(t *testing.T, script func() (*trace.Trace, error)) (*page, string) {
	t.Helper()
	dir := mdbtest.ErrorDir(t, script)
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	return readPage(t, filepath.Join(dir, htmlreport.PageFile)), dir
}

// TestReorderedMessages: each delivery of mdbtest.Reorder's path is
// paired with the send it took (the simulator's Event.Cause and
// Event.CopiedAt), not the first equal one still in flight: the datagram
// of step 2 overtakes that of step 1, the copy made at step 3 arrives
// before its original, and the send of step 7 is what is still in flight
// at the end.
func TestReorderedMessages(t *testing.T) {
	p, dir := scriptedPage(t, mdbtest.Reorder)
	// step, from, to, end, flags (fate | 4 datagram | 8 copy), type.
	want := []string{
		"1 0->1 end 6 flags 4 Put",
		"2 0->1 end 4 flags 4 Put",
		"3 0->1 end 5 flags 12 Put", // the copy
		"7 0->1 end -1 flags 7 Put", // in flight
	}
	if got := messageRecords(p, 6); !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkMessages(t, p, dir)
}

// TestLostMessages: on mdbtest.Lost's path, each message lost to a
// connection break, a partition or a crash ends at the step that lost it,
// and one lost as it was sent at its send, while a datagram with the same
// payload as a lost message goes on: the break of step 3 loses the
// message Say{N: 1} and not the datagram, the crash of step 10 the
// message Say{N: 4} from the crashed node and not its datagram, and the
// partition loses the datagram Say{N: 6} sent across it at step 6, not the
// message it holds. A reset (step 8) loses nothing.
func TestLostMessages(t *testing.T) {
	p, dir := scriptedPage(t, mdbtest.Lost)
	// step, from, to, end, flags (fate 0 received, 2 lost, 3 in flight |
	// 4 datagram | 16 lost to a crashed node | 32 across a partition),
	// message.
	want := []string{
		"1 0->1 end 3 flags 2 Say{N: 1}",  // the break
		"1 0->1 end 4 flags 4 Say{N: 1}",  // the datagram the break spared
		"1 0->2 end 10 flags 6 Say{N: 2}", // the crash of its receiver
		"1 0->2 end 9 flags 0 Say{N: 3}",  // received after the reset
		"2 2->0 end 10 flags 2 Say{N: 4}", // the crash of its sender
		"2 2->0 end 12 flags 4 Say{N: 4}", // the crashed node's datagram
		"2 2->1 end 5 flags 6 Say{N: 5}",  // the partition
		"6 0->1 end 11 flags 0 Say{N: 6}", // held by the partition
		"6 0->1 end 6 flags 38 Say{N: 6}", // sent across the partition
		"13 0->2 end 13 flags 18 Say{N: 7}",
		"13 0->2 end 13 flags 22 Say{N: 8}",
		"13 0->1 end -1 flags 3 Say{N: 9}",
	}
	if got := messageRecords(p, 5); !slices.Equal(got, want) {
		t.Errorf("messages:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkMessages(t, p, dir)
}

// panicky panics on its second message: a handler panic for the page.
type panicky struct {
	sim.Base
	Got int
}

type ping struct{ N int }

func (p *panicky) HandleApp(ctx *sim.Context, req any) { ctx.Send(1, ping{N: 1}) }

func (p *panicky) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	p.Got++
	if m.(ping).N == 3 {
		panic("ping 3 is one too many")
	}
	ctx.Send(from, ping{N: m.(ping).N + 1})
}

func init() {
	sim.Register(&sim.System{
		Name: "htmlreport-panic",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &panicky{} },
				App: func(id sim.NodeID) []any {
					if id == 0 {
						return []any{"go"}
					}
					return nil
				},
				Liveness: []sim.Property{{Name: "Three", Check: func(v *sim.View) bool {
					return sim.Count(v, func(_ sim.NodeID, n *panicky) bool { return n.Got > 0 }) == 2
				}}},
			}, nil
		},
	})
}

// TestHandlerPanic renders a trace that ends in a handler panic: the
// failure names the step, the panic and its stack.
// panicSim returns htmlreport-panic booted, with a random chooser. Its only
// execution: app, ping 1, ping 2, ping 3 (panics).
func panicSim(t *testing.T) *engine.Sim {
	t.Helper()
	cfg, err := (&trace.Trace{System: "htmlreport-panic"}).Config()
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Replay(cfg, nil, 0, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetChooser(engine.NewRandom(1))
	return s
}

func TestHandlerPanic(t *testing.T) {
	dir := t.TempDir()
	s := panicSim(t)
	var stepErr error
	for stepErr == nil {
		ok, err := s.Step()
		if !ok && err == nil {
			t.Fatal("the system went quiet without panicking")
		}
		stepErr = err
	}
	if !errors.Is(stepErr, engine.ErrHandlerPanic) {
		t.Fatal(stepErr)
	}
	et := &trace.Trace{System: "htmlreport-panic", Params: map[string]string{}, Choices: s.ChoiceValues(), Steps: s.Steps(),
		Kind: "safety", Property: "panic in handler", Critical: -1}
	if err := et.Write(filepath.Join(dir, htmlreport.ErrorTrace)); err != nil {
		t.Fatal(err)
	}
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
	ep := p.data.Paths[0]
	if ep.Fail != 4 || !strings.Contains(ep.FailText, "ping 3 is one too many") || !strings.Contains(ep.Stack, "HandleMessage") {
		t.Errorf("fail %d %q, stack %q: want step 4, the panic and its stack", ep.Fail, ep.FailText, firstLines(ep.Stack, 3))
	}
	f := byID(p.doc, "failure")
	if f == nil || !strings.Contains(text(f), "step 4") || !strings.Contains(text(f), "ping 3 is one too many") {
		t.Fatal("the failure section does not show the panic")
	}
	if h1 := text(find(p.doc, func(n *html.Node) bool { return n.Data == "h1" })[0]); !strings.Contains(h1, "Handler panic") {
		t.Errorf("headline %q", h1)
	}
	checkMark(t, p, "fail", 4)
}

// bootFailing's Start on every node fails as its mode says: "panic"
// panics, "hang" does not return until bootRelease is closed.
type bootFailing struct {
	sim.Base
	mode string
}

var bootRelease = make(chan struct{})

func (b *bootFailing) Start(*sim.Context) {
	if b.mode == "panic" {
		panic("no config for this node")
	}
	<-bootRelease
}

func init() {
	for _, mode := range []string{"panic", "hang"} {
		sim.Register(&sim.System{
			Name: "htmlreport-boot" + mode,
			Build: func(sim.Params) (*sim.Config, error) {
				return &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &bootFailing{mode: mode} }}, nil
			},
		})
	}
}

// bootPage renders the page of a path of no steps of system
// htmlreport-bootMODE, whose boot fails, and checks its failure section
// says so.
func bootPage(t *testing.T, mode string, o htmlreport.Options) *page {
	t.Helper()
	dir := t.TempDir()
	et := &trace.Trace{System: "htmlreport-boot" + mode, Params: map[string]string{}, Kind: "safety", Property: mode, Critical: -1}
	if err := et.Write(filepath.Join(dir, htmlreport.ErrorTrace)); err != nil {
		t.Fatal(err)
	}
	if err := htmlreport.WriteDir(dir, o); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
	if f := byID(p.doc, "failure"); f == nil || !strings.Contains(text(f), "while the system booted") {
		t.Error("the failure section does not say the system failed to boot")
	}
	return p
}

// TestBootPanic renders the trace of a system whose Start panics: a path
// of no steps, failing while the system boots, with the panic's stack.
func TestBootPanic(t *testing.T) {
	p := bootPage(t, "panic", htmlreport.Options{})
	ep := p.data.Paths[0]
	if ep.Steps != 0 || ep.Fail != 0 || !strings.Contains(ep.FailText, "no config for this node") || !strings.Contains(ep.Stack, "Start") {
		t.Errorf("steps %d fail %d %q, stack %q: want the panic at boot and its stack", ep.Steps, ep.Fail, ep.FailText, firstLines(ep.Stack, 3))
	}
	if h1 := text(find(p.doc, func(n *html.Node) bool { return n.Data == "h1" })[0]); !strings.Contains(h1, "Handler panic") {
		t.Errorf("headline %q", h1)
	}
}

// TestBootHang renders the trace of a system whose Start does not return:
// the page is made (it used to wait for the boot forever, and so did the
// search that writes it), with the hang and no state.
func TestBootHang(t *testing.T) {
	defer close(bootRelease)
	p := bootPage(t, "hang", htmlreport.Options{HandlerTimeout: 100 * time.Millisecond})
	ep := p.data.Paths[0]
	if ep.Steps != 0 || ep.Fail != 0 || !strings.Contains(ep.FailText, "did not return") || ep.StatesUntil != -1 {
		t.Errorf("steps %d fail %d %q, states until %d: want the hang at boot and no state", ep.Steps, ep.Fail, ep.FailText, ep.StatesUntil)
	}
	if heads := byClass(p.doc, "div", "lane-head"); len(heads) != 2 || text(heads[1]) != "node 1 (bootFailing)" {
		t.Errorf("lane heads %d, want node 0 and node 1 (bootFailing)", len(heads))
	}
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	return strings.Join(ls[:min(n, len(ls))], "\n")
}

// ---- input, determinism, golden outline ----

func TestBadInput(t *testing.T) {
	mdbtest.Register()
	good := t.TempDir()
	if _, err := mdbtest.Write(good, mdbtest.Options{}); err != nil {
		t.Fatal(err)
	}
	et, err := os.ReadFile(filepath.Join(good, htmlreport.ErrorTrace))
	if err != nil {
		t.Fatal(err)
	}
	unknown, err := trace.Read(filepath.Join(good, htmlreport.ErrorTrace))
	if err != nil {
		t.Fatal(err)
	}
	unknown.System = "no-such-system"
	for _, c := range []struct {
		name  string
		files map[string][]byte
		want  string
	}{
		{"empty directory", nil, "neither report.json nor error.trace"},
		{"report not JSON", map[string][]byte{"report.json": []byte("{")}, "report.json"},
		{"report of something else", map[string][]byte{"report.json": []byte(`{"a": 1}`)}, "not a macemc search report"},
		{"violation without a trace", map[string][]byte{"report.json": []byte(`{"verdict": "liveness", "system": "x"}`)}, "has no error.trace"},
		{"truncated trace", map[string][]byte{"error.trace": et[:len(et)/2]}, "truncated"},
		{"corrupt trace", map[string][]byte{"error.trace": append(slices.Clone(et[:len(et)-1]), et[len(et)-1]^1)}, "corrupt"},
		{"unknown system", map[string][]byte{"error.trace": mustMarshal(t, unknown)}, "no-such-system"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			old := []byte("the page of an earlier search")
			if err := os.WriteFile(filepath.Join(dir, htmlreport.PageFile), old, 0o644); err != nil {
				t.Fatal(err)
			}
			err := htmlreport.WriteDir(dir, htmlreport.Options{})
			if !errors.Is(err, htmlreport.ErrInput) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an ErrInput saying %q", err, c.want)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, htmlreport.PageFile)); !bytes.Equal(got, old) {
				t.Error("a failed WriteDir changed the existing page")
			}
		})
	}
	if err := htmlreport.WriteDir(filepath.Join(good, "missing"), htmlreport.Options{}); !errors.Is(err, htmlreport.ErrInput) {
		t.Errorf("missing directory: %v", err)
	}
}

func mustMarshal(t *testing.T, tr *trace.Trace) []byte {
	t.Helper()
	b, err := tr.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNothingFound renders a report without a finding.
func TestNothingFound(t *testing.T) {
	dir := t.TempDir()
	rep := `{"verdict": "none", "system": "transport", "params": {"fixed": "true"}, "seed": 3, "rounds": 4, "paths": 3000, "stop": "paths"}`
	if err := os.WriteFile(filepath.Join(dir, htmlreport.ReportFile), []byte(rep), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
	h := byID(p.doc, "headline")
	if !strings.Contains(text(h), "Nothing found within the budget") || !hasClass(h, "verdict-none") || !strings.Contains(text(h), "3,000 paths") {
		t.Errorf("headline: %q", text(h))
	}
	if byID(p.doc, "viewer") != nil || len(p.data.Paths) != 0 {
		t.Error("a page without a finding shows lanes")
	}
}

// limitedPage writes mdbtest's result directory and its page with the
// limits set sets, and returns what it wrote, the page's input and file.
func limitedPage(t *testing.T, set func(*htmlreport.Limits)) (*mdbtest.Files, htmlreport.Input, string) {
	t.Helper()
	mdbtest.Register()
	dir := t.TempDir()
	f, err := mdbtest.Write(dir, mdbtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := htmlreport.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	set(&in.Options.Limits)
	file := filepath.Join(dir, htmlreport.PageFile)
	if err := htmlreport.WriteFile(file, in); err != nil {
		t.Fatal(err)
	}
	return f, in, file
}

// TestStateLimit: past Limits.StateBytes a path's states are not stored,
// and the states before are still right.
func TestStateLimit(t *testing.T) {
	f, in, file := limitedPage(t, func(l *htmlreport.Limits) { l.StateBytes = 3000 })
	p := readPage(t, file)
	ep := p.data.Paths[0]
	if ep.StatesUntil <= 0 || ep.StatesUntil >= ep.Steps {
		t.Fatalf("states stored until step %d of %d with a 3,000-byte limit", ep.StatesUntil, ep.Steps)
	}
	for o := 0; o < len(ep.Diffs); o += 5 + ep.Diffs[o+4] {
		if ep.Diffs[o] > ep.StatesUntil {
			t.Fatalf("a state diff at step %d, past step %d", ep.Diffs[o], ep.StatesUntil)
		}
	}
	if got, want := p.stateAt(0, ep.StatesUntil), replayed(t, f.Found.Error, ep.StatesUntil); !slices.Equal(got, want) {
		t.Errorf("step %d: %q, want %q", ep.StatesUntil, got, want)
	}
	if len(ep.Ev) != 5*ep.Steps {
		t.Error("the events past the limit are not all there")
	}
	// Without the limit every state is stored.
	in.Options.Limits.StateBytes = 0
	if err := htmlreport.WriteFile(file, in); err != nil {
		t.Fatal(err)
	}
	if p := readPage(t, file); p.data.Paths[0].StatesUntil != p.data.Paths[0].Steps {
		t.Errorf("states stored until %d of %d steps by default", p.data.Paths[0].StatesUntil, p.data.Paths[0].Steps)
	}
}

// TestTextLimit: past Limits.TextBytes of state text read for a path,
// its states are not stored, the page says which limit stopped them, and
// the states before are still right.
func TestTextLimit(t *testing.T) {
	f, _, file := limitedPage(t, func(l *htmlreport.Limits) { l.TextBytes = 2000 })
	p := readPage(t, file)
	ep := p.data.Paths[0]
	if ep.StatesUntil <= 0 || ep.StatesUntil >= ep.Steps || !strings.Contains(ep.StatesLimit, "at most 2,000 bytes of state text") {
		t.Fatalf("states stored until step %d of %d with a 2,000-byte text limit (%q)", ep.StatesUntil, ep.Steps, ep.StatesLimit)
	}
	if got, want := p.stateAt(0, ep.StatesUntil), replayed(t, f.Found.Error, ep.StatesUntil); !slices.Equal(got, want) {
		t.Errorf("step %d: %q, want %q", ep.StatesUntil, got, want)
	}
}

// TestDeterministic: the same result directory gives the same bytes.
func TestDeterministic(t *testing.T) {
	mdbtest.Register()
	dir := t.TempDir()
	if _, err := mdbtest.Write(dir, mdbtest.Options{}); err != nil {
		t.Fatal(err)
	}
	var pages [2]bytes.Buffer
	for i := range pages {
		in, err := htmlreport.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := htmlreport.Render(&pages[i], in); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(pages[0].Bytes(), pages[1].Bytes()) {
		t.Error("two renderings of the same traces differ")
	}
}

// TestGoldenOutline renders mdbtest's fixture (error and live traces, no
// report.json) and compares the page's outline, everything but the
// script's data, style and code, with testdata/mdbtest.golden (-rewrite
// regenerates it).
func TestGoldenOutline(t *testing.T) {
	mdbtest.Register()
	dir := t.TempDir()
	if _, err := mdbtest.Write(dir, mdbtest.Options{}); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(renderAsOut(t, dir)))
	if err != nil {
		t.Fatal(err)
	}
	got := outline(doc)
	golden := filepath.Join("testdata", "mdbtest.golden")
	if rewrite() {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to make it)", err)
	}
	if got != string(want) {
		t.Errorf("the page's outline changed (run with -rewrite if intended):\n%s", diffLines(string(want), got))
	}
}

// outline prints the page's elements that carry an id or a class, with
// their text, leaving out the style and the scripts.
func outline(doc *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "style", "script":
				return
			}
			id, class := attr(n, "id"), attr(n, "class")
			if id != "" || class != "" || n.Data == "h1" || n.Data == "h2" || n.Data == "h3" || n.Data == "tr" || n.Data == "dt" || n.Data == "dd" {
				label := n.Data
				if id != "" {
					label += "#" + id
				}
				if class != "" {
					label += "." + strings.ReplaceAll(class, " ", ".")
				}
				for _, a := range n.Attr {
					if strings.HasPrefix(a.Key, "data-") {
						label += fmt.Sprintf(" %s=%s", a.Key, a.Val)
					}
				}
				txt := strings.Join(strings.Fields(text(n)), " ")
				if len(txt) > 100 {
					txt = txt[:100] + "..."
				}
				fmt.Fprintf(&b, "%s%s: %s\n", strings.Repeat("  ", depth), label, txt)
				depth++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth)
		}
	}
	walk(doc, 0)
	return b.String()
}

func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			fmt.Fprintf(&out, "line %d:\n- %s\n+ %s\n", i+1, x, y)
		}
	}
	return out.String()
}

// FuzzReadReport: any bytes are a report or an ErrInput, never a panic.
func FuzzReadReport(f *testing.F) {
	f.Add([]byte(`{"verdict": "liveness", "system": "transport", "critical": {"step": 9}}`))
	f.Add([]byte(`{"verdict": "none", "system": "x", "params": null, "lasso": {"events": ["a"]}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "report.json")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := htmlreport.ReadReport(file)
		if err != nil {
			if !errors.Is(err, htmlreport.ErrInput) {
				t.Fatalf("an error that is not ErrInput: %v", err)
			}
			return
		}
		if r.Verdict == "" || r.System == "" {
			t.Fatalf("a report without verdict or system: %+v", r)
		}
	})
}

// TestC2NamesNoStep: a C2 answer is where the critical-transition search
// stopped for lack of evidence; the page marks no step critical and does
// not present it as one.
func TestC2NamesNoStep(t *testing.T) {
	dir := t.TempDir()
	s := panicSim(t)
	for range 2 {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	et := &trace.Trace{System: "htmlreport-panic", Params: map[string]string{}, Choices: s.ChoiceValues(), Steps: s.Steps(),
		Kind: "liveness", Property: "Three", Critical: 2, Condition: "C2"}
	if err := et.Write(filepath.Join(dir, htmlreport.ErrorTrace)); err != nil {
		t.Fatal(err)
	}
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
	if ep := p.data.Paths[0]; ep.Crit != -1 {
		t.Errorf("the page marks step %d critical for a C2 answer", ep.Crit)
	}
	if h := byID(p.doc, "headline"); h == nil || strings.Contains(text(h), "critical transition") {
		t.Error("the headline presents a C2 answer as a critical transition")
	}
}

// TestCancelled: a page whose context ends while its paths are replayed is
// not written, and the error says why.
func TestCancelled(t *testing.T) {
	dir := t.TempDir()
	reporttest.Search(t, dir, reporttest.Examples[0])
	if err := os.Remove(filepath.Join(dir, htmlreport.PageFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := htmlreport.WriteDir(dir, htmlreport.Options{Context: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteDir with a cancelled context: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, htmlreport.PageFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a cancelled page was written: %v", err)
	}
}

// TestHungHandler renders the trace of a handler that did not return: it
// ends before the hung step, which the page names (without running it
// again) instead of a property that fails.
func TestHungHandler(t *testing.T) {
	dir := t.TempDir()
	const timeout = 50 * time.Millisecond
	et, err := simtest.HangTrace(timeout)
	if err != nil {
		t.Fatal(err)
	}
	if err := et.Write(filepath.Join(dir, htmlreport.ErrorTrace)); err != nil {
		t.Fatal(err)
	}
	if err := htmlreport.WriteDir(dir, htmlreport.Options{HandlerTimeout: timeout}); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
	// The hung step is the one after the path's last: it has no state.
	ep := p.data.Paths[0]
	if ep.Steps != 1 || ep.Fail != 2 || ep.FailText != "the handler of step 2 did not return within 50ms" {
		t.Errorf("steps %d, fail %d %q: want the hang of step 2 after step 1", ep.Steps, ep.Fail, ep.FailText)
	}
	if p.data.Select != 1 {
		t.Errorf("the page opens at step %d, want the last state, 1", p.data.Select)
	}
	checkMark(t, p, "fail", 2)
	if h := text(find(byID(p.doc, "failure"), func(n *html.Node) bool { return n.Data == "h2" })[0]); h != "What failed at step 2" {
		t.Errorf("the failure is headed %q", h)
	}
	facts := text(byClass(p.doc, "dl", "facts")[0])
	if !strings.Contains(facts, "path1 step, then the handler of step 2 did not return") {
		t.Errorf("the path's fact does not say it has 1 step and then the hang: %q", facts)
	}
	if tab := text(byClass(p.doc, "button", "tab")[0]); !strings.HasSuffix(tab, " 1 step") {
		t.Errorf("the tab says %q, want 1 step", tab)
	}
}

// badModel is the correct register checked with a model whose Apply
// panics once the register holds a value.
var badModel = &sim.System{
	Name:   "htmlreport-badmodel",
	Params: register.Params,
	Build: func(p sim.Params) (*sim.Config, error) {
		cfg, err := register.Build(p)
		if err != nil {
			return nil, err
		}
		m := *cfg.Model
		apply, init := m.Apply, m.Init()
		m.Apply = func(state, op any) (any, any) {
			if !reflect.DeepEqual(state, init) {
				panic("the model's bug")
			}
			return apply(state, op)
		}
		cfg.Model = &m
		return cfg, nil
	},
}

// TestFailuresNoStepShows: a finding whose failure no step of the log
// shows (memory shared between nodes, a goroutine a node started, a model
// that panicked) has a headline that names it and a "What failed" section
// with the report's text, as `macemc search` prints it.
func TestFailuresNoStepShows(t *testing.T) {
	for _, c := range []struct {
		sys               *sim.System
		params            map[string]string
		headline, failure string
	}{
		{lookup(t, simtest.Shared), nil, "A message changed in flight", "changed"},
		{lookup(t, simtest.Shared), map[string]string{"mode": "keep"}, "Nodes that share memory", "the two nodes share memory"},
		{lookup(t, simtest.Escape), nil, "A service that acts outside its handlers", "goroutine"},
		{badModel, map[string]string{"variant": "correct"}, "Linearizability not checked: the model failed", "the model panicked: the model's bug"},
	} {
		dir := t.TempDir()
		if _, err := search.Run(context.Background(), c.sys, search.Options{Seed: 1, Params: c.params, MaxPaths: 2000, Workers: 1, Out: dir}); err != nil {
			t.Fatal(err)
		}
		p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
		if h1 := text(find(p.doc, func(n *html.Node) bool { return n.Data == "h1" })[0]); !strings.Contains(h1, c.headline) {
			t.Errorf("%s: headline %q, want %q", c.sys.Name, h1, c.headline)
		}
		if f := byID(p.doc, "failure"); f == nil || !strings.Contains(text(f), c.failure) {
			t.Errorf("%s: the failure section does not say %q", c.sys.Name, c.failure)
		}
	}
}

func lookup(t *testing.T, name string) *sim.System {
	t.Helper()
	sys, err := sim.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// renderAsOut renders the page of the result directory dir as if it were
// macemc-out, so that the page's commands do not name a temporary
// directory.
func renderAsOut(t *testing.T, dir string) []byte {
	t.Helper()
	in, err := htmlreport.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	in.Dir = "macemc-out"
	var buf bytes.Buffer
	if err := htmlreport.Render(&buf, in); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
