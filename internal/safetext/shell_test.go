package safetext

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

var shellCases = []struct {
	name, in string
	// want is ShellQuotePath(in); arg what a shell makes of it (in, or
	// "./"+in for a path that begins with "-").
	want, arg string
}{
	{"plain", "out/error.trace", "out/error.trace", ""},
	{"space", "my out/x", "'my out/x'", ""},
	{"single quote", "it's", `'it'\''s'`, ""},
	{"dollar and backquote", "$HOME`id`", "'$HOME`id`'", ""},
	{"glob", "r*?[a]", "'r*?[a]'", ""},
	{"brace expansion", "r{a,b}/error.trace", "'r{a,b}/error.trace'", ""},
	{"lone brace", "r}x", "'r}x'", ""},
	{"history expansion", "r!x1", "'r!x1'", ""},
	{"caret", "a^b", "'a^b'", ""},
	{"tilde", "~/x", "'~/x'", ""},
	{"zsh equals", "=ls", "'=ls'", ""},
	{"equals inside", "a=b", "a=b", ""},
	{"letters beyond ASCII", "résultats/ü", "résultats/ü", ""},
	{"leading dash", "-odd", "./-odd", "./-odd"},
	{"leading dash, file in it", "-odd/error.trace", "./-odd/error.trace", "./-odd/error.trace"},
	{"leading dashes and braces", "--x{a,b}", "'./--x{a,b}'", "./--x{a,b}"},
	{"absolute", "/tmp/-x", "/tmp/-x", ""},
	{"newline", "nl\ndir", `$'nl\ndir'`, ""},
	{"tab and carriage return", "a\tb\rc", `$'a\tb\rc'`, ""},
	{"tab alone", "tab\tx", `$'tab\tx'`, ""},
	{"escape sequence", "dir\x1b[2J", `$'dir\x1b[2J'`, ""},
	{"escape and quotes", "a'b\\c\x07", `$'a\'b\\c\x07'`, ""},
	{"hex digit after escape", "\x1bab", `$'\x1bab'`, ""},
	{"RLO", "abc\u202egnp.exe", `$'abc\xe2\x80\xaegnp.exe'`, ""},
	{"invalid UTF-8", "bad\xffü", `$'bad\xffü'`, ""},
	{"dash and control", "-a\nb", `$'./-a\nb'`, "./-a\nb"},
}

// TestShellQuote: ShellQuotePath's text is what the shell reads back as
// the path (with "./" before one that begins with "-"), checked by bash
// when there is one (bash -c, and an interactive bash, which expands
// history's !); every text it prints is Safe, so that what the terminal
// shows is what runs.
func TestShellQuote(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Logf("no bash (%v): the quoted texts are compared, not run", err)
	}
	for _, c := range shellCases {
		t.Run(c.name, func(t *testing.T) {
			got := ShellQuotePath(c.in)
			if got != c.want {
				t.Errorf("ShellQuotePath(%q) = %s, want %s", c.in, got, c.want)
			}
			if !Safe(got) {
				t.Errorf("ShellQuotePath(%q) = %q, which is not Safe", c.in, got)
			}
			arg := c.arg
			if arg == "" {
				arg = c.in
			}
			if !strings.HasPrefix(c.in, "-") && ShellQuote(c.in) != got {
				t.Errorf("ShellQuote(%q) = %s, ShellQuotePath %s", c.in, ShellQuote(c.in), got)
			}
			if bash == "" {
				return
			}
			// The shell's words, each ended by a NUL: one word, the path;
			// as bash -c reads the command, and as an interactive bash
			// reads a pasted line (with history expansion: !).
			for _, mode := range []string{"-c", "-i"} {
				cmd := exec.Command(bash, "--norc", "--noprofile", "-c", "printf '%s\\0' "+got)
				if mode == "-i" {
					cmd = exec.Command(bash, "--norc", "--noprofile", "-i")
					cmd.Stdin = strings.NewReader("printf '%s\\0' " + got + "\n")
				}
				cmd.Env = []string{"LC_ALL=C", "HOME=/nonexistent", "PS1="}
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("bash %s %q: %v, %s", mode, got, err, stderr.String())
				}
				if want := arg + "\x00"; string(out) != want {
					t.Errorf("bash %s reads %s as %q, want %q (stderr %q)", mode, got, out, want, stderr.String())
				}
			}
		})
	}
}

// TestShellQuoteArg: a flag stays a flag (only a path gets "./").
func TestShellQuoteArg(t *testing.T) {
	for in, want := range map[string]string{"--seed": "--seed", "--out=-odd": "--out=-odd", "-x{a}": "'-x{a}'"} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
