package mdb

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLineCutter: lines are cut after max bytes on a rune boundary, with
// how many bytes were left out, however the text is split across writes;
// short lines pass unchanged.
func TestLineCutter(t *testing.T) {
	in := "short\n" + "ab" + strings.Repeat("é", 10) + "\n" + "exactly10!\n" + "tail without newline"
	// 11 bytes end inside the fifth é: printed whole when a write ended
	// inside it, left out otherwise.
	cut := func(shown string, more int) string {
		return shown + "… (" + strconv.Itoa(more) + " bytes more of this line: mdb --max-line 0 prints lines whole)\n"
	}
	for _, chunk := range []int{1, 2, 3, 7, len(in)} {
		var b bytes.Buffer
		c := &lineCutter{w: &b, max: 11}
		for rest := in; rest != ""; {
			k := min(chunk, len(rest))
			if n, err := c.Write([]byte(rest[:k])); n != k || err != nil {
				t.Fatalf("Write: %d, %v", n, err)
			}
			rest = rest[k:]
		}
		want := "short\n" + cut("abéééé", 12) + "exactly10!\n" + "tail withou"
		if 17%chunk == 0 { // a write ended after the fifth é's first byte, stream byte 16
			want = "short\n" + cut("abééééé", 10) + "exactly10!\n" + "tail withou"
		}
		if b.String() != want || !utf8.ValidString(b.String()) {
			t.Errorf("chunks of %d:\n got %q\nwant %q", chunk, b.String(), want)
		}
	}
}
