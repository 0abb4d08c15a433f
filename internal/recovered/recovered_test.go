package recovered

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

//go:noinline
func fails() error {
	var s []int
	return fmt.Errorf("unreachable: %d", s[3]) // panics: index out of range
}

// TestCall: a panic becomes an ErrInternal naming the panic and the
// function that panicked; an error passes through.
func TestCall(t *testing.T) {
	err := Call(fails)
	if !errors.Is(err, ErrInternal) {
		t.Fatalf("Call of a panicking function: %v", err)
	}
	for _, want := range []string{"index out of range [3] with length 0", "recovered.fails ", "recovered_test.go:13"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	plain := errors.New("plain")
	if err := Call(func() error { return plain }); err != plain {
		t.Errorf("Call of a failing function: %v", err)
	}
}

// TestError: recovered in a deferred function of one's own, as a
// goroutine does.
func TestError(t *testing.T) {
	done := make(chan error)
	go func() {
		defer func() { done <- Error(recover()) }()
		_ = fails()
	}()
	err := <-done
	if !errors.Is(err, ErrInternal) || !strings.Contains(err.Error(), "recovered.fails ") {
		t.Fatalf("Error: %v", err)
	}
}
