package engine

import (
	"reflect"
	"strings"
	"testing"
)

type chainLink struct {
	Next *chainLink
	N    int
}

// TestRefPathsAreBounded: the paths the shared-memory walk builds stop
// growing past maxPathText ("…"), so a chain of 100,000 pointers costs time
// and memory in proportion to its length, not its square (a node holding
// one made the check before a search take 40 s of a 5 s budget).
func TestRefPathsAreBounded(t *testing.T) {
	var head *chainLink
	for i := range 100_000 {
		head = &chainLink{Next: head, N: i}
	}
	refs := refsOf(reflect.ValueOf(head))
	if len(refs) != 100_000 {
		t.Fatalf("%d objects reached, want 100,000", len(refs))
	}
	longest, cut := 0, 0
	for _, p := range refs {
		longest = max(longest, len(p))
		if strings.HasSuffix(p, "…") {
			cut++
		}
	}
	if longest > maxPathText+len(".Next")+len("…") || cut == 0 {
		t.Errorf("longest path %d bytes, %d cut; want at most %d and some cut", longest, cut, maxPathText+len(".Next")+len("…"))
	}
	if p := refs[reflect.ValueOf(head.Next.Next).Pointer()]; p != ".Next.Next" {
		t.Errorf("a short path reads %q", p)
	}
}
