package engine

import (
	"strings"
	"testing"
)

// memoRing is a pointer graph with sharing and cycles: a text made with the
// memo must be the one made without it, whatever path reaches a value.
type memoRing struct {
	Name  string
	Next  *memoRing
	Peer  *memoRing
	Items []memoItem
	Index map[string]*memoItem
}

type memoItem struct {
	K    int
	Tags []string
	Back *memoRing
}

// formatPlain is FormatState without the memo, and with a formatter limit
// of limit.
func formatPlain(v any, limit int) string { return formatState(v, &formatter{limit: limit}) }

// formatMemo is FormatState with a formatter limit of limit.
func formatMemo(v any, limit int) string {
	return formatState(v, &formatter{limit: limit, memo: map[memoKey]memoText{}})
}

// TestTextMemoChangesNothing: the memo of one-line texts (formatter.inline)
// gives the text formatting without it gives: for shared values reached
// by paths with different pointers behind them (a "<cycle>" on one path,
// not on the other), and at every limit of values, where the text is cut
// ("…") at the same place.
func TestTextMemoChangesNothing(t *testing.T) {
	a := &memoRing{Name: "a"}
	b := &memoRing{Name: "b", Next: a}
	c := &memoRing{Name: "c", Next: b, Peer: a}
	a.Next, a.Peer = c, b
	long := strings.Repeat("x", 40)
	for i := range 6 {
		it := memoItem{K: i, Tags: []string{long, long[:i]}, Back: []*memoRing{a, b, c}[i%3]}
		a.Items = append(a.Items, it)
	}
	a.Index = map[string]*memoItem{"first": &a.Items[0], "last": &a.Items[5], "again": &a.Items[0]}
	b.Items = a.Items[2:4]
	hits := 0
	for _, v := range []any{a, b, c, a.Items[1]} {
		for _, limit := range []int{1, 2, 5, 13, 40, 97, 200, 500, maxTextValues} {
			plain, memo := formatPlain(v, limit), formatMemo(v, limit)
			if plain != memo {
				t.Fatalf("limit %d: with the memo\n%s\nwithout\n%s", limit, memo, plain)
			}
			if strings.Contains(plain, "<cycle>") {
				hits++
			}
		}
	}
	if hits == 0 {
		t.Fatal("no text shows a cycle: the test does not test what it says")
	}
	if got := FormatState(c); got != formatPlain(c, maxTextValues) {
		t.Fatalf("FormatState differs from the text without the memo:\n%s", got)
	}
}
