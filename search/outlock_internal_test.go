//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package search

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
)

// TestOutInUse: a run refuses a result directory another run writes to
// (their files would mix), and takes it once the other is done.
func TestOutInUse(t *testing.T) {
	dir := t.TempDir()
	release, err := lockOut(dir) // the other run
	if err != nil {
		t.Fatal(err)
	}
	sys, err := sim.Lookup("transport")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Seed: 3, MaxPaths: 20, Workers: 1, NoCritical: true, Out: dir}
	if _, err := Run(context.Background(), sys, o); !errors.Is(err, ErrOutput) || !strings.Contains(err.Error(), "is in use by another run") {
		t.Fatalf("a directory in use: %v", err)
	}
	release()
	if _, err := Run(context.Background(), sys, o); err != nil {
		t.Fatalf("once the other run is done: %v", err)
	}
}
