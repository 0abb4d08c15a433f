// Package recovered turns a panic in macemc's own code into an error, so
// that a fault in one analysis does not lose what a run found.
//
// # Usage
//
//	err := recovered.Call(func() error { return analyse() })
//	if errors.Is(err, recovered.ErrInternal) {
//		// analyse panicked; err names the panic and where it happened
//	}
//
// In a goroutine of one's own, recover and convert:
//
//	defer func() {
//		if r := recover(); r != nil {
//			errs <- recovered.Error(r)
//		}
//	}()
package recovered

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// ErrInternal marks a panic in macemc's own code that was recovered.
var ErrInternal = errors.New("internal error in macemc (please report it, with the trace)")

// Call runs fn and returns its error, or, when fn panics, an error
// wrapping ErrInternal that names the panic and where it happened.
func Call(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Error(r)
		}
	}()
	return fn()
}

// Error returns the error of panic value r, for a deferred function that
// recovered it: it wraps ErrInternal and names where the panic happened.
func Error(r any) error {
	return fmt.Errorf("%w: %v (at %s)", ErrInternal, r, Site())
}

// Site names the function that panicked, e.g. "example.com/kv.(*Model).Apply
// /src/kv/model.go:88", when called by a deferred function while it
// recovers: the first function outside the runtime below the runtime's
// panic frame.
func Site() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	inPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			inPanic = true
		case inPanic && !strings.HasPrefix(f.Function, "runtime."):
			return fmt.Sprintf("%s %s:%d", f.Function, f.File, f.Line)
		}
		if !more {
			return "an unknown place"
		}
	}
}
