package browsertest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/macemc/macemc/mdb/htmlreport"
	"github.com/macemc/macemc/mdb/htmlreport/reporttest"
	"github.com/macemc/macemc/sim/simtest"
)

var shots = flag.String("screenshots", "", "also write every page's screenshot into this directory")

// chromium finds the browser: $MACEMC_CHROMIUM, else Debian's chromium or
// another Chrome on PATH.
func chromium(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("MACEMC_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	tb.Fatal("no Chromium found: install it (Debian: apt-get install chromium) or set MACEMC_CHROMIUM to its path; .ci/run installs it")
	return ""
}

// browser is one headless Chromium with one tab, recording what the page
// logs as an error and every request it makes.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	errors   []string
	requests []string
}

func newBrowser(tb testing.TB) *browser {
	tb.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(tb)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.WindowSize(1600, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	tb.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	b := &browser{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value))
				}
				b.errors = append(b.errors, "console.error: "+strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.errors = append(b.errors, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, msg))
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				b.errors = append(b.errors, "log: "+ev.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, ev.Request.URL)
		}
	})
	if err != nil {
		tb.Fatalf("start Chromium: %v", err)
	}
	for _, enable := range []func() error{
		func() error { _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); return err },
		func() error { _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); return err },
		func() error { _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); return err },
	} {
		if err := enable(); err != nil {
			tb.Fatalf("start Chromium: %v", err)
		}
	}
	return b
}

// open loads a page from disk and waits until its script has drawn it.
func (b *browser) open(tb testing.TB, file string) {
	tb.Helper()
	b.mu.Lock()
	b.errors, b.requests = nil, nil
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx,
		chromedp.Navigate("file://"+file),
		chromedp.WaitReady(chromedp.CSS(`html[data-ready="true"]`)),
	); err != nil {
		tb.Fatalf("open %s: %v (errors: %v)", file, err, b.errs())
	}
}

func (b *browser) errs() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

// checkClean fails tb when the page logged an error or fetched anything
// but itself.
func (b *browser) checkClean(tb testing.TB, file string) {
	tb.Helper()
	if e := b.errs(); len(e) > 0 {
		tb.Errorf("the page logged errors:\n%s", strings.Join(e, "\n"))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, u := range b.requests {
		if u != "file://"+file && !strings.HasPrefix(u, "data:") {
			tb.Errorf("the page fetched %s; it must be self-contained", u)
		}
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](tb testing.TB, b *browser, js string) T {
	tb.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		tb.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func (b *browser) run(tb testing.TB, what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		tb.Fatalf("%s: %v (errors: %v)", what, err, b.errs())
	}
}

// pageInfo is what the tests read off a drawn page.
type pageInfo struct {
	Lanes     int    `json:"lanes"`
	Rows      int    `json:"rows"`
	Crit      int    `json:"crit"`
	CritRows  int    `json:"critRows"`
	CycRows   int    `json:"cycRows"`
	FailRows  int    `json:"failRows"`
	Selected  string `json:"selected"`
	Title     string `json:"title"`
	Panel     string `json:"panel"`
	Sections  int    `json:"sections"`
	Changed   int    `json:"changed"`
	Arrows    int    `json:"arrows"`
	StepCount int    `json:"steps"`
}

const infoJS = `(() => {
  const q = s => document.querySelectorAll(s);
  const sel = document.querySelector('#lanes .row.sel');
  const d = JSON.parse(document.getElementById('macemc-data').textContent);
  return {
    lanes: q('#lanes-head .lane-head').length,
    rows: q('#lanes .row').length,
    crit: d.paths[0].crit,
    critRows: q('#lanes .row.crit').length,
    cycRows: q('#lanes .row.cyc').length,
    failRows: q('#lanes .row.fail').length,
    selected: sel ? sel.dataset.step : '',
    title: (document.getElementById('state-title') || {}).textContent || '',
    panel: document.getElementById('state').innerText,
    sections: q('#state details.node').length,
    changed: q('#state details.node.changed').length,
    arrows: q('#lanes path[marker-end]').length,
    steps: d.paths[0].steps,
  };
})()`

func (b *browser) info(tb testing.TB) pageInfo {
	tb.Helper()
	return eval[pageInfo](tb, b, infoJS)
}

func (b *browser) screenshot(tb testing.TB, name string) {
	tb.Helper()
	b.run(tb, "scroll to the lanes", chromedp.ScrollIntoView(chromedp.ID("viewer")))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.Fatalf("screenshot: %v", err)
	}
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		tb.Fatalf("the screenshot is not a PNG (%d bytes)", len(png))
	}
	dir := *shots
	if dir == "" {
		dir = tb.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// pathsData reads the page's data: its paths' names and telling steps.
type pathsData struct {
	Paths []struct {
		Name       string `json:"name"`
		Steps      int    `json:"steps"`
		Crit       int    `json:"crit"`
		Fail       int    `json:"fail"`
		CycleStart int    `json:"cycleStart"`
		CycleLen   int    `json:"cycleLen"`
		Tail       int    `json:"tail"`
	} `json:"paths"`
	Nodes    []string `json:"nodes"`
	Monitors []string `json:"monitors"`
}

// TestExamplesInChromium opens every example system's report.html in
// headless Chromium: no console errors and nothing fetched, a lane per
// node, the critical (failing, cycle) step marked and selected, and a click
// on another step changes the state panel. Budget: reporttest.Examples.
func TestExamplesInChromium(t *testing.T) {
	b := newBrowser(t)
	for _, ex := range reporttest.Examples {
		t.Run(ex.Name, func(t *testing.T) {
			dir := t.TempDir()
			reporttest.Search(t, dir, ex)
			if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, htmlreport.PageFile)
			b.open(t, file)
			var d pathsData
			raw := eval[string](t, b, `document.getElementById('macemc-data').textContent`)
			if err := json.Unmarshal([]byte(raw), &d); err != nil {
				t.Fatal(err)
			}
			p := d.Paths[0]
			pi := b.info(t)
			if pi.Lanes != len(d.Nodes) || len(d.Nodes) < 2 {
				t.Errorf("%d lane heads for %d nodes", pi.Lanes, len(d.Nodes))
			}
			if pi.Rows == 0 || pi.Arrows == 0 {
				t.Errorf("the lanes show %d rows and %d message arrows", pi.Rows, pi.Arrows)
			}
			want := p.Steps
			switch {
			case p.Crit >= 0:
				want = p.Crit
				if pi.CritRows != 1 {
					t.Errorf("%d rows marked critical, want 1 (step %d)", pi.CritRows, p.Crit)
				}
			case p.Fail >= 0:
				want = p.Fail
				if pi.FailRows != 1 {
					t.Errorf("%d rows marked failing, want 1 (step %d)", pi.FailRows, p.Fail)
				}
			case p.CycleLen > 0:
				want = p.CycleStart + 1
				if pi.CycRows != p.CycleLen {
					t.Errorf("%d rows marked as the cycle, want %d", pi.CycRows, p.CycleLen)
				}
			}
			if ex.Kind == "dead" && p.Crit < 0 {
				t.Errorf("a dead-state finding without a critical step on the page")
			}
			if pi.Selected != fmt.Sprint(want) || !strings.HasPrefix(pi.Title, fmt.Sprintf("Step %d of", want)) {
				t.Errorf("the page opens at row %q, panel %q; want step %d", pi.Selected, pi.Title, want)
			}
			if want := len(d.Nodes) + len(d.Monitors) + 1; pi.Sections != want {
				t.Errorf("the state panel shows %d sections, want every node, every monitor and the network (%d)", pi.Sections, want)
			}
			if len(d.Monitors) > 0 && !strings.Contains(pi.Panel, d.Monitors[0]) {
				t.Errorf("the state panel does not show %s:\n%s", d.Monitors[0], pi.Panel)
			}
			b.screenshot(t, ex.Name) // as the page opens: the telling step selected
			// Click the step before: the panel changes to it.
			other := max(want-1, 0)
			if want == 0 {
				other = 1
			}
			b.run(t, "click a step", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#lanes .row[data-step="%d"] .stepno`, other))))
			after := b.info(t)
			if after.Selected != fmt.Sprint(other) || !strings.HasPrefix(after.Title, fmt.Sprintf("Step %d of", other)) {
				t.Errorf("after clicking step %d: row %q selected, panel %q", other, after.Selected, after.Title)
			}
			if after.Panel == pi.Panel {
				t.Errorf("clicking step %d left the state panel as it was", other)
			}
			if other > 0 && after.Changed == 0 && !strings.Contains(after.Panel, "drop") && !strings.Contains(after.Panel, "break") {
				t.Errorf("step %d changes no section in the panel:\n%s", other, after.Panel)
			}
			b.checkClean(t, file)
		})
	}
}

// TestFailureEventsInChromium opens the page of a path with a
// duplication, a partition, its healing and a crash (reporttest.Faults):
// each is drawn on the lanes, and selecting the partition's step lists the
// messages it lost.
func TestFailureEventsInChromium(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	reporttest.Faults(t, dir)
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, htmlreport.PageFile)
	b.open(t, file)
	lanes := eval[string](t, b, `document.getElementById('lanes').textContent`)
	for _, label := range []string{"dup Data", "Data (copy)", "partition {0} | the rest", "partition heals", "crash: down for good"} {
		if !strings.Contains(lanes, label) {
			t.Errorf("the lanes do not show %q", label)
		}
	}
	b.run(t, "click the partition", chromedp.Click(chromedp.CSS(`#lanes .row[data-step="4"] .stepno`)))
	panel := b.info(t).Panel
	for _, lost := range []string{"a copy of datagram Data", "datagram Ack", "lost when the network partitioned at step 4"} {
		if !strings.Contains(panel, lost) {
			t.Errorf("the panel at the partition does not say %q:\n%s", lost, panel)
		}
	}
	b.run(t, "click the last step", chromedp.Click(chromedp.CSS(`#lanes .row[data-step="8"] .stepno`)))
	if panel := b.info(t).Panel; !strings.Contains(panel, "lost: node 0 is down") {
		t.Errorf("the panel at step 8 does not say the Ack to the crashed node is lost:\n%s", panel)
	}
	b.screenshot(t, "faults")
	b.checkClean(t, file)
}

// TestBigStateInChromium opens the page of reporttest.BigState, whose
// states hold a 3,000-int list, a 5,000-byte string and 50 messages on one
// connection: the panel shows them cut, with the markers styled as such
// and a note naming the mdb command that shows them whole, and step 2's
// diff shows the int and the byte it changed deep inside them; the
// comparison with the live path and the live path's tab work too.
func TestBigStateInChromium(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	reporttest.BigState(t, dir)
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, htmlreport.PageFile)
	b.open(t, file)
	b.run(t, "click step 2", chromedp.Click(chromedp.CSS(`#lanes .row[data-step="2"] .stepno`)))
	two := b.info(t)
	for _, want := range []string{"1501: 1501", "1501: 1502", "a#abab", "… 1,479 more lines", "j 2; state'", "j 2; d'"} {
		if !strings.Contains(two.Panel, want) {
			t.Errorf("the panel at step 2 does not show %q:\n%s", want, two.Panel)
		}
	}
	if n := eval[int](t, b, `document.querySelectorAll('#state .st .add').length`); n < 3 {
		t.Errorf("%d lines marked added at step 2, want the int, the string, the count and the ball sent", n)
	}
	if n := eval[int](t, b, `document.querySelectorAll('#state .st .cut').length`); n == 0 {
		t.Error("no marker of a cut is styled as one")
	}
	if n := eval[int](t, b, `document.querySelectorAll('#state .st div').length`); n > 600 {
		t.Errorf("the panel shows %d lines", n)
	}
	b.run(t, "click step 4", chromedp.Click(chromedp.CSS(`#lanes .row[data-step="4"] .stepno`)))
	b.run(t, "compare", chromedp.Click(chromedp.CSS(`#state input[value="other"]`)))
	if cmp := b.info(t); !strings.Contains(cmp.Panel, "- the live alternative, + the dead path") || !strings.Contains(cmp.Panel, "filediff 4") {
		t.Errorf("the comparison with the live path at step 4:\n%s", cmp.Panel)
	}
	b.run(t, "live tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-name="live"]`)))
	if live := b.info(t); !strings.Contains(live.Panel, "path live; j 4; state") {
		t.Errorf("the live path's panel at step 4:\n%s", live.Panel)
	}
	b.screenshot(t, "bigstate")
	b.checkClean(t, file)
}

// TestInteractions drives one page the way a person would: keys move the
// selection, the live path's tab and the comparison with it, a collapsed
// tail opens, a stub jumps to its message's other end.
func TestInteractions(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	reporttest.Search(t, dir, reporttest.Examples[0]) // transport: 2,000 steps, a tail
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, htmlreport.PageFile)
	b.open(t, file)
	start := b.info(t)
	b.run(t, "arrow down", chromedp.Focus(chromedp.ID("lanes-scroll")), chromedp.KeyEvent(kb.ArrowDown))
	down := b.info(t)
	if fmt.Sprint(start.Crit+1) != down.Selected {
		t.Errorf("ArrowDown from step %s selected %s", start.Selected, down.Selected)
	}
	// Compare with the live path at the same step.
	b.run(t, "compare", chromedp.Click(chromedp.CSS(`#state input[value="other"]`)))
	cmp := b.info(t)
	if !strings.Contains(cmp.Panel, "- the live alternative, + the dead path") {
		t.Errorf("the comparison with the live path is not shown:\n%s", cmp.Panel)
	}
	// The minimized path's tab: its own, shorter path, ending at the
	// critical step.
	b.run(t, "minimized tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-name="min"]`)))
	mp := b.info(t)
	if !strings.Contains(mp.Title, "(minimized path)") || mp.Rows == 0 || mp.Rows >= start.Crit+2 || mp.CritRows != 1 {
		t.Errorf("the minimized tab shows %q with %d rows (%d critical); the dead path's critical step is %d", mp.Title, mp.Rows, mp.CritRows, start.Crit)
	}
	// The live alternative is the dead path's: the minimized path's states
	// are not diffed against it, nor its steps said shared with it.
	if strings.Contains(mp.Panel, "Diff against") || strings.Contains(mp.Panel, "live path") {
		t.Errorf("the minimized tab compares its path with the live alternative:\n%s", mp.Panel)
	}
	// The live path's tab.
	b.run(t, "live tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-name="live"]`)))
	live := b.info(t)
	if !strings.Contains(live.Title, "(live alternative)") {
		t.Errorf("the live tab shows %q", live.Title)
	}
	// Back to the dead path, whose tail starts collapsed. A message sent
	// before the tail and received in it is drawn as a stub; clicking it
	// jumps to the receipt and opens the tail.
	b.run(t, "dead tab", chromedp.Click(chromedp.CSS(`#tabs .tab[data-name="error"]`)))
	if !eval[bool](t, b, `document.querySelectorAll('#lanes .section')[1].hidden`) {
		t.Fatal("the 2,000-step dead path's tail does not start collapsed")
	}
	var d struct {
		Paths []struct {
			Tail int   `json:"tail"`
			Msgs []int `json:"msgs"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(eval[string](t, b, `document.getElementById('macemc-data').textContent`)), &d); err != nil {
		t.Fatal(err)
	}
	tail, sent, recv := d.Paths[0].Tail, -1, -1
	for m := d.Paths[0].Msgs; len(m) >= 7; m = m[7:] {
		if m[0] <= tail && m[3] > tail {
			sent, recv = m[0], m[3]
			break
		}
	}
	if sent < 0 {
		t.Fatalf("no message crosses into the tail after step %d", tail)
	}
	b.run(t, "go to the send", chromedp.SetValue(chromedp.ID("goto"), fmt.Sprint(sent)), chromedp.SendKeys(chromedp.ID("goto"), kb.Enter))
	if got := b.info(t); got.Selected != fmt.Sprint(sent) {
		t.Fatalf("the step box selected %s, want %d", got.Selected, sent)
	}
	b.run(t, "click the stub", chromedp.Click(chromedp.CSS(fmt.Sprintf(`#lanes .stub[data-goto="%d"] text`, recv))))
	if got := b.info(t); got.Selected != fmt.Sprint(recv) {
		t.Errorf("the stub of the message sent at step %d and received at %d selected %s", sent, recv, got.Selected)
	}
	if eval[bool](t, b, `document.querySelectorAll('#lanes .section')[1].hidden`) {
		t.Error("jumping into the tail did not open it")
	}
	b.run(t, "end", chromedp.Focus(chromedp.ID("lanes-scroll")), chromedp.KeyEvent(kb.End))
	if end := b.info(t); end.Selected != fmt.Sprint(end.StepCount) {
		t.Errorf("End selected %s, want the last step %d", end.Selected, end.StepCount)
	}
	b.checkClean(t, file)
}

// TestLongPath opens a 20,000-step dead path and logs the page's size and
// the time until its script has drawn it (BenchmarkOpen20000 measures it).
func TestLongPath(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	reporttest.Search20000(t, dir)
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, htmlreport.PageFile)
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	b.open(t, file)
	pi := b.info(t)
	if pi.StepCount != 20000 {
		t.Fatalf("the path has %d steps, want 20,000", pi.StepCount)
	}
	// Lazily drawn: a few chunks of rows, not 20,000.
	if pi.Rows == 0 || pi.Rows > 1000 {
		t.Errorf("%d rows drawn at open; the lanes should draw only the chunks in view", pi.Rows)
	}
	t.Logf("20,000-step page: %d bytes; ready %.0f ms after navigation started (shared machine)", fi.Size(), readyMS(t, b))
	b.checkClean(t, file)
	b.screenshot(t, "long")
}

func readyMS(tb testing.TB, b *browser) float64 {
	return eval[float64](tb, b, `+document.documentElement.dataset.readyMs`)
}

// BenchmarkOpen20000 loads the 20,000-step page from disk until its
// script has drawn it; ms/ready is the page's own measure (from the start
// of navigation).
func BenchmarkOpen20000(bm *testing.B) {
	b := newBrowser(bm)
	dir := bm.TempDir()
	reporttest.Search20000(bm, dir)
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		bm.Fatal(err)
	}
	file := filepath.Join(dir, htmlreport.PageFile)
	var total float64
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		b.open(bm, file)
		total += readyMS(bm, b)
	}
	bm.ReportMetric(total/float64(bm.N), "ms/ready")
}

// TestHungHandlerInChromium opens the page of a handler that did not
// return at step 2, after the path's one step: a row after the lanes names
// step 2, no row of the path is marked as failing, and the panel at step 1
// says that the next step did not return.
func TestHungHandlerInChromium(t *testing.T) {
	b := newBrowser(t)
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
	file := filepath.Join(dir, htmlreport.PageFile)
	b.open(t, file)
	pi := b.info(t)
	if pi.FailRows != 0 {
		t.Errorf("%d rows of the path marked as failing: the hung step is after them", pi.FailRows)
	}
	if pi.Selected != "1" || !strings.Contains(pi.Panel, "the next step, 2, did not return") {
		t.Errorf("the page opens at row %q with the panel:\n%s\nwant step 1, saying step 2 did not return", pi.Selected, pi.Panel)
	}
	if hung := eval[string](t, b, `(document.getElementById('hung-row') || {}).textContent || ''`); !strings.Contains(hung, "step 2 did not return") {
		t.Errorf("the row after the lanes says %q", hung)
	}
	b.checkClean(t, file)
}

// TestPrefixInChromium opens a page whose report says the search started
// from a 3-step prefix: the panel badges the prefix's steps as the
// prefix's, and the steps after it, up to the search depth, as the bounded
// search's.
func TestPrefixInChromium(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	reporttest.Search(t, dir, reporttest.Examples[0])
	rep := filepath.Join(dir, htmlreport.ReportFile)
	raw, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	r["prefix_steps"] = 3
	if raw, err = json.Marshal(r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rep, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := htmlreport.WriteDir(dir, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, htmlreport.PageFile)
	b.open(t, file)
	b.run(t, "click step 2", chromedp.Click(chromedp.CSS(`#lanes .row[data-step="2"] .stepno`)))
	if panel := b.info(t).Panel; !strings.Contains(panel, "in the 3-step prefix") || strings.Contains(panel, "inside the bounded search") {
		t.Errorf("the panel at step 2 does not badge it as the prefix's:\n%s", panel)
	}
	b.run(t, "click step 4", chromedp.Click(chromedp.CSS(`#lanes .row[data-step="4"] .stepno`)))
	if panel := b.info(t).Panel; !strings.Contains(panel, "inside the bounded search (steps 4-") {
		t.Errorf("the panel at step 4 does not badge it as the bounded search's:\n%s", panel)
	}
	b.checkClean(t, file)
}
