package cli

import (
	"maps"
	"testing"
)

// TestCommandName: the printed commands name the program as it can be run
// again: by the path it was run by, by its name from PATH, macemc for go
// run's and a debugger's binaries.
func TestCommandName(t *testing.T) {
	for arg0, want := range map[string]string{
		"macemc":                            "macemc",
		"mytool":                            "mytool",
		"./bin/mytool":                      "./bin/mytool",
		"/usr/local/bin/mytool":             "/usr/local/bin/mytool",
		"/home/me/my tools/mytool":          "'/home/me/my tools/mytool'",
		"/tmp/go-build1234/b001/exe/mytool": "mytool",
		"/root/.cache/go-build/d8/d80e4f26-d/mytool": "mytool",
		"/home/me/proj/__debug_bin3029":              "macemc",
		"":                                           "macemc",
		`C:\Users\me\go-build99\b001\exe\tool.exe`: "tool.exe",
	} {
		if got := commandName(arg0); got != want {
			t.Errorf("commandName(%q) = %q, want %q", arg0, got, want)
		}
	}
}

// A comma starts another parameter only when NAME= follows it.
func TestParseParamsCommas(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want map[string]string
		err  bool
	}{
		{in: []string{"a=1,b=2"}, want: map[string]string{"a": "1", "b": "2"}},
		{in: []string{"clients=P1,G"}, want: map[string]string{"clients": "P1,G"}},
		{in: []string{"clients=P1,G,x=3", "y= 4 "}, want: map[string]string{"clients": "P1,G", "x": "3", "y": "4"}},
		{in: []string{"a=1,,b=2"}, want: map[string]string{"a": "1,", "b": "2"}},
		{in: []string{"G,a=1"}, err: true},
		{in: []string{"=1"}, err: true},
		{in: []string{"a=1", "a=2"}, err: true},
	} {
		got, err := parseParams(c.in)
		if (err != nil) != c.err || err == nil && !maps.Equal(got, c.want) {
			t.Errorf("parseParams(%q) = %v, %v; want %v (error %v)", c.in, got, err, c.want, c.err)
		}
	}
}
