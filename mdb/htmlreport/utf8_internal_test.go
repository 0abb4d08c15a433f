package htmlreport

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// TestValidUTF8Writer: whatever bytes the page's template writes, and
// however the writes split them, the page is valid UTF-8; valid text
// passes unchanged, a rune split between writes included, and each run of
// bytes that are not UTF-8 becomes U+FFFD.
func TestValidUTF8Writer(t *testing.T) {
	for _, c := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"ASCII", []string{"<p>", "tick", "</p>"}, "<p>tick</p>"},
		{"runes", []string{"nœud ✓ 🙂"}, "nœud ✓ 🙂"},
		{"invalid byte", []string{"fake-timer \xff fires"}, "fake-timer \uFFFD fires"},
		{"invalid run", []string{"bad\xff\xfe\xc0\xafutf8"}, "bad\uFFFDutf8"},
		{"rune split over writes", []string{"a\xe2", "\x9c", "\x93b", "\xf0\x9f", "\x99\x82"}, "a✓b🙂"},
		{"split rune never completed", []string{"a\xe2\x9c", "b"}, "a\uFFFDb"},
		{"page ends in a rune's start", []string{"a", "\xf0\x9f\x99"}, "a\uFFFD"},
		{"lone continuation bytes", []string{"\x80\x80", "x"}, "\uFFFDx"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			w := &validUTF8Writer{w: &out}
			for _, s := range c.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(out.Bytes()) {
				t.Errorf("wrote invalid UTF-8: %q", out.String())
			}
			if out.String() != c.want {
				t.Errorf("wrote %q, want %q", out.String(), c.want)
			}
		})
	}
}
