package sim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
)

// TestParamRange: Resolve refuses an int parameter outside its Min and
// Max with ErrBadParam naming the range; each end and the default pass;
// Register refuses a default outside the range.
func TestParamRange(t *testing.T) {
	sys := &sim.System{Name: "range-test", Params: []sim.ParamSpec{
		{Name: "nodes", Kind: sim.ParamInt, Default: "3", Min: sim.Bound(2), Max: sim.Bound(28)},
		{Name: "low", Kind: sim.ParamInt, Default: "0", Min: sim.Bound(0)},
		{Name: "free", Kind: sim.ParamInt, Default: "0"},
	}}
	for v, want := range map[string]string{
		"1": "nodes=1: allowed 2 to 28", "29": "nodes=29: allowed 2 to 28", "100000": "nodes=100000: allowed 2 to 28",
		"x": `nodes="x" is not an integer (allowed 2 to 28)`,
	} {
		_, err := sys.Resolve(map[string]string{"nodes": v})
		if !errors.Is(err, sim.ErrBadParam) || !strings.Contains(err.Error(), want) {
			t.Errorf("nodes=%s: %v", v, err)
		}
	}
	for v, want := range map[string]int{"2": 2, "28": 28} {
		if p, err := sys.Resolve(map[string]string{"nodes": v, "free": "-5"}); err != nil || p.Int("nodes") != want {
			t.Errorf("nodes=%s: %v", v, err)
		}
	}
	if _, err := sys.Resolve(map[string]string{"low": "-1"}); !errors.Is(err, sim.ErrBadParam) || !strings.Contains(err.Error(), "allowed at least 0") {
		t.Errorf("low=-1: %v", err)
	}
	if r := sys.Params[2].Range(); r != "" {
		t.Errorf("unbounded range %q", r)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "not in its range 2 to 28") {
			t.Errorf("Register of a default out of range: %v", r)
		}
	}()
	bad := *sys
	bad.Name = "range-test-bad"
	bad.Build = func(sim.Params) (*sim.Config, error) { return nil, nil }
	bad.Params = []sim.ParamSpec{{Name: "nodes", Kind: sim.ParamInt, Default: "1", Min: sim.Bound(2), Max: sim.Bound(28)}}
	sim.Register(&bad)
}

// TestParamsText: Text shows parameters as Canonical does when their
// names and values are plain, and quotes a value (or name) that holds a
// control character, a newline, a bidi control or bytes that are not
// UTF-8, and a value with a comma or a leading double quote, which "k=v"
// pairs could not tell apart; a Build error's text is quoted likewise,
// and still wraps the system's error.
func TestParamsText(t *testing.T) {
	for _, c := range []struct {
		p    sim.Params
		want string
	}{
		{sim.Params{}, ""},
		{sim.Params{"nodes": "3", "variant": "buggy", "name": "a b=c"}, "name=a b=c,nodes=3,variant=buggy"},
		{sim.Params{"label": "x\x1b[2J\nreplay: evil", "n": "1"}, `label="x\x1b[2J\nreplay: evil",n=1`},
		{sim.Params{"label": "a,n=2", "n": "1"}, `label="a,n=2",n=1`},
		{sim.Params{"label": `"q"`}, `label="\"q\""`},
		{sim.Params{"label": "abc\u202egnp", "bad": "\xff"}, `bad="\xff",label="abc\u202egnp"`},
		{sim.Params{"k\n": "v"}, `"k\n"=v`},
	} {
		if got := c.p.Text(); got != c.want {
			t.Errorf("Text of %q = %s, want %s", c.p, got, c.want)
		}
		if safe := !strings.ContainsAny(c.want, "\"\\"); safe && c.p.Text() != c.p.Canonical() {
			t.Errorf("Text of plain %q = %s, Canonical %s", c.p, c.p.Text(), c.p.Canonical())
		}
	}
	errBuild := errors.New("build error \x1b[2J\nreplay: x")
	sys := &sim.System{Name: "text-test", Build: func(sim.Params) (*sim.Config, error) { return nil, errBuild }}
	_, _, err := sys.Config(nil)
	if want := `system text-test: "build error \x1b[2J\nreplay: x"`; err == nil || err.Error() != want || !errors.Is(err, errBuild) {
		t.Errorf("Config's Build error = %v, want %s wrapping the system's", err, want)
	}
}
