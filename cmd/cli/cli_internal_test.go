package cli

import "testing"

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
