package searchtest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
)

// Check runs search.Run on sys with opts and fails t when it finds a
// violation (with the report and the replay command), cannot run (bad
// options, a system that does not build), searches nothing (its time
// budget spent before the search: Report.NothingSearched), or stops before
// its budget: at
// the memory limit (Options.MaxMemory counts every search of the test
// binary: parallel tests share it), or at the test's deadline. The run's
// context is the test's (t.Context), ending a margin before the test's
// deadline (go test -timeout; a tenth of the time left, 1 to 30 s), so
// that a violation found before then is reported with its files rather
// than lost to the timeout's panic. The report's text (what was searched,
// its warnings) goes to t.Log. It returns the report, nil when the run
// could not start.
func Check(t testing.TB, sys *sim.System, opts search.Options) *search.Report {
	t.Helper()
	if sys == nil {
		// A package variable set by sim.Lookup runs before the init that
		// registers the system, and is nil.
		t.Errorf("macemc search: no system (nil *sim.System; a variable set by sim.Lookup before the system's package registered it?)")
		return nil
	}
	own := ""
	if opts.Out == "" {
		// A directory of its own for every run: tests of the same name in
		// two packages (or two users' runs) must not replace each
		// other's evidence.
		name := regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_")
		dir, err := os.MkdirTemp("", "macemc-"+name+"-")
		if err != nil {
			t.Errorf("macemc search %s: %v", sys.Name, err)
			return nil
		}
		opts.Out, own = dir, dir
	}
	ctx, cancel := testContext(t)
	defer cancel()
	rep, err := search.Run(ctx, sys, opts)
	if err != nil {
		t.Errorf("macemc search %s: %v", sys.Name, err)
		return rep
	}
	if own != "" && rep.First() == nil {
		_ = os.RemoveAll(own) // nothing to replay
		clear(rep.Files)      // nor any file to name
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	// The note goes first: a report ends with its replay command.
	var b bytes.Buffer
	b.WriteString(flagNote(text.String()))
	b.Write(text.Bytes())
	testDone := contextOf(t).Err() != nil
	switch {
	case rep.First() != nil:
		t.Errorf("macemc found a violation in %s:\n%s", sys.Name, b.String())
	case rep.MemoryLimited:
		t.Errorf("macemc search %s stopped at the memory limit before its budget (Options.MaxMemory: the heap of the whole test binary, "+
			"parallel tests' included, counts against it): nothing was found, but not everything was searched\n%s", sys.Name, b.String())
	case rep.Incomplete && ctx.Err() != nil && errors.Is(context.Cause(ctx), errDeadline):
		t.Errorf("macemc search %s stopped at the test's deadline before its budget (go test -timeout): nothing was found, "+
			"but not everything was searched; lower the budget (Options.MaxPaths, Options.Time) or raise -timeout\n%s", sys.Name, b.String())
	case rep.Incomplete && testDone:
		t.Errorf("macemc search %s was interrupted before its budget: the test's context was done (t.Context ends when the test function returns, "+
			"before its Cleanup functions run: call Check in the test's body); nothing was found, but not everything was searched\n%s", sys.Name, b.String())
	case rep.Incomplete:
		t.Errorf("macemc search %s was interrupted before its budget: nothing was found, but not everything was searched\n%s", sys.Name, b.String())
	case rep.NothingSearched():
		t.Errorf("macemc search %s searched nothing: its time budget (Options.Time) ran out before the search finished a path; raise it\n%s", sys.Name, b.String())
	default:
		t.Log(b.String())
	}
	return rep
}

// contextOf returns t.Context(), or context.Background() for a stand-in
// for testing.TB that embeds a nil one (whose Context panics).
func contextOf(t testing.TB) (ctx context.Context) {
	defer func() {
		if recover() != nil {
			ctx = context.Background()
		}
	}()
	return t.Context()
}

// errDeadline is the cause of the end of Check's context at the test's
// deadline.
var errDeadline = errors.New("the test's deadline is near")

// testContext is the context of a run of Check: t's, ending a margin
// before t's deadline, if it has one.
func testContext(t testing.TB) (context.Context, context.CancelFunc) {
	ctx := contextOf(t)
	dt, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return context.WithCancel(ctx)
	}
	deadline, ok := dt.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	left := time.Until(deadline)
	margin := min(max(left/10, time.Second), 30*time.Second, left/2)
	return context.WithDeadlineCause(ctx, deadline.Add(-margin), errDeadline)
}

// flagName matches a command-line flag in a report's text.
var flagName = regexp.MustCompile(`--([a-z][a-z-]*[a-z])`)

// flagNote says which Options field each command-line flag that text
// names is ("" when it names none): the report's advice is worded for
// the command line.
func flagNote(text string) string {
	var notes []string
	seen := map[string]bool{}
	for _, m := range flagName.FindAllStringSubmatch(text, -1) {
		if seen[m[1]] {
			continue
		}
		seen[m[1]] = true
		if field, ok := search.OptionForFlag(m[1]); ok {
			notes = append(notes, "--"+m[1]+" is Options."+field)
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return "(the flags below are macemc's command line: " + strings.Join(notes, ", ") + ")\n"
}
