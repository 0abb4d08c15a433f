package safetext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ShellQuote quotes a shell argument when needed, so that a command
// printed for pasting runs with s as it is and shows it as it runs: s
// itself when no shell reads any of its characters specially; otherwise s
// in single quotes, which stop every expansion (globs, variables, braces,
// history's !, a leading ~, zsh's leading =); and, when s is not Safe (a
// control character, a newline, a bidi control, bytes that are not
// UTF-8) or holds a tab, s in the ANSI-C quotes $'...' of bash, zsh and ksh, with each
// such byte written as an escape, so that a terminal neither acts on it
// nor shows other text than runs.
func ShellQuote(s string) string {
	switch {
	case !Safe(s) || strings.ContainsRune(s, '\t'):
		// A tab too: pasted raw it splits the argument, and a copy
		// from a terminal may turn it into spaces.
		return ansiCQuote(s)
	case s != "" && !strings.ContainsAny(s, " '\"\\$`;&|<>()*?[]#~{}!^") && s[0] != '=':
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellQuotePath is ShellQuote of a file's path, with "./" put before a
// relative path that begins with "-", which a command would take for a
// flag.
func ShellQuotePath(path string) string {
	if strings.HasPrefix(path, "-") {
		path = "./" + path
	}
	return ShellQuote(path)
}

// ansiCQuote writes s in the shells' ANSI-C quotes $'...': printable
// characters as they are, a backslash and a single quote escaped, newline,
// tab and carriage return as \n, \t and \r, and every byte of anything
// else (a control character, a bidi control, bytes that are not UTF-8) as
// \xHH, which stands for that byte whatever the locale.
func ansiCQuote(s string) string {
	const hex = "0123456789abcdef"
	b := []byte("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\' || r == '\'':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r != utf8.RuneError && r >= ' ' && r != 0x7f && strconv.IsPrint(r), r == utf8.RuneError && n > 1:
			b = append(b, s[i:i+n]...)
		default:
			for _, c := range []byte(s[i : i+n]) {
				b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
			}
		}
		i += n
	}
	return string(append(b, '\''))
}
