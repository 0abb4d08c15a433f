#!/usr/bin/env bash
# Prints the comparison of the exploration strategies on the example
# systems (seed 002's Table 2, seed 001's Table 4.4): per buggy system and
# strategy, how many of 20 seeds found the bug within the budget and the
# median schedules, distinct states and seconds to the first violation.
# Arguments pass through, e.g.
#   scripts/strategies.sh --seeds 5 --time 10s transport storage
# (the README's table: scripts/strategies.sh --markdown)
set -euo pipefail
cd "$(dirname "$0")/.."
echo "# macemc strategies on $(nproc) cores, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d)"
go run ./scripts/strategies "$@"
