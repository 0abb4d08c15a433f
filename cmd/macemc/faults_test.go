package main

// The fault-injection suite: the macemc binary (this test binary, re-run
// as macemc) under signals at random moments of every phase, hostile input
// files, flags at and past their edges, and outputs that cannot be
// written. Every run must end in a valid report (exit 0 or 1) or a clear
// message (exit 2): never a panic, a hang or a lost finding. The short
// version runs in CI; MACEMC_FAULTS=N runs each random part N times
// (scripts/faults.sh), and the figures are logged at the end (go test -v).

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/macemc/macemc/cmd/cli"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim/trace"
)

func TestMain(m *testing.M) {
	if os.Getenv("MACEMC_AS_BINARY") == "1" {
		os.Exit(cli.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// figures are what the suite counts over all its runs.
type figures struct {
	mu                                     sync.Mutex
	runs, panics, hangs, lost, badExits    int
	maxRSSHostile                          int64 // KiB
	maxStop                                time.Duration
	signalRuns, hostileRuns, edgeRuns, out int
}

var fig figures

func (f *figures) add(fn func(*figures)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// reps is how many times each random part runs: 1 in CI, MACEMC_FAULTS in
// the long version.
func reps() int {
	if n, err := strconv.Atoi(os.Getenv("MACEMC_FAULTS")); err == nil && n > 0 {
		return n
	}
	return 1
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
	rss            int64 // peak resident set, KiB
	hung           bool
	signalled      bool
	phaseReached   bool          // the plan's phase was reported (the signal may still come too late)
	stop           time.Duration // from the first signal to the exit
	phasesBefore   []string      // phases the run reported before the first signal
}

// plan says when to signal a run: after the progress line of phase
// (empty: never), after delay, with sig; twice sends a SIGTERM right
// after it.
type plan struct {
	phase string
	delay time.Duration
	sig   syscall.Signal
	twice time.Duration // another signal this long after the first (0: none): SIGTERM, or SIGINT with same
	same  bool
}

var phaseLine = regexp.MustCompile(`^\[\s*[0-9.]+s\] ([a-z]+): `)

// run runs the binary with args in dir (the output goes to dir/out) under
// the signal plan; limit is the hang limit of the whole run, and 10 s
// after the first signal.
func run(t *testing.T, args []string, p plan, limit time.Duration, shell string) result {
	t.Helper()
	var cmd *exec.Cmd
	if shell != "" {
		cmd = exec.Command("sh", append([]string{"-c", shell + `; exec "$0" "$@"`, os.Args[0]}, args...)...)
	} else {
		cmd = exec.Command(os.Args[0], args...)
	}
	cmd.Env = append(os.Environ(), "MACEMC_AS_BINARY=1")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var stderr strings.Builder
	var phases []string
	phaseSeen := make(chan struct{}, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(errPipe)
		sc.Buffer(make([]byte, 1<<16), 1<<24)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			stderr.WriteString(line + "\n")
			if m := phaseLine.FindStringSubmatch(line); m != nil {
				phases = append(phases, m[1])
				if p.phase != "" && m[1] == p.phase {
					select {
					case phaseSeen <- struct{}{}:
					default:
					}
				}
			}
			mu.Unlock()
		}
	}()
	exited := make(chan error, 1)
	go func() {
		<-readDone
		exited <- cmd.Wait()
	}()
	var res result
	var signalled time.Time
	deadline := time.After(limit)
	var afterSignal <-chan time.Time
	var fire <-chan time.Time
	var seen <-chan struct{} = phaseSeen
	if p.phase == "" {
		seen = nil
		if p.sig != 0 {
			fire = time.After(p.delay) // no phase to wait for
		}
	}
	for {
		select {
		case <-seen:
			seen = nil
			res.phaseReached = true
			fire = time.After(p.delay)
		case <-fire:
			fire = nil
			mu.Lock()
			res.phasesBefore = append([]string(nil), phases...)
			mu.Unlock()
			signalled = time.Now()
			res.signalled = true
			_ = cmd.Process.Signal(p.sig)
			if p.twice > 0 {
				// Another signal, of another kind (two of the same kind
				// sent together may arrive as one), or of the same.
				second := syscall.SIGTERM
				if p.same {
					second = p.sig
				}
				time.AfterFunc(p.twice, func() { _ = cmd.Process.Signal(second) })
			}
			afterSignal = time.After(10 * time.Second)
		case <-deadline:
			res.hung = true
			_ = cmd.Process.Kill()
			deadline = nil
		case <-afterSignal:
			res.hung = true
			_ = cmd.Process.Kill()
			afterSignal = nil
		case err := <-exited:
			if res.signalled {
				res.stop = time.Since(signalled)
			}
			var ee *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &ee):
				res.code = ee.ExitCode()
			default:
				t.Fatal(err)
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				res.rss = ru.Maxrss
			}
			mu.Lock()
			res.stderr = stderr.String()
			mu.Unlock()
			res.stdout = stdout.String()
			fig.add(func(f *figures) {
				f.runs++
				if res.hung {
					f.hangs++
				}
				if panicked(res) {
					f.panics++
				}
				if res.stop > f.maxStop {
					f.maxStop = res.stop
				}
			})
			if res.hung {
				t.Errorf("%v: hung (killed)\n%s", args, res.stderr)
			}
			if panicked(res) {
				t.Errorf("%v: panicked:\n%s", args, res.stderr)
			}
			return res
		}
	}
}

func panicked(r result) bool {
	return strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "fatal error:") || strings.Contains(r.stderr, "goroutine ") ||
		r.code == 2 && strings.Contains(r.stdout+r.stderr, "internal error")
}

// checkReport checks a search's results in out: exit 1 with a valid
// report of a finding whose error trace replays it, or exit 0 with a valid
// report of none. found says a violation had been found before the signal
// (the run had reached a later phase): exit 0 then is a lost finding.
func checkReport(t *testing.T, what string, r result, out string, found bool) *search.Report {
	t.Helper()
	if r.hung {
		return nil
	}
	if r.code != 0 && r.code != 1 {
		fig.add(func(f *figures) { f.badExits++ })
		t.Errorf("%s: exit %d\n%s%s", what, r.code, r.stdout, r.stderr)
		return nil
	}
	rep, err := search.ReadReport(filepath.Join(out, "report.json"))
	if err != nil {
		t.Errorf("%s: exit %d without a valid report: %v\n%s", what, r.code, err, r.stderr)
		return nil
	}
	if r.code == 0 {
		if rep.First() != nil {
			t.Errorf("%s: exit 0 with a finding", what)
		}
		if found {
			fig.add(func(f *figures) { f.lost++ })
			t.Errorf("%s: a violation was found before the signal (phases %v) but the run exited 0", what, r.phasesBefore)
		}
		return rep
	}
	if rep.First() == nil {
		t.Errorf("%s: exit 1 without a finding", what)
		return rep
	}
	tr, err := trace.Read(filepath.Join(out, "error.trace"))
	if err != nil {
		fig.add(func(f *figures) { f.lost++ })
		t.Errorf("%s: the finding's trace is lost: %v", what, err)
		return rep
	}
	if rp, err := search.Replay(tr, -1, nil); err != nil || !rp.Reproduced {
		fig.add(func(f *figures) { f.lost++ })
		t.Errorf("%s: error.trace does not reproduce the finding: %v %+v", what, err, rp)
	}
	if c := rep.First().Critical; c != nil && c.Interrupted && c.Recovered >= 0 && c.Dead >= 0 && c.Recovered >= c.Dead {
		t.Errorf("%s: interrupted critical search with bounds %d..%d", what, c.Recovered, c.Dead)
	}
	return rep
}

// phasesOf returns the phases a run's progress lines name.
func phasesOf(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if m := phaseLine.FindStringSubmatch(line); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// foundBefore reports whether the phases seen before the signal show that
// a violation had been found (the run was past the search).
func foundBefore(r result) bool {
	for _, ph := range r.phasesBefore {
		switch ph {
		case "check", "critical", "lasso", "files":
			return true
		}
	}
	return false
}

// TestSignals sends SIGINT or SIGTERM at a random moment of each phase
// (prefix walk, search, determinism check, critical transition, lasso,
// file writing), and a second one: the run must stop within 10 s with a
// valid report that keeps what was found.
func TestSignals(t *testing.T) {
	scenarios := []struct {
		name     string
		args     []string
		phase    string
		maxDelay time.Duration
	}{
		{"search", []string{"search", "--system", "transport", "--param", "fixed=true", "--time", "60s"}, "search", 1500 * time.Millisecond},
		{"prefix", []string{"search", "--system", "chord", "--prefix-steps", "3000", "--walk-depth", "20000", "--max-paths", "50"}, "prefix", 300 * time.Millisecond},
		{"check", []string{"search", "--system", "transport", "--seed", "7"}, "check", 400 * time.Millisecond},
		{"critical", []string{"search", "--system", "transport", "--seed", "7", "--walks", "2000"}, "critical", 3 * time.Second},
		{"lasso", []string{"search", "--system", "philosophers", "--param", "n=2", "--walk-depth", "60", "--walks", "3000"}, "lasso", 20 * time.Millisecond},
		{"files", []string{"search", "--system", "transport", "--seed", "7"}, "files", 150 * time.Millisecond},
	}
	r := rand.New(rand.NewPCG(14, 0))
	for i := range reps() {
		for j, sc := range scenarios {
			sig := syscall.SIGINT
			if (i+j)%2 == 1 {
				sig = syscall.SIGTERM
			}
			delay := time.Duration(r.Int64N(int64(sc.maxDelay)))
			t.Run(fmt.Sprintf("%s/%d", sc.name, i), func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "out")
				args := append(append([]string{}, sc.args...), "--progress", "lines", "--out", out)
				res := run(t, args, plan{phase: sc.phase, delay: delay, sig: sig}, 5*time.Minute, "")
				fig.add(func(f *figures) { f.signalRuns++ })
				what := fmt.Sprintf("%s %v after %v", sc.name, sig, delay)
				t.Logf("%s: exit %d, stopped %v after the signal", what, res.code, res.stop.Round(time.Millisecond))
				switch {
				case !res.phaseReached:
					t.Errorf("%s: the run never reached phase %s:\n%s", what, sc.phase, res.stderr)
					return
				case !res.signalled:
					// The run ended before the delay was up: its report
					// must be complete.
					res.phasesBefore = phasesOf(res.stderr)
				}
				checkReport(t, what, res, out, foundBefore(res))
			})
		}
		// A second signal ends the run at once, without a report.
		t.Run(fmt.Sprintf("twice/%d", i), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"search", "--system", "transport", "--seed", "7", "--walks", "2000", "--progress", "lines", "--out", out}
			res := run(t, args, plan{phase: "critical", delay: 200 * time.Millisecond, sig: syscall.SIGINT, twice: time.Nanosecond}, 5*time.Minute, "")
			fig.add(func(f *figures) { f.signalRuns++ })
			if res.code != cli.ExitUsage || !strings.Contains(res.stderr, "interrupted twice") {
				t.Errorf("twice: exit %d\n%s", res.code, res.stderr)
			}
		})
		// Two signals together, as GNU timeout sends them (to the process,
		// then to its group), are one interruption: the report is kept.
		t.Run(fmt.Sprintf("together/%d", i), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"search", "--system", "transport", "--seed", "7", "--walks", "2000", "--progress", "lines", "--out", out}
			res := run(t, args, plan{phase: "critical", delay: 200 * time.Millisecond, sig: syscall.SIGINT, twice: time.Millisecond, same: true}, 5*time.Minute, "")
			fig.add(func(f *figures) { f.signalRuns++ })
			if strings.Contains(res.stderr, "interrupted twice") {
				t.Errorf("together: exit %d\n%s", res.code, res.stderr)
			}
			checkReport(t, "two signals together", res, out, foundBefore(res))
		})
	}
}

// realTrace runs a search and returns its error trace's path.
func realTrace(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	res := run(t, []string{"search", "--system", "transport", "--seed", "7", "--walk-depth", "2000", "--out", out}, plan{}, 5*time.Minute, "")
	if res.code != 1 {
		t.Fatalf("setup search: exit %d\n%s", res.code, res.stderr)
	}
	return filepath.Join(out, "error.trace")
}

func frame(body []byte) []byte {
	var b bytes.Buffer
	b.WriteString("MACEMCTR")
	b.WriteByte(1)
	b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(body))))
	b.Write(body)
	b.Write(binary.LittleEndian.AppendUint64(nil, xxhash.Sum64(body)))
	return b.Bytes()
}

// hostileFiles writes hostile trace files into dir: truncations, bit flips,
// structure-aware mutants with valid checksums, hostile length prefixes,
// and special files. n scales the random ones.
func hostileFiles(t *testing.T, dir, real string, n int, r *rand.Rand) []string {
	t.Helper()
	data, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	write := func(name string, b []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for i := range n {
		write(fmt.Sprintf("trunc%d.trace", i), data[:r.IntN(len(data))])
		flip := bytes.Clone(data)
		flip[r.IntN(len(flip))] ^= byte(1 << r.IntN(8))
		write(fmt.Sprintf("flip%d.trace", i), flip)
		// Structure-aware: a field changed, the checksum right.
		m := *tr
		m.Choices = append([]int32(nil), tr.Choices...)
		switch i % 8 {
		case 0:
			m.Choices[r.IntN(len(m.Choices))] = r.Int32N(50) - 5
		case 1:
			m.Steps = r.IntN(1 << 30)
		case 2:
			m.CycleStart, m.CycleLen = r.IntN(m.Steps+10), r.IntN(m.Steps+10)
		case 3:
			m.Critical = r.IntN(m.Steps*2) - 1
		case 4:
			m.Params = map[string]string{"nodes": []string{"100000", "-1", "x", "64", "0"}[r.IntN(5)]}
		case 5:
			m.System = []string{"nope", "", "chord", "mdbtest-ping"}[r.IntN(4)]
		case 6:
			m.Choices = m.Choices[:r.IntN(len(m.Choices))]
			m.Steps = min(m.Steps, len(m.Choices))
		case 7:
			m.FailuresUntil, m.Properties = r.IntN(100000), []string{"Nope"}
		}
		if i%3 == 0 {
			// critical extends a minimized path with a walk first.
			m.Kind = trace.KindMinimized
		}
		if b, err := m.Marshal(); err == nil {
			write(fmt.Sprintf("field%d.trace", i), b)
		}
	}
	u32 := func(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
	write("choices-2-32.trace", frame(append([]byte("\x83\xa6system\xa9transport\xa5steps\x00\xa7choices\xdd"), u32(1<<32-1)...)))
	write("map-2-32.trace", frame(append([]byte("\xdf"), u32(1<<32-1)...)))
	write("nested.trace", frame(append([]byte("\x82\xa6system\xa9transport\xa6future"), bytes.Repeat([]byte{0x91}, 1<<20)...)))
	write("length-2-64.trace", append([]byte("MACEMCTR\x01\xff\xff\xff\xff\xff\xff\xff\xff"), make([]byte, 64)...))
	write("empty.trace", nil)
	fifo := filepath.Join(dir, "fifo.trace")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, fifo, dir, os.DevNull, "/dev/zero")
	return files
}

// TestHostileFiles feeds hostile trace files to replay, critical, mdb and
// search --prefix: each must end with exit 2 and a message (or, for a
// mutant that happens to be valid, a normal run), never a panic, a hang or
// an allocation beyond what the file holds.
func TestHostileFiles(t *testing.T) {
	real := realTrace(t)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(14, 1))
	files := hostileFiles(t, dir, real, 8*reps(), r)
	for _, f := range files {
		for _, cmd := range [][]string{
			{"replay", "--trace", f, "--log", filepath.Join(t.TempDir(), "x.log")},
			{"critical", "--trace", f, "--walks", "2", "--out", t.TempDir()},
			{"mdb", f, "-c", "n 3; j end; j crit; j cycle; g cycle; info"},
			{"search", "--system", "transport", "--prefix", f, "--max-paths", "3", "--walk-depth", "3000", "--out", t.TempDir()},
		} {
			res := run(t, cmd, plan{}, 2*time.Minute, "")
			fig.add(func(fg *figures) {
				fg.hostileRuns++
				fg.maxRSSHostile = max(fg.maxRSSHostile, res.rss)
			})
			switch {
			case res.hung:
			case res.code == 2 && strings.TrimSpace(res.stderr) == "":
				t.Errorf("%v: exit 2 without a message", cmd)
			case res.code > 2 || res.code < 0:
				fig.add(func(fg *figures) { fg.badExits++ })
				t.Errorf("%v: exit %d\n%s", cmd, res.code, res.stderr)
			}
		}
	}
}

// without returns args, pairs of a flag and its value, less the flags
// that over gives (a flag given twice with two values is refused).
func without(args, over []string) []string {
	var out []string
	for i := 0; i+1 < len(args); i += 2 {
		if !slices.Contains(over, args[i]) {
			out = append(out, args[i], args[i+1])
		}
	}
	return out
}

// TestEdgeFlags runs every numeric search flag just inside and just
// outside its range, and other bad values: outside is exit 2 naming the
// allowed range; inside runs (with a small budget) to a valid report.
func TestEdgeFlags(t *testing.T) {
	// No minimization: it is not what the flags bound (with nodes=64 it
	// alone took 35 s of CPU).
	small := []string{"--system", "transport", "--max-paths", "3", "--walk-depth", "500", "--walks", "2"} // flag and value pairs
	bad := [][]string{
		{"--depth", "-1"}, {"--depth", "1048576"}, {"--depth-step", "0"}, {"--depth-step", "1048576"},
		{"--walk-depth", "0"}, {"--walk-depth", "5"}, {"--walk-depth", "10000001"}, {"--walks", "0"}, {"--walks", "100001"},
		{"--max-violations", "0"}, {"--max-violations", "10001"}, {"--workers", "-1"}, {"--workers", "1025"},
		{"--max-states", "0"}, {"--max-states", "1073741825"}, {"--max-states", "9223372036854775807"},
		{"--handler-timeout", "1ns"}, {"--handler-timeout", "-1s"}, {"--handler-timeout", "2h"},
		{"--lasso-replays", "0"}, {"--temperature", "-1"}, {"--max-paths", "-1"}, {"--time", "-5s"},
		{"--prefix-steps", "-3"}, {"--param", "nodes=100000"}, {"--param", "nodes=1"}, {"--param", "nodes=x"},
		{"--param", "bogus=1"}, {"--max-memory", "0"}, {"--max-memory", "lots"}, {"--strategy", "nope"},
		{"--walk-depth", "10000000", "--workers", "1024"}, {"--progress", "loud"}, {"--seed", "-1"},
	}
	for _, b := range bad {
		args := append(append([]string{"search", "--no-minimize"}, without(small, b)...), b...)
		res := run(t, args, plan{}, time.Minute, "")
		fig.add(func(f *figures) { f.edgeRuns++ })
		if res.code != 2 || !strings.Contains(res.stderr, "allowed") && !strings.Contains(res.stderr, "invalid") &&
			!strings.Contains(res.stderr, "unknown") && !strings.Contains(res.stderr, "would need") && !strings.Contains(res.stderr, "not a size") && !strings.Contains(res.stderr, "not an integer") {
			t.Errorf("%v: exit %d\n%s", b, res.code, res.stderr)
		}
	}
	good := [][]string{
		{"--depth", "1"}, {"--depth", "1048575"}, {"--depth-step", "1"}, {"--walk-depth", "10"}, {"--depth", "2", "--walk-depth", "4"}, {"--walks", "1"},
		{"--max-violations", "10000"}, {"--workers", "1"}, {"--workers", "1024"}, {"--max-states", "1"},
		{"--max-states", "1073741824", "--max-memory", "none"}, {"--handler-timeout", "1ms"}, {"--handler-timeout", "1h"},
		{"--lasso", "--lasso-replays", "1"}, {"--temperature", "500"}, {"--prefix-steps", "1"}, {"--time", "1ns"},
		{"--param", "nodes=64"}, {"--param", "nodes=2"}, {"--max-memory", "64MiB"},
	}
	for _, g := range good {
		out := filepath.Join(t.TempDir(), "out")
		args := append(append(append([]string{"search", "--no-minimize"}, without(small, g)...), g...), "--out", out)
		res := run(t, args, plan{}, 2*time.Minute, "")
		fig.add(func(f *figures) { f.edgeRuns++ })
		if res.code == 2 && strings.Contains(res.stderr, "allowed") {
			t.Errorf("%v: refused: %s", g, res.stderr)
			continue
		}
		if res.code == 2 {
			// --prefix-steps 1 on transport: a steady state may not exist;
			// --max-memory 64MiB: the run does not fit. A message, not a crash.
			if strings.TrimSpace(res.stderr) == "" {
				t.Errorf("%v: exit 2 without a message", g)
			}
			continue
		}
		checkReport(t, fmt.Sprint(g), res, out, false)
	}
	real := realTrace(t)
	for _, c := range [][]string{
		{"replay", "--steps", "-2"}, {"replay", "--steps", "2001"}, {"critical", "--walks", "0"}, {"critical", "--workers", "2000"},
		{"critical", "--walk-depth", "-1"},
	} {
		res := run(t, append(c, "--trace", real), plan{}, time.Minute, "")
		fig.add(func(f *figures) { f.edgeRuns++ })
		if res.code != 2 || !strings.Contains(res.stderr, "allowed") {
			t.Errorf("%v: exit %d %s", c, res.code, res.stderr)
		}
	}
	// Replaying part of a trace does not claim to reproduce it; all of it
	// does.
	for steps, want := range map[string]int{"0": 0, "2000": 1, "-1": 1} {
		res := run(t, []string{"replay", "--trace", real, "--steps", steps, "--json"}, plan{}, time.Minute, "")
		fig.add(func(f *figures) { f.edgeRuns++ })
		if res.code != want || strings.Contains(res.stdout, `"reproduced": true`) != (want == 1) {
			t.Errorf("replay --steps %s: exit %d\n%s", steps, res.code, res.stdout)
		}
	}
	res := run(t, []string{"mdb", "--snapshot-every", "0", t.TempDir()}, plan{}, time.Minute, "")
	if res.code != 2 || !strings.Contains(res.stderr, "--snapshot-every 0: allowed a positive number of steps") {
		t.Errorf("mdb --snapshot-every 0: exit %d %s", res.code, res.stderr)
	}
}

// TestOutputFaults: an output directory that cannot be made, result paths
// that are not regular files and a disk that fills up (a file size limit)
// lose nothing: refused before the search, or the finding told on stderr
// with the command that finds it again, which does.
func TestOutputFaults(t *testing.T) {
	base := []string{"search", "--system", "transport", "--seed", "7", "--walk-depth", "3000"}
	res := run(t, append(base, "--out", "/proc/macemc-out"), plan{}, time.Minute, "")
	if res.code != 2 || !strings.Contains(res.stderr, "cannot write") {
		t.Errorf("/proc: exit %d %s", res.code, res.stderr)
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(out, "report.json")); err != nil {
		t.Fatal(err)
	}
	res = run(t, append(base, "--out", out), plan{}, time.Minute, "")
	if b, _ := os.ReadFile(target); res.code != 2 || !strings.Contains(res.stderr, "symbolic link") || string(b) != "keep" {
		t.Errorf("symlinked report.json: exit %d %s", res.code, res.stderr)
	}
	real := realTrace(t)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{os.DevNull, fifo} {
		res = run(t, []string{"replay", "--trace", real, "--log", p}, plan{}, time.Minute, "")
		if fi, err := os.Stat(p); res.code != 2 || !strings.Contains(res.stderr, "not a regular file") || err != nil || fi.Mode().IsRegular() {
			t.Errorf("replay --log %s: exit %d %s", p, res.code, res.stderr)
		}
	}
	// A file size limit of 16 KiB: the probe and report.json fit, the
	// error trace (24 KB) does not.
	out = filepath.Join(t.TempDir(), "out")
	res = run(t, append(base, "--out", out), plan{}, 5*time.Minute, "ulimit -f 16")
	fig.add(func(f *figures) { f.out++ })
	m := regexp.MustCompile(`(?m)^  (\S+ search .*) --max-paths (\d+) --out DIR$`).FindStringSubmatch(res.stderr)
	if res.code != 1 || !strings.Contains(res.stderr, "FOUND liveness") || m == nil {
		fig.add(func(f *figures) { f.lost++ })
		t.Fatalf("full disk: exit %d\n%s", res.code, res.stderr)
	}
	// A limit the traces fit and the 20,000-step logs do not: the run
	// says which log is missing and how to write it, once (a logger
	// printed a line on stderr for each of its 12,000 entries).
	logless := filepath.Join(t.TempDir(), "out")
	res = run(t, []string{"search", "--system", "transport", "--seed", "3", "--no-minimize", "--out", logless}, plan{}, 5*time.Minute, "ulimit -f 1000")
	if res.code != 1 || strings.Contains(res.stderr, "zerolog") || !strings.Contains(res.stdout, "warning: error.log was not written") {
		t.Errorf("logs past the file size limit: exit %d\n%s\n%.2000s", res.code, res.stdout, res.stderr)
	}
	again := filepath.Join(t.TempDir(), "again")
	args := append(strings.Fields(m[1])[1:], "--max-paths", m[2], "--out", again)
	res = run(t, args, plan{}, 5*time.Minute, "")
	rep := checkReport(t, "the command that finds it again", res, again, true)
	if want, _ := strconv.Atoi(m[2]); rep == nil || rep.First() == nil || rep.First().Path != int64(want-1) {
		t.Errorf("the command that finds it again (--max-paths %s) found %+v", m[2], rep)
	}
}

// TestReplayInterrupted: Ctrl-C during replay --log writes no log (it
// left a hidden temporary file of the log so far, and exited 130); during
// a replay to standard output it says the log printed ends there.
func TestReplayInterrupted(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	res := run(t, []string{"search", "--system", "transport", "--seed", "3", "--walk-depth", "200000", "--no-critical", "--no-minimize", "--out", out}, plan{}, 5*time.Minute, "")
	if res.code != 1 {
		t.Fatalf("setup search: exit %d\n%s", res.code, res.stderr)
	}
	log := filepath.Join(out, "again.log")
	res = run(t, []string{"replay", "--trace", filepath.Join(out, "error.trace"), "--log", log}, plan{sig: syscall.SIGINT, delay: 300 * time.Millisecond}, 5*time.Minute, "")
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.Contains(e.Name(), "again") || strings.Contains(e.Name(), ".tmp") {
			t.Errorf("left in the directory: %s", e.Name())
		}
	}
	if res.code != 2 || !strings.Contains(res.stderr, "no log was written") {
		t.Errorf("interrupted replay: exit %d\n%s", res.code, res.stderr)
	}
	// Without --log the log goes to standard output, and what was
	// printed stays: the message says it ends there.
	res = run(t, []string{"replay", "--trace", filepath.Join(out, "error.trace")}, plan{sig: syscall.SIGINT, delay: 300 * time.Millisecond}, 5*time.Minute, "")
	if res.code != 2 || !strings.Contains(res.stderr, "interrupted: the replay stopped; the log above ends where it stopped") || strings.Contains(res.stderr, "no log") {
		t.Errorf("interrupted replay to standard output: exit %d\n%s", res.code, res.stderr)
	}
}

// TestZFigures logs the suite's figures (it runs last: tests run in
// source order).
func TestZFigures(t *testing.T) {
	f := &fig
	t.Logf("fault-injection figures: %d runs (%d signal, %d hostile-file, %d edge-flag, %d output), %d panics, %d hangs, %d lost findings, %d bad exits; "+
		"peak RSS on hostile inputs %d KiB; longest stop after a signal %v",
		f.runs, f.signalRuns, f.hostileRuns, f.edgeRuns, f.out, f.panics, f.hangs, f.lost, f.badExits, f.maxRSSHostile, f.maxStop.Round(time.Millisecond))
	if f.maxRSSHostile > 1<<20 {
		t.Errorf("a hostile input made a run hold %d KiB", f.maxRSSHostile)
	}
}
