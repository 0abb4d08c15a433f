package walks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// ErrNoLiveness means a system has no liveness property to tune for.
var ErrNoLiveness = errors.New("walks: the system has no liveness property")

// TuneConfig says how to sample steps to the first live state (seed 003
// §4.4, Figure 2).
type TuneConfig struct {
	System *sim.Config
	// Depth is the periphery: each sample first takes Depth random steps
	// with failures on (as the bounded search would), then walks with
	// failures off; liveness counts after Depth steps. 0 is no periphery:
	// the walks start from the initial state, failures off. The paper's
	// Figure 2 uses 15 (macemc tune's default); a negative Depth is an
	// error.
	Depth int
	// Samples is the number of walks (default 1000).
	Samples int
	// MaxSteps is d_max for the sampling walks (default 20,000).
	MaxSteps int
	Seed     uint64
	Workers  int
	// WalkFailures keeps failures on after the periphery too.
	WalkFailures bool
	// HandlerTimeout bounds one handler (default engine.DefaultHandlerTimeout);
	// a sample whose handler does not return counts as Unsafe.
	HandlerTimeout time.Duration
	// Context, when set, stops the sampling when it ends (every walk
	// looks at it after each step): Tune then returns its error.
	Context context.Context
}

// TuneResult is the distribution of steps to the first live state.
type TuneResult struct {
	// Steps holds, sorted, the step of the first live state of every
	// sample that reached one.
	Steps []int
	// Samples is the number of walks; Samples-len(Steps) never turned live
	// within MaxSteps (Unsafe counts those that broke a safety property,
	// panicked or hung).
	Samples  int
	Unsafe   int
	MaxSteps int
	// Depth is the periphery the walks took (TuneConfig.Depth; 0: they
	// walked from the initial state).
	Depth int
}

// Tune runs the sampling walks in parallel; the result does not depend on
// the number of workers.
func Tune(c TuneConfig) (*TuneResult, error) {
	if c.System == nil || len(c.System.Liveness) == 0 {
		return nil, ErrNoLiveness
	}
	// A walk may meet a handler that allocates without returning: past
	// 4 GiB of heap (search's default memory limit) the heap alarm gives
	// up on it as a hang.
	defer engine.WatchHeap(engine.DefaultHeapBound, nil)()
	if c.Depth < 0 {
		return nil, fmt.Errorf("walks: tune depth %d: allowed 0 or more", c.Depth)
	}
	if c.Samples <= 0 {
		c.Samples = 1000
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = 20000
	}
	if c.Workers <= 0 {
		c.Workers = runtime.NumCPU()
	}
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	done := ctx.Done()
	going := ObserveFunc(func(*engine.Sim) bool {
		select {
		case <-done:
			return false
		default:
			return true
		}
	})
	steps := make([]int, c.Samples)
	unsafe := make([]bool, c.Samples)
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < c.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				// Failures are on for the periphery (FailuresUntil 0 is no
				// such limit), and all along with WalkFailures.
				until, noFailures := c.Depth, c.Depth == 0
				if c.WalkFailures {
					until, noFailures = 0, false
				}
				s, err := engine.New(c.System, engine.Options{Chooser: NewChooser(SeedFor(c.Seed, uint64(i)), false), FailuresUntil: until, NoFailures: noFailures})
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					steps[i] = -1
					continue
				}
				var r Result
				steps[i] = -1
				if err := s.Guard(c.HandlerTimeout, func() error {
					r = Walk(s, &Config{MaxSteps: c.MaxSteps, LiveAfter: c.Depth, Safety: c.System.Safety, Liveness: c.System.Liveness, Observe: going})
					return nil
				}); err != nil {
					unsafe[i] = true // a handler that did not return
					continue
				}
				switch r.Outcome {
				case Live:
					steps[i] = r.Steps
				case Unsafe, Failed:
					unsafe[i] = true
				}
			}
		}()
	}
feed:
	for i := 0; i < c.Samples; i++ {
		select {
		case next <- i:
		case <-done:
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if firstErr != nil {
		return nil, firstErr
	}
	res := &TuneResult{Samples: c.Samples, MaxSteps: c.MaxSteps, Depth: c.Depth}
	for i, st := range steps {
		if st >= 0 {
			res.Steps = append(res.Steps, st)
		}
		if unsafe[i] {
			res.Unsafe++
		}
	}
	sort.Ints(res.Steps)
	return res, nil
}

// NewChooser returns the seeded random chooser walks use.
func NewChooser(seed uint64, unbiased bool) *engine.Random {
	r := engine.NewRandom(seed)
	r.Unbiased = unbiased
	return r
}

// Percentile returns the step by which p percent (0-100) of all samples
// were live, or -1 if fewer than p percent ever were.
func (r *TuneResult) Percentile(p float64) int {
	need := int(math.Ceil(p / 100 * float64(r.Samples)))
	if need < 1 {
		need = 1
	}
	if need > len(r.Steps) {
		return -1
	}
	return r.Steps[need-1]
}

// Suggest returns a d_max: eight times the slowest sample that turned live
// (the paper saw every sample live by 10,000 steps and used 80,000),
// rounded up to two significant digits, and at least 100; 0 when no sample turned live, or
// when some never did within MaxSteps without breaking safety (Never):
// the slowest of those is slower than MaxSteps, and eight times the
// slowest sample that did turn live would be a d_max they never reach (a
// trial got 130 where 155 of 200 walks took over 20,000 steps).
func (r *TuneResult) Suggest() int {
	if len(r.Steps) == 0 || r.Never() > 0 {
		return 0
	}
	x := 8 * r.Steps[len(r.Steps)-1]
	if x < 100 {
		return 100
	}
	mag := int(math.Pow(10, math.Floor(math.Log10(float64(x)))-1))
	return (x + mag - 1) / mag * mag
}

// notLive is what a percentile that fewer samples reached than it asks
// shows: the samples past the live ones never turned live within
// MaxSteps, broke a safety property first (Unsafe: they did not run on),
// or some of each.
func (r *TuneResult) notLive() string {
	switch {
	case r.Never() == 0:
		return "- (broke a safety property first)"
	case r.Unsafe == 0:
		return fmt.Sprintf("never (within %d)", r.MaxSteps)
	default:
		return fmt.Sprintf("never within %d, or broke a safety property first", r.MaxSteps)
	}
}

// Never returns the number of samples that neither turned live within
// MaxSteps nor broke a safety property.
func (r *TuneResult) Never() int { return r.Samples - len(r.Steps) - r.Unsafe }

// SVG draws the cumulative distribution of steps to the first live state
// (like the paper's Figure 2) as a self-contained SVG document, with the
// suggested d_max (Suggest) marked and, when some walks never turned live,
// the walks' own bound.
func (r *TuneResult) SVG(title string) []byte {
	const w, h, left, bottom, top, right = 640, 400, 60, 50, 40, 20
	// halo keeps a label legible where it crosses the curve or a line.
	const halo = ` stroke="white" stroke-width="4" paint-order="stroke"`
	pw, ph := float64(w-left-right), float64(h-top-bottom)
	maxX := 1.0
	if len(r.Steps) > 0 {
		maxX = float64(r.Steps[len(r.Steps)-1])
	}
	dmax := r.Suggest()
	never := len(r.Steps) < r.Samples
	maxX = max(maxX, float64(dmax))
	if never {
		maxX = max(maxX, float64(r.MaxSteps))
	}
	logMax := math.Log10(maxX + 1)
	if logMax < 1 {
		logMax = 1
	}
	x := func(step int) float64 { return float64(left) + pw*math.Log10(float64(step)+1)/logMax }
	y := func(frac float64) float64 { return float64(top) + ph*(1-frac) }
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	// A long title (a system with many parameters) is squeezed to the
	// plot's width rather than cut off (about 7.5 pixels a character).
	fit := ""
	if avail := w - left - right; len(title)*15/2 > avail {
		fit = fmt.Sprintf(` textLength="%d" lengthAdjust="spacingAndGlyphs"`, avail)
	}
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14"%s>%s</text>`+"\n", left, fit, xmlEscape(title))
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>`+"\n", left, y(0), w-right, y(0))
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/>`+"\n", left, y(0), left, y(1))
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%.0f%%</text>`+"\n", left-6, y(f)+4, f*100)
	}
	for p := 0; float64(p) <= logMax; p++ {
		step := int(math.Pow(10, float64(p)))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", x(step), y(0)+18, step)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">simulator steps to the first live state (log scale), depth %d, %d samples</text>`+"\n", float64(left)+pw/2, h-8, r.Depth, r.Samples)
	if never {
		fmt.Fprintf(&b, `<g id="walk-bound"><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#888" stroke-dasharray="2 3"/>`, x(r.MaxSteps), y(0), x(r.MaxSteps), y(1))
		unsafe := ""
		if r.Unsafe > 0 {
			unsafe = fmt.Sprintf(" (%d broke a safety property)", r.Unsafe)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" fill="#555"`+halo+`>%d walks not live within %d steps%s</text></g>`+"\n", x(r.MaxSteps)-8, y(1)+28, r.Samples-len(r.Steps), r.MaxSteps, unsafe)
	}
	if dmax > 0 {
		fmt.Fprintf(&b, `<g id="dmax"><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#c0392b" stroke-width="2" stroke-dasharray="6 4"/>`, x(dmax), y(0), x(dmax), y(1))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" fill="#c0392b"`+halo+`>suggested d_max = %d</text></g>`+"\n", x(dmax)-8, y(1)+12, dmax)
	}
	var pts bytes.Buffer
	fmt.Fprintf(&pts, "%.1f,%.1f", x(0), y(0))
	for i, st := range r.Steps {
		frac := float64(i+1) / float64(r.Samples)
		fmt.Fprintf(&pts, " %.1f,%.1f %.1f,%.1f", x(st), y(float64(i)/float64(r.Samples)), x(st), y(frac))
	}
	fmt.Fprintf(&b, `<polyline fill="none" stroke="steelblue" stroke-width="2" points="%s"/>`+"\n", pts.String())
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// tunePage is the HTML page of a tune result: self-contained, the plot
// inline.
var tunePage = template.Must(template.New("tune").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:20px;color:#1d2330}h1{font-size:20px;overflow-wrap:anywhere}table{border-collapse:collapse}td,th{padding:2px 12px;text-align:right;border-bottom:1px solid #ddd}.dmax{color:#c0392b;font-weight:600}</style>
</head><body>
<h1>{{.Title}}</h1>
<p>{{.Samples}} walks from depth {{.Depth}}: {{.Live}} reached a live state within {{.MaxSteps}} steps{{if .Unsafe}} ({{.Unsafe}} broke a safety property){{end}}.</p>
{{if .Suggest}}<p class="dmax" id="suggest">suggested --walk-depth {{.Suggest}}: 8x the slowest live sample, at least 100, as the paper's 80,000 for 10,000 (seed 003 §4.4)</p>
{{else if .Live}}<p class="dmax" id="suggest">no suggestion: {{.Never}} walks never turned live within {{.MaxSteps}} steps, so the slowest is slower than that: a liveness bug, or raise --walk-depth and tune again</p>
{{else}}<p class="dmax" id="suggest">no walk turned live: a liveness bug, or raise --walk-depth and tune again</p>{{end}}
{{.SVG}}
<table><thead><tr><th>percentile</th><th>steps to live</th></tr></thead><tbody>
{{range .Rows}}<tr><td>p{{.P}}</td><td>{{if lt .Steps 0}}{{$.NotLive}}{{else}}{{.Steps}}{{end}}</td></tr>
{{end}}</tbody></table>
</body></html>
`))

// TunePercentiles are the percentiles `macemc tune` shows.
var TunePercentiles = []float64{10, 25, 50, 75, 90, 95, 99, 100}

// HTML returns a self-contained page with the plot (SVG), the
// percentiles and the suggested d_max.
func (r *TuneResult) HTML(title string) ([]byte, error) {
	type row struct {
		P     float64
		Steps int
	}
	var rows []row
	for _, p := range TunePercentiles {
		rows = append(rows, row{p, r.Percentile(p)})
	}
	var b bytes.Buffer
	err := tunePage.Execute(&b, map[string]any{
		"Title": title, "Samples": r.Samples, "Depth": r.Depth, "Live": len(r.Steps), "MaxSteps": r.MaxSteps,
		"Unsafe": r.Unsafe, "Suggest": r.Suggest(), "Never": r.Never(), "NotLive": r.notLive(), "Rows": rows,
		"SVG": template.HTML(r.SVG(title)), // drawn here; the title is escaped
	})
	if err != nil {
		return nil, fmt.Errorf("walks: tune page: %w", err)
	}
	return b.Bytes(), nil
}

func xmlEscape(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&quot;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WriteText writes the distribution as `macemc tune` prints it: how many
// walks turned live, the percentiles, the suggested d_max and the
// plots written (files).
func (r *TuneResult) WriteText(w io.Writer, title string, files ...string) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "%s: %d walks from depth %d, %d reached a live state within %d steps", title, r.Samples, r.Depth, len(r.Steps), r.MaxSteps)
	if r.Unsafe > 0 {
		fmt.Fprintf(b, " (%d broke a safety property)", r.Unsafe)
	}
	fmt.Fprintln(b, "\npercentile  steps to live")
	for _, pc := range TunePercentiles {
		if v := r.Percentile(pc); v < 0 {
			fmt.Fprintf(b, "  p%-8g  %s\n", pc, r.notLive())
		} else {
			fmt.Fprintf(b, "  p%-8g  %d\n", pc, v)
		}
	}
	if s := r.Suggest(); s > 0 {
		fmt.Fprintf(b, "suggested --walk-depth %d (8x the slowest live sample, at least 100, as the paper's 80,000 for 10,000)\n", s)
	}
	if n := r.Never(); n > 0 {
		fmt.Fprintf(b, "no suggested --walk-depth: %d walks never turned live within %d steps, so the slowest is slower than that: a liveness bug, or raise --walk-depth and tune again\n", n, r.MaxSteps)
	} else if r.Unsafe > 0 {
		fmt.Fprintf(b, "%d walks broke a safety property before they turned live: check that violation on its own\n", r.Unsafe)
	}
	for _, f := range files {
		if f != "" {
			fmt.Fprintf(b, "plot: %s\n", f)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Percentiles returns the percentiles of TunePercentiles by name ("p50"),
// -1 for those no walk reached.
func (r *TuneResult) Percentiles() map[string]int {
	table := map[string]int{}
	for _, pc := range TunePercentiles {
		table[fmt.Sprintf("p%g", pc)] = r.Percentile(pc)
	}
	return table
}
