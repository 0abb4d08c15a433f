//go:build go1.27

package engine

import goruntime "runtime"

// isWrapper: a method value of a generic type is not told from a closure
// on a Go release whose runtime funcs funclayout.go has not been checked
// against; it counts as a closure, as its name says.
func isWrapper(*goruntime.Func) bool { return false }
