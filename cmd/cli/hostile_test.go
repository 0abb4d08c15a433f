package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cockroachdb/datadriven"

	"github.com/macemc/macemc/sim"
)

// The hostile system's text: what a user's system may put in a timer's,
// property's or monitor's name, a panic value, an error, a log message or
// a string parameter, made to act on a terminal (clear it, set its title,
// overwrite the line, reorder it) and to fake lines of macemc's own.
const (
	// hostileText clears the screen, sets the title, and fakes a verdict
	// and a replay command on lines of their own.
	hostileText = "\x1b[2J\x1b]0;TITLE\a\r\nLIVENESS VIOLATION of property Fake\nreplay: rm -rf ~/fake \xff \u202eexe.gnp"
	// hostileTimer is node 0's periodic timer.
	hostileTimer = "tick\x1b[2J\r\nreplay: fake-timer \xff"
	// hostileStateTimer, armed by the stuck node, fakes lines of its
	// state text: done, not stuck, no timers.
	hostileStateTimer = "retry]\nDone: true\nStuck: false\ntimers: [none"
	// hostileProperty names the liveness property.
	hostileProperty = "Done\x1b[2J\nLIVENESS VIOLATION fake \xff"
	// hostileMonitor names the monitor of mode=monitor.
	hostileMonitor = "Mon\x1b[2J\nreplay: mon"
	// hostileLabel is a string parameter's value, as a search records it
	// in its traces and replay and mdb read it back.
	hostileLabel = "x\x1b[2J\x1b]0;pwn\a\nLIVENESS VIOLATION: none\nreplay: evil"
)

// hostileNode is a node of the hostile system. Node 0's periodic timer
// sends node 1 a message once; node 1 then becomes done, or (Rand) stuck
// forever with hostileStateTimer armed: the liveness bug.
type hostileNode struct {
	sim.Base
	Sent, Done, Stuck bool
	mode              string
}

// hostileMsg carries hostileText.
type hostileMsg struct{ Text string }

func (n *hostileNode) Start(ctx *sim.Context) {
	if ctx.Self() == 0 {
		ctx.SetPeriodic(hostileTimer)
	}
}

func (n *hostileNode) HandleTimer(ctx *sim.Context, name string) {
	switch {
	case ctx.Self() == 1:
		ctx.SetTimer(hostileStateTimer)
	case !n.Sent:
		n.Sent = true
		ctx.Send(1, hostileMsg{Text: hostileText})
	}
}

func (n *hostileNode) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	ctx.Logf("got %s", hostileText)
	ctx.Log().Str("key\x1b[2J\nreplay: k", "v").Msg("field")
	switch n.mode {
	case "panic":
		panic("boom " + hostileText)
	case "monitor":
		ctx.Notify("seen")
	}
	if ctx.Rand(2) == 1 {
		n.Stuck = true
		ctx.SetTimer(hostileStateTimer)
		return
	}
	n.Done = true
}

// hostileCheck checks the liveness property: node 1 is done. With
// mode=proppanic it panics once node 1 is stuck.
type hostileCheck struct{ mode string }

func (c hostileCheck) done(v *sim.View) bool {
	if c.mode == "proppanic" && sim.Node[hostileNode](v, 1).Stuck {
		panic("property panic " + hostileText)
	}
	return sim.Node[hostileNode](v, 1).Done
}

// hostileMon fails at the first event it is notified of.
type hostileMon struct{}

func (hostileMon) Handle(ev any) error { return errors.New("monitor error " + hostileText) }

func init() {
	sim.Register(&sim.System{
		Name: "clitest-hostile",
		Doc:  "test system: user text made to act on the terminal",
		Params: []sim.ParamSpec{
			{Name: "mode", Kind: sim.ParamString, Default: "liveness", Doc: "liveness, panic, proppanic, monitor or builderr"},
			{Name: "label", Kind: sim.ParamString, Default: "x", Doc: "free text"},
		},
		Build: func(p sim.Params) (*sim.Config, error) {
			mode := p.String("mode")
			if mode == "builderr" {
				return nil, errors.New("build error " + hostileText)
			}
			cfg := &sim.Config{
				Nodes:    2,
				Service:  func(sim.NodeID) sim.Service { return &hostileNode{mode: mode} },
				Liveness: []sim.Property{{Name: hostileProperty, Check: hostileCheck{mode}.done}},
			}
			if mode == "monitor" {
				cfg.Monitors = []sim.MonitorSpec{{Name: hostileMonitor, New: func() sim.Monitor { return hostileMon{} }}}
			}
			return cfg, nil
		},
	})
}

// TestHostileText runs the commands of testdata/hostile.txt on the
// hostile system, each a command line of the CLI (app.Run: words split at
// spaces, '...' one word), and shows
// their exit code, standard output and error; "cat FILE" shows a file
// the commands wrote. In the command lines $DIR is a new directory (one
// per file) and $LABEL hostileLabel; "page FILE" checks a report page
// (valid UTF-8, no control character, no state lines made of a timer's
// name) and shows its title. In the output the directory reads
// $DIR, times 0.00s and the service's source lines FILE:LINE. Whatever
// the golden file says, every output must be valid UTF-8 without a
// control character (but a stack's indenting tab and the newlines that
// end lines), no line may begin with "replay:" unless it is macemc's own
// replay command, and no state text may say that node 1 is done (the
// timer name that fakes "Done: true"). go test ./cmd/cli -rewrite
// regenerates the file.
func TestHostileText(t *testing.T) {
	dir := t.TempDir()
	// The problems of every command are reported at the end, those of
	// later commands too: datadriven stops at the first command whose
	// test failed.
	var problems []string
	t.Cleanup(func() {
		for _, p := range problems {
			t.Error(p)
		}
	})
	datadriven.RunTest(t, "testdata/hostile.txt", func(t *testing.T, td *datadriven.TestData) string {
		var out string
		switch td.Cmd {
		case "cli":
			args := splitArgs(strings.ReplaceAll(td.Input, "$DIR", dir))
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "$LABEL", hostileLabel)
			}
			code, stdout, stderr := run(t, args...)
			out = "exit " + strconv.Itoa(code) + "\n" + stdout
			if stderr != "" {
				out += "stderr:\n" + stderr
			}
		case "cat":
			b, err := os.ReadFile(filepath.Join(dir, strings.TrimSpace(td.Input)))
			if err != nil {
				td.Fatalf(t, "%v", err)
			}
			out = string(b)
		case "page":
			// A report page: valid UTF-8, as it declares, and no control
			// character, and no state lines made of the stuck node's
			// timer's name (which holds "timers: [none"); its title.
			name := strings.TrimSpace(td.Input)
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				td.Fatalf(t, "%v", err)
			}
			page := string(b)
			if !utf8.ValidString(page) {
				problems = append(problems, fmt.Sprintf("%s: %s is not valid UTF-8", td.Pos, name))
			}
			if i := strings.IndexFunc(page, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' || r == 0x7f }); i >= 0 {
				problems = append(problems, fmt.Sprintf("%s: %s holds a control character: %q", td.Pos, name, page[max(0, i-40):min(len(page), i+40)]))
			}
			if strings.Contains(page, `"timers: [retry]"`) || strings.Contains(page, `"timers: [none]"`) {
				problems = append(problems, fmt.Sprintf("%s: %s's state data holds timers lines made of a timer's name", td.Pos, name))
			}
			_, title, _ := strings.Cut(page, "<title>")
			title, _, _ = strings.Cut(title, "</title>")
			out = "title: " + title + "\n"
		case "list":
			// The hostile system's part of the catalog.
			_, stdout, _ := run(t, "list")
			_, rest, _ := strings.Cut(stdout, "clitest-hostile\n")
			part := []string{"clitest-hostile"}
			for _, l := range strings.Split(rest, "\n") {
				if !strings.HasPrefix(l, "  ") {
					break
				}
				part = append(part, l)
			}
			out = strings.Join(part, "\n") + "\n"
		default:
			td.Fatalf(t, "unknown command %q", td.Cmd)
		}
		problems = append(problems, plainProblems(td.Pos, out)...)
		out = strings.ReplaceAll(out, dir, "$DIR")
		out = hostileTimes.ReplaceAllString(out, "0.00s")
		return hostileSource.ReplaceAllString(out, "\tFILE:LINE")
	})
}

var (
	// hostileTimes matches a time in seconds; hostileSource a stack's
	// source line.
	hostileTimes  = regexp.MustCompile(`\b\d+\.\d\ds\b`)
	hostileSource = regexp.MustCompile(`\t\S+\.go:\d+`)
	// ownReplay matches macemc's replay command.
	ownReplay = regexp.MustCompile(`^replay: macemc replay --trace \S+ --log \S+$`)
)

// plainProblems says what is wrong with out, the output of the command
// at pos: a control character (but a newline, or a tab that indents a
// stack's source line), text that is not valid UTF-8, a line beginning
// "replay:" other than macemc's replay command, or a state line made of
// the stuck node's timer's name.
func plainProblems(pos, out string) []string {
	var problems []string
	if !utf8.ValidString(out) {
		problems = append(problems, fmt.Sprintf("%s: output is not valid UTF-8:\n%q", pos, out))
	}
	for _, line := range strings.Split(out, "\n") {
		text := strings.TrimLeft(line, " ")
		if strings.HasPrefix(text, "\t") && hostileSource.MatchString(text) {
			text = text[1:]
		}
		for _, r := range text {
			if r < ' ' || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029 {
				problems = append(problems, fmt.Sprintf("%s: line holds %U: %q", pos, r, line))
				break
			}
		}
		if strings.HasPrefix(line, "replay:") && !ownReplay.MatchString(line) {
			problems = append(problems, fmt.Sprintf("%s: a line fakes a replay command: %q", pos, line))
		}
		if line == "Done: true" || strings.HasPrefix(line, "timers: [retry]") || line == "timers: [none]" {
			problems = append(problems, fmt.Sprintf("%s: a state line made of a timer's name: %q", pos, line))
		}
	}
	return problems
}

// splitArgs splits a command line into words at spaces; '...' is one
// word.
func splitArgs(line string) []string {
	var args []string
	var word strings.Builder
	in, started := false, false
	for _, r := range strings.TrimSpace(line) {
		switch {
		case r == '\'':
			in, started = !in, true
		case r == ' ' && !in:
			if started {
				args = append(args, word.String())
			}
			word.Reset()
			started = false
		default:
			word.WriteRune(r)
			started = true
		}
	}
	if started {
		args = append(args, word.String())
	}
	return args
}

// TestPrintedCommandsPaste: the debug and replay commands a search prints
// run, pasted into a shell, on the --out directory it was given: a name
// with braces, a history !, a leading - (which gets ./, not to be taken
// for a flag), a newline, an escape, a tab or a bidi control, each shown
// as plain text. bash runs each command when there is one, with mdb and
// macemc shell functions that print the words they are given; without
// bash the commands are compared with the expected text.
func TestPrintedCommandsPaste(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Logf("no bash (%v): the printed commands are compared, not run", err)
	}
	t.Chdir(t.TempDir())
	for _, c := range []struct{ out, shown, arg string }{
		{"r{a,b}", "'r{a,b}'", "r{a,b}"},
		{"r!x1", "'r!x1'", "r!x1"},
		{"-odd", "./-odd", "./-odd"},
		{"nl\ndir\x1b[2J\ttab", `$'nl\ndir\x1b[2J\ttab'`, "nl\ndir\x1b[2J\ttab"},
		{"abc\u202egnp", `$'abc\xe2\x80\xaegnp'`, "abc\u202egnp"},
	} {
		code, out, errs := run(t, "search", "--system", "clitest-poison", "--out="+c.out, "--seed", "1", "--walk-depth", "200", "--no-minimize", "--no-critical")
		if code != ExitViolation {
			t.Fatalf("--out %q: exit %d\n%s%s", c.out, code, out, errs)
		}
		if p := plainProblems("--out "+strconv.Quote(c.out), out); len(p) > 0 {
			t.Errorf("%s", strings.Join(p, "\n"))
		}
		var debug, replay string
		for _, l := range strings.Split(out, "\n") {
			if s, ok := strings.CutPrefix(l, "debug:  "); ok {
				debug = s
			}
			if s, ok := strings.CutPrefix(l, "replay: "); ok {
				replay = s
			}
		}
		wantDebug := "mdb " + c.shown
		trace, log := c.shown+"/error.trace", c.shown+"/error.log"
		if strings.HasSuffix(c.shown, "'") {
			trace, log = strings.TrimSuffix(c.shown, "'")+"/error.trace'", strings.TrimSuffix(c.shown, "'")+"/error.log'"
		}
		wantReplay := "macemc replay --trace " + trace + " --log " + log
		if debug != wantDebug || replay != wantReplay {
			t.Errorf("--out %q: printed\ndebug:  %s\nreplay: %s\nwant\ndebug:  %s\nreplay: %s", c.out, debug, replay, wantDebug, wantReplay)
		}
		if bash == "" {
			continue
		}
		// The words the shell hands each command, one per line (a NUL
		// ends each).
		script := "mdb() { printf '%s\\0' mdb \"$@\"; }; macemc() { printf '%s\\0' macemc \"$@\"; }; " + debug + "; " + replay
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
		cmd.Env = []string{"LC_ALL=C", "HOME=/nonexistent"}
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v", script, err)
		}
		want := strings.Join([]string{"mdb", c.arg, "macemc", "replay", "--trace", c.arg + "/error.trace", "--log", c.arg + "/error.log"}, "\x00") + "\x00"
		if string(got) != want {
			t.Errorf("--out %q: the shell runs %q, want %q", c.out, got, want)
		}
		for _, f := range []string{c.arg + "/error.trace", c.arg + "/error.log"} {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("--out %q: the command names %q: %v", c.out, f, err)
			}
		}
	}
}
