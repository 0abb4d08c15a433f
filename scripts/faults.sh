#!/usr/bin/env bash
# The fault-injection suite's long version: each random part (signals at
# random moments of every phase, hostile trace files) runs N times (default
# 10); the figures (runs, panics, hangs, lost findings, peak memory on
# hostile inputs, the longest stop after a signal) are printed at the end.
# CI runs the short version (N = 1) as part of go test ./...
set -euo pipefail
cd "$(dirname "$0")/.."
MACEMC_FAULTS=${1:-10} go test -count=1 -timeout 60m -v -run 'TestSignals|TestHostileFiles|TestEdgeFlags|TestOutputFaults|TestZFigures' ./cmd/macemc |
  grep -E '^(--- |ok|FAIL)|fault-injection figures|faults_test.go'
