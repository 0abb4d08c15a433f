package main

import (
	"bytes"
	"context"
	"fmt"
	"go/scanner"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// planted are issue 14's planted bugs: file, text, replacement, and the
// packages whose tests must catch it.
var planted = []struct{ name, file, old, new, pkgs string }{
	{"hash drops the driver position", "sim/engine/canon.go", "\t\th = mix(h, uint64(nd.appNext))\n", "", "./sim/engine"},
	{"hash drops the break and drop budgets", "sim/engine/canon.go", "uint64(s.w.resets)<<42|uint64(s.w.breaks)<<21|uint64(s.w.drops)", "uint64(s.w.resets)<<42", "./sim/engine"},
	{"hash drops connection errors", "sim/engine/canon.go", "h = mix(h, uint64(p)+1)", "_ = p", "./sim/engine"},
	{"critical: 2*curr >= d_max", "critical/find.go", "if 2*curr > f.c.WalkDepth {", "if 2*curr >= f.c.WalkDepth {", "./critical"},
	{"pruning without the round check", "search/explore/explore.go", "seen>>32 == uint64(p.Round) && ", "", "./search/explore"},
	{"pruning at a strictly lower depth", "search/explore/explore.go", "seen&0xffffffff <= cost", "seen&0xffffffff < cost", "./search/explore"},
	{"pruning at any depth", "search/explore/explore.go", "seen&0xffffffff <= cost", "true", "./search/explore"},
	{"no on-path cycle check", "search/explore/explore.go", "if slices.Contains(r.onPath[:k], h) {", "if false && slices.Contains(r.onPath[:k], h) {", "./search/explore"},
	{"lasso: lastEnabled > i", "walks/lasso/lasso.go", "int(d.lastEnabled[v]) >= i", "int(d.lastEnabled[v]) > i", "./walks/lasso"},
	{"mdb diff: d <= in", "mdb/diff.go", "d := indent(l); d < in", "d := indent(l); d <= in", "./mdb"},
	{"mdb diff: no enclosing lines", "mdb/diff.go", "range enclosing(ops, show, i) {", "range enclosing(ops, show, i)[:0] {", "./mdb"},
	{"servicetest: CheckLive a no-op", "services/servicetest/walk.go", "func (rs Results) CheckLive(t testing.TB, what string) {\n\tt.Helper()\n", "func (rs Results) CheckLive(t testing.TB, what string) {\n\tt.Helper()\n\tif true {\n\t\treturn\n\t}\n", "./services/servicetest"},
}

var swaps = map[token.Token]string{
	token.EQL: "!=", token.NEQ: "==", token.LSS: "<=", token.LEQ: "<", token.GTR: ">=", token.GEQ: ">",
	token.LAND: "||", token.LOR: "&&", token.ADD: "-", token.SUB: "+", token.INC: "--", token.DEC: "++",
}

type site struct {
	file string
	off  int
	tok  token.Token
	line int
}

func main() {
	doPlanted := pflag.Bool("planted", false, "run the planted bugs only")
	sample := pflag.Int("sample", 20, "sampled mutants per package")
	seed := pflag.Uint64("seed", 1, "seed of the sample")
	timeout := pflag.Duration("timeout", 3*time.Minute, "time limit of one test run (a mutant that hangs the tests is killed)")
	pflag.Parse()
	root, err := os.Getwd()
	check(err)
	work, err := os.MkdirTemp("", "macemc-mutate-")
	check(err)
	defer os.RemoveAll(work)
	// A copy of the committed tree: the worktree is never touched.
	archive := exec.Command("sh", "-c", fmt.Sprintf("git -C %q archive HEAD | tar -x -C %q", root, work))
	archive.Stderr = os.Stderr
	check(archive.Run())

	if *doPlanted {
		killed := 0
		for _, p := range planted {
			k, out := mutant(work, p.file, p.old, p.new, p.pkgs, *timeout)
			fmt.Printf("%-40s %s\n", p.name, verdict(k))
			if k == 1 {
				killed++
			} else if k == 0 {
				fmt.Println(out)
			}
		}
		fmt.Printf("planted: %d of %d killed\n", killed, len(planted))
		if killed < len(planted) {
			// A survivor, or a planted bug that no longer applies (its
			// code moved: update the list).
			os.Exit(1)
		}
		return
	}
	pkgs := pflag.Args()
	if len(pkgs) == 0 {
		pkgs = []string{"sim", "sim/engine", "search", "search/explore", "critical", "walks", "walks/lasso", "mdb"}
	}
	tw := 0
	tk := 0
	for _, pkg := range pkgs {
		sites := operatorSites(filepath.Join(work, pkg))
		r := rand.New(rand.NewPCG(*seed, uint64(len(pkg))))
		r.Shuffle(len(sites), func(i, j int) { sites[i], sites[j] = sites[j], sites[i] })
		killed, counted := 0, 0
		var survivors []string
		for _, s := range sites {
			if counted == *sample {
				break
			}
			k, _ := mutantAt(work, s, "./"+pkg, *timeout)
			if k < 0 {
				continue // does not compile
			}
			counted++
			if k == 1 {
				killed++
			} else {
				rel, _ := filepath.Rel(work, s.file)
				survivors = append(survivors, fmt.Sprintf("%s:%d %s -> %s", rel, s.line, s.tok, swaps[s.tok]))
			}
		}
		fmt.Printf("%-16s %2d of %2d killed (%.0f%%)\n", pkg, killed, counted, 100*float64(killed)/float64(max(counted, 1)))
		for _, s := range survivors {
			fmt.Printf("    survived: %s\n", s)
		}
		tw += counted
		tk += killed
	}
	fmt.Printf("%-16s %2d of %2d killed (%.0f%%)\n", "all", tk, tw, 100*float64(tk)/float64(max(tw, 1)))
}

func verdict(k int) string {
	switch k {
	case 1:
		return "killed"
	case 0:
		return "SURVIVED"
	}
	return "does not apply (the code moved?)"
}

// operatorSites lists the mutable operators of the package's non-test
// files, in file and offset order.
func operatorSites(dir string) []site {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	sort.Strings(files)
	var out []site
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		check(err)
		fset := token.NewFileSet()
		tf := fset.AddFile(f, -1, len(src))
		var sc scanner.Scanner
		sc.Init(tf, src, nil, 0)
		for {
			pos, tok, _ := sc.Scan()
			if tok == token.EOF {
				break
			}
			if _, ok := swaps[tok]; ok {
				out = append(out, site{file: f, off: tf.Offset(pos), tok: tok, line: tf.Line(pos)})
			}
		}
	}
	return out
}

// mutantAt applies the operator swap at s, runs the tests and restores.
func mutantAt(work string, s site, pkgs string, timeout time.Duration) (int, string) {
	src, err := os.ReadFile(s.file)
	check(err)
	old := s.tok.String()
	mut := append(append(bytes.Clone(src[:s.off]), swaps[s.tok]...), src[s.off+len(old):]...)
	return run(work, s.file, src, mut, pkgs, timeout)
}

// mutant replaces old by new (exactly one occurrence) in file; -1 when it
// does not occur once.
func mutant(work, file, old, new, pkgs string, timeout time.Duration) (int, string) {
	path := filepath.Join(work, file)
	src, err := os.ReadFile(path)
	check(err)
	if bytes.Count(src, []byte(old)) != 1 {
		return -1, ""
	}
	return run(work, path, src, bytes.Replace(src, []byte(old), []byte(new), 1), pkgs, timeout)
}

// run writes the mutant, runs the package's tests (vet off: a mutant may
// leave unreachable code) and restores the file. 1: the tests failed
// (killed), 0: they passed (survived), -1: the mutant does not build.
func run(work, path string, orig, mut []byte, pkgs string, timeout time.Duration) (int, string) {
	check(os.WriteFile(path, mut, 0o644))
	defer func() { check(os.WriteFile(path, orig, 0o644)) }()
	build := exec.Command("go", "test", "-count=1", "-vet=off", "-run", "^$", pkgs)
	build.Dir = work
	if out, err := build.CombinedOutput(); err != nil {
		return -1, string(out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-vet=off", "-failfast", pkgs)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 1, string(out)
	}
	return 0, string(out)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(2)
	}
}
