package mdb_test

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/mdb/htmlreport/reporttest"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// TestLostSVG: in the SVG event graph of mdbtest.Lost, each lost message
// is a red dashed arrow from the row of its send to half way to its
// receiver at the row of the step that lost it, labelled lost with the
// cause, and titled with how; one lost as it was sent ends on its send's
// row. The message and the datagram with equal payloads are told apart.
func TestLostSVG(t *testing.T) {
	data := drawSVG(t, lostOutput(t), 1, 13)
	// Rows are 48 apart, step 1's at 104; the columns of nodes 0, 1 and 2
	// at 260, 520 and 780; half way between them at 390, 520 and 650.
	row := func(step int) int { return 104 + 48*(step-1) }
	want := []string{
		fmt.Sprintf("Say{N: 1} from node 0 to node 1, sent at step 1, lost when the connection broke at step 3 [Say{N: 1} (lost: break)]: (260,%d)-(390,%d)", row(1), row(3)),
		fmt.Sprintf("datagram Say{N: 1} from node 0 to node 1, sent at step 1, received at step 4 [Say{N: 1}]: (260,%d)-(520,%d)", row(1), row(4)),
		fmt.Sprintf("datagram Say{N: 2} from node 0 to node 2, sent at step 1, lost: node 2 crashed at step 10 [Say{N: 2} (lost: crash)]: (260,%d)-(520,%d)", row(1), row(10)),
		fmt.Sprintf("Say{N: 3} from node 0 to node 2, sent at step 1, received at step 9 [Say{N: 3}]: (260,%d)-(780,%d)", row(1), row(9)),
		fmt.Sprintf("Say{N: 4} from node 2 to node 0, sent at step 2, lost: node 2 crashed at step 10 [Say{N: 4} (lost: crash)]: (780,%d)-(520,%d)", row(2), row(10)),
		fmt.Sprintf("datagram Say{N: 4} from node 2 to node 0, sent at step 2, received at step 12 [Say{N: 4}]: (780,%d)-(260,%d)", row(2), row(12)),
		fmt.Sprintf("datagram Say{N: 5} from node 2 to node 1, sent at step 2, lost in the partition of step 5 [Say{N: 5} (lost: partition)]: (780,%d)-(650,%d)", row(2), row(5)),
		fmt.Sprintf("Say{N: 6} from node 0 to node 1, sent at step 6, received at step 11 [Say{N: 6}]: (260,%d)-(520,%d)", row(6), row(11)),
		fmt.Sprintf("datagram Say{N: 6} from node 0 to node 1, sent at step 6, lost: sent across the partition of step 5 [Say{N: 6} (lost: partitioned)]: (260,%d)-(390,%d)", row(6), row(6)),
		fmt.Sprintf("Say{N: 7} from node 0 to node 2, sent at step 13, lost: node 2 is down (it crashed at step 10) [Say{N: 7} (lost: node 2 down)]: (260,%d)-(520,%d)", row(13), row(13)),
		fmt.Sprintf("datagram Say{N: 8} from node 0 to node 2, sent at step 13, lost: node 2 is down (it crashed at step 10) [Say{N: 8} (lost: node 2 down)]: (260,%d)-(520,%d)", row(13), row(13)),
		fmt.Sprintf("Say{N: 9} from node 0 to node 1, sent at step 13, in flight [Say{N: 9}]: (260,%d)-(390,714)", row(13)), // the bottom
	}
	var got []string
	for _, m := range svgArrowLabel.FindAllStringSubmatch(string(data), -1) {
		got = append(got, fmt.Sprintf("%s [%s]: (%s,%s)-(%s,%s)", html.UnescapeString(m[1]), html.UnescapeString(m[6]), m[2], m[3], m[4], m[5]))
	}
	if !slices.Equal(got, want) {
		t.Errorf("arrows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, red := range []string{"lost: break", "lost: crash", "lost: partition", "lost: partitioned", "lost: node 2 down"} {
		if !regexp.MustCompile(`stroke="#c0392b" stroke-width="1.5" stroke-dasharray="6 4" marker-end="url\(#arrow-red\)"/>\n<text [^>]*>Say\{N: \d\} \(` + red + `\)`).Match(data) {
			t.Errorf("no red dashed arrow labelled %q", red)
		}
	}
}

// svgArrowLabel matches an arrow of the SVG event graph: its title, its
// line and its label.
var svgArrowLabel = regexp.MustCompile(`<g>\n<title>([^<]*)</title>\n<line x1="(\d+)" y1="(\d+)" x2="(\d+)" y2="(\d+)"[^\n]*marker-end[^\n]*\n<text [^>]*>([^<]*)</text>`)

// TestLostAgreesWithPage: g and the report page, drawn of the same path,
// agree on every message: where it was sent, and whether and at which
// step it was received, dropped or lost, and what lost it (a break, a
// crash, a partition; as it was sent, its receiver down or the network
// split). The paths: mdbtest.Lost; reporttest.Faults, transport with a
// duplication, a partition and a crash; and mdbtest.Reorder, datagrams
// that overtake each other.
func TestLostAgreesWithPage(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(t testing.TB) string
	}{
		{"lost", lostOutput},
		{"faults", func(t testing.TB) string {
			dir := t.TempDir()
			reporttest.Faults(t, dir)
			return dir
		}},
		{"reorder", reorderOutput},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := c.write(t)
			s := open(t, dir, "", mdb.Options{})
			tr, err := trace.Read(filepath.Join(dir, "error.trace"))
			if err != nil {
				t.Fatal(err)
			}
			svg, page := filepath.Join(dir, "g.svg"), filepath.Join(dir, "page.html")
			s.run(fmt.Sprintf("g 1 %d --svg %s --html %s", tr.Steps, svg, page))
			g, p := graphMessages(t, svg, tr.Steps), pageMessages(t, page)
			if len(p) == 0 || !slices.Equal(g, p) {
				t.Errorf("g:\n%s\nthe page:\n%s", strings.Join(g, "\n"), strings.Join(p, "\n"))
			}
		})
	}
}

// graphMessages reads the arrows of an SVG event graph of steps 1..steps,
// sorted, as pageMessages does the page's messages: "datagram Say{N: 2}
// 0->2 sent at 1: lost (crash) at 10". The ends are where the arrows end.
func graphMessages(t *testing.T, file string, steps int) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	title := regexp.MustCompile(`^(a copy of )?(datagram )?(.*) from node (\d+) to node (\d+), (?:sent|made) at step (\d+)(?: from the datagram sent at step \d+)?, (received|dropped|lost|in flight)`)
	bottom := 80 + 48*steps + 10 // the graph's height less its margin, and 10
	var out []string
	for _, m := range svgArrowLabel.FindAllStringSubmatch(string(data), -1) {
		desc := html.UnescapeString(m[1])
		tm := title.FindStringSubmatch(desc)
		if tm == nil {
			t.Fatalf("an arrow titled %q", desc)
		}
		fate := tm[7]
		if fate == "lost" {
			for _, c := range []struct{ says, cause string }{{"is down", "down"}, {"sent across", "across"},
				{"crashed at", "crash"}, {"in the partition of", "partition"}, {"connection broke", "break"}} {
				if strings.Contains(desc, c.says) {
					fate += " (" + c.cause + ")"
					break
				}
			}
		}
		end := "-1"
		if y2, _ := strconv.Atoi(m[5]); y2 != bottom {
			end = strconv.Itoa((y2-104)/48 + 1)
		}
		out = append(out, fmt.Sprintf("%s%s%s %s->%s sent at %s: %s at %s", tm[1], tm[2], tm[3], tm[4], tm[5], tm[6], fate, end))
	}
	slices.Sort(out)
	return out
}

// pageMessages reads the messages of a report page's error path, sorted,
// as graphMessages does.
func pageMessages(t *testing.T, file string) []string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="macemc-data">(.*?)</script>`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("no data in the page")
	}
	var data struct {
		Strs  []string `json:"strs"`
		Paths []struct {
			Ev   []int `json:"ev"`
			Msgs []int `json:"msgs"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(m[1], &data); err != nil {
		t.Fatal(err)
	}
	d := data.Paths[0]
	var out []string
	for r := d.Msgs; len(r) >= 7; r = r[7:] {
		step, from, to, end, flags, text := r[0], r[1], r[2], r[3], r[4], data.Strs[r[5]]
		what := ""
		if flags&8 != 0 {
			what = "a copy of "
		}
		if flags&4 != 0 {
			what += "datagram "
		}
		fate := []string{"received", "dropped", "lost", "in flight"}[flags&3]
		switch {
		case flags&3 != 2:
		case flags&16 != 0:
			fate += " (down)"
		case flags&32 != 0:
			fate += " (across)"
		default:
			fate += " (" + engine.EventKind(d.Ev[(end-1)*5]).String() + ")"
		}
		out = append(out, fmt.Sprintf("%s%s %d->%d sent at %d: %s at %d", what, text, from, to, step, fate, end))
	}
	slices.Sort(out)
	return out
}

// TestLostBeforeTheReplay: g replays a window of steps before its range
// (here none); what a crash in the range loses that was sent before the
// replay is still counted and named, from the simulator's log, in the
// text and in the SVG; and a send to the node that crashed before the
// replay says it is down, not since when.
func TestLostBeforeTheReplay(t *testing.T) {
	defer mdb.SetGraphWindow(0)()
	dir := lostOutput(t)
	s := open(t, dir, "", mdb.Options{SnapshotEvery: 1})
	svg := filepath.Join(dir, "g.svg")
	out := s.run("g 7 12 --svg " + svg)
	lost := []string{"Say{N: 2} from node 0 to node 2, sent before step 7, lost: node 2 crashed at step 10",
		"Say{N: 4} from node 2 to node 0, sent before step 7, lost: node 2 crashed at step 10"}
	mustContain(t, out, append(lost, "node 2 crashes and stays down (2 messages lost)")...)
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(data), lost...)
	mustContain(t, s.run("g 13 13"), "sends Say{N: 7} to node 2, lost: node 2 is down\n")
}
