// Command lassodemo is macemc with the lasso-* systems of package lassotest
// registered besides the usual ones: scripts/lasso_table.sh runs it, and it
// shows what lasso detection and the temperature method make of systems
// that only look like livelocks.
//
// # Usage
//
// It takes macemc's commands and flags (see cmd/macemc):
//
//	go run ./walks/lasso/internal/lassodemo search --system lasso-slow --temperature 50
package main
