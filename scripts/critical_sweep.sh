#!/usr/bin/env bash
# Runs every paper system over seeds 1-50 as a user changing --seed would
# and prints, per system, how many runs name a C1 critical transition at
# the paper's event, the time per run, and the minimized doomed path's
# figures (the table in the README). Arguments pass through, e.g.
#   scripts/critical_sweep.sh --seeds 1-10 --rows transport chord
# Timings are wall-clock on a shared machine: run it when the cores are idle.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "# macemc critical sweep on $(nproc) cores, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d)"
go run ./scripts/critical_sweep "$@"
