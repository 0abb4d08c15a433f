package mdb

import (
	"bytes"
	"io"
	"strconv"
	"unicode/utf8"
)

// DefaultMaxLine is how many bytes of a line the session prints by default
// (Options.MaxLine): a node whose state holds a 1 MB string printed it on
// one line of the terminal.
const DefaultMaxLine = 4096

// lineCutter passes what it is written to w, each line cut after max
// bytes (on a rune boundary) and ended with how many bytes it left out.
type lineCutter struct {
	w    io.Writer
	max  int
	n    int  // bytes of the current line written
	cut  int  // bytes of the current line left out
	full bool // the current line was cut: the rest of it is left out
}

func (c *lineCutter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		seg := p
		if i >= 0 {
			seg = p[:i]
		}
		k := 0
		if !c.full {
			k = min(c.max-c.n, len(seg))
			if k < len(seg) {
				j := k
				for j > 0 && !utf8.RuneStart(seg[j]) {
					j--
				}
				if j == 0 && !utf8.RuneStart(seg[0]) {
					// The rune began in an earlier write, which
					// printed its first bytes: print the rest.
					for k < len(seg) && !utf8.RuneStart(seg[k]) {
						k++
					}
				} else {
					k = j
				}
				c.full = true
			}
		}
		if _, err := c.w.Write(seg[:k]); err != nil {
			return 0, err
		}
		c.n += k
		c.cut += len(seg) - k
		if i < 0 {
			break
		}
		end := "\n"
		if c.cut > 0 {
			end = "… (" + strconv.Itoa(c.cut) + " bytes more of this line: mdb --max-line 0 prints lines whole)\n"
		}
		if _, err := io.WriteString(c.w, end); err != nil {
			return 0, err
		}
		c.n, c.cut, c.full = 0, 0, false
		p = p[i+1:]
	}
	return total, nil
}
