package search_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/services/register"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/simtest"
	"github.com/macemc/macemc/sim/trace"
)

// boxed is a result type no client of the register records.
type boxed struct{ V any }

// withApply returns the correct register (ABD) named name, checked with
// its model's Apply replaced by apply(the model's own Apply, its initial
// state): a user's model with a mistake.
func withApply(name string, apply func(orig func(state, op any) (any, any), init any) func(state, op any) (any, any)) *sim.System {
	return &sim.System{
		Name:   name,
		Params: register.Params,
		Build: func(p sim.Params) (*sim.Config, error) {
			cfg, err := register.Build(p)
			if err != nil {
				return nil, err
			}
			m := *cfg.Model
			m.Apply = apply(m.Apply, m.Init())
			cfg.Model = &m
			return cfg, nil
		},
	}
}

// wrongModel checks the register with a model whose results have another
// type than the clients' responses, as when a user's model returns int64
// where the client records int.
var wrongModel = withApply("register-wrongmodel", func(orig func(state, op any) (any, any), _ any) func(state, op any) (any, any) {
	return func(state, op any) (any, any) {
		next, res := orig(state, op)
		return next, boxed{res}
	}
})

// A linearizability violation that the model's result types explain says
// so: the finding's history carries the mismatch, which names both types.
// With the right model the same search finds nothing.
func TestLinearizabilityViolationFromAWrongModelHasAHint(t *testing.T) {
	o := search.Options{Seed: 1, Params: map[string]string{"variant": "correct"}, MaxPaths: 2000, NoCritical: true}
	rep, err := search.Run(context.Background(), wrongModel, o)
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil || f.Kind != search.KindLinearizability || f.History == nil {
		t.Fatalf("want a linearizability finding, got %+v", f)
	}
	tm := f.History.TypeMismatch
	if tm == nil || tm.Model != reflect.TypeFor[boxed]() || tm.Client == reflect.TypeFor[boxed]() {
		t.Fatalf("want a type mismatch of boxed against the clients' type, got %v", tm)
	}
	sys, err := sim.Lookup(register.SystemName)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := search.Run(context.Background(), sys, o); err != nil || rep.First() != nil {
		t.Fatalf("the right model: %v, %v", err, rep.First())
	}
}

// A system the library user built and did not register (sim.Register)
// gets its files written like a registered one's (the traces replay the
// System itself), and a warning that the replay and debug commands need a
// binary that registers it.
func TestUnregisteredSystemWritesItsFiles(t *testing.T) {
	out := t.TempDir()
	rep, err := search.Run(context.Background(), wrongModel, search.Options{Seed: 1, Params: map[string]string{"variant": "correct"}, MaxPaths: 2000, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range []search.FileRole{search.FileErrorTrace, search.FileErrorLog, search.FileReport, search.FileReportHTML} {
		if rep.Files[role] == "" {
			t.Errorf("no %s: %v", role, rep.Files)
		}
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "system register-wrongmodel is not registered") {
		t.Errorf("warnings: %q", rep.Warnings)
	}
}

// A system searched under the name of another, registered system gets a
// warning that the replay and debug commands would run the registered one
// (they replayed it, and reported "not reproduced").
func TestSystemUnderARegisteredNameIsWarnedOf(t *testing.T) {
	clash := *wrongModel
	clash.Name = register.SystemName
	rep, err := search.Run(context.Background(), &clash, search.Options{Seed: 1, Params: map[string]string{"variant": "correct"}, MaxPaths: 2000, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First() == nil || len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0], "the system searched is not the one registered as register (sim.Register)") {
		t.Errorf("finding %v, warnings: %q", rep.First(), rep.Warnings)
	}
}

// panickyModel checks the register with a model whose Apply panics once
// the register holds a value (a user's model with a bug).
var panickyModel = withApply("register-panickymodel", func(orig func(state, op any) (any, any), init any) func(state, op any) (any, any) {
	return func(state, op any) (any, any) {
		if !reflect.DeepEqual(state, init) {
			panic("the model's bug")
		}
		return orig(state, op)
	}
})

func init() { sim.Register(panickyModel) } // for its traces' replays

// A model that panics on a history is a finding, not a history counted
// unknown under "nothing found": the report names the panic and where it
// happened, keeps the history, and the trace replays to the same panic;
// with any number of workers.
func TestModelPanicIsAFinding(t *testing.T) {
	var reports []string
	for _, workers := range []int{1, 2} {
		out := t.TempDir()
		o := search.Options{Seed: 1, Params: map[string]string{"variant": "correct"}, MaxPaths: 2000, Workers: workers, Out: out}
		rep, err := search.Run(context.Background(), panickyModel, o)
		if err != nil {
			t.Fatal(err)
		}
		f := rep.First()
		var mp *lin.ModelPanicError
		if f == nil || f.Kind != search.KindLinearizability || !errors.As(f.Err, &mp) || f.History == nil || len(f.History.Events) == 0 {
			t.Fatalf("%d workers: want a finding of the model's panic with its history, got %+v", workers, f)
		}
		if !strings.Contains(mp.Site, "search_test.init.func") || mp.Value == nil {
			t.Errorf("the panic's site %q, value %v", mp.Site, mp.Value)
		}
		if rep.Lin == nil || rep.Lin.ModelFailed == 0 {
			t.Errorf("linearizability statistics %+v", rep.Lin)
		}
		var b strings.Builder
		rep.WriteSummary(&b)
		if !strings.Contains(b.String(), "LINEARIZABILITY NOT CHECKED: the model failed") {
			t.Errorf("report:\n%s", b.String())
		}
		reports = append(reports, b.String())
		tr, err := trace.Read(rep.Files[search.FileErrorTrace])
		if err != nil {
			t.Fatal(err)
		}
		r, err := search.Replay(tr, -1, nil)
		if err != nil || !r.Reproduced || !errors.Is(r.Err, lin.ErrModel) {
			t.Errorf("replay: %v, reproduced %v, %v", err, r != nil && r.Reproduced, r)
		}
	}
	if reports[0] != reports[1] {
		t.Errorf("the report depends on the workers:\n%s\n---\n%s", reports[0], reports[1])
	}
}

// A system registered in the user's program only gets a warning that the
// replay and debug commands, which name macemc's own binary by default,
// need the user's (macemc replay said "unknown system" with no word
// before); not when Options.Command names the user's binary, nor for the
// example systems, which macemc registers.
func TestRegisteredSystemOfTheUsersOwnIsWarnedOf(t *testing.T) {
	sys, err := sim.Lookup(simtest.Panic)
	if err != nil {
		t.Fatal(err)
	}
	const warn = "the replay and debug commands below name macemc's own commands, which do not know system simtest-panic"
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Out: t.TempDir()})
	if err != nil || rep.First() == nil {
		t.Fatalf("%v, %v", err, rep)
	}
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.HasPrefix(w, warn) }) {
		t.Errorf("warnings: %q", rep.Warnings)
	}
	rep, err = search.Run(context.Background(), sys, search.Options{Seed: 1, Out: t.TempDir(), Command: "mybin"})
	if err != nil || rep.First() == nil || !strings.HasPrefix(rep.Replay, "mybin replay ") {
		t.Fatalf("%v, %v", err, rep)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "macemc's own commands") {
			t.Errorf("warned with Command set: %q", w)
		}
	}
	tr, err := sim.Lookup("transport")
	if err != nil {
		t.Fatal(err)
	}
	rep, err = search.Run(context.Background(), tr, search.Options{Seed: 3, Out: t.TempDir(), NoCritical: true})
	if err != nil || rep.First() == nil {
		t.Fatalf("%v, %v", err, rep)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w, "macemc's own commands") {
			t.Errorf("warned for an example system: %q", w)
		}
	}
}
