// Package hook connects package sim's user API (Context, View) to the
// simulator in package sim/engine, so that a service author reading sim's
// documentation sees the handler API and not the engine behind it.
//
// Package sim sets the constructors in its init; package engine, which
// imports sim (so sim's init has run), calls them. Nothing else uses this
// package.
//
// # Usage
//
// Only packages sim and sim/engine use it: sim sets the constructors in
// its init, and engine builds a Context or a View for a node with them.
package hook
