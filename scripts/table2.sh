#!/usr/bin/env bash
# Prints seed 003's Table 2 for the example systems: verdict, property,
# critical step and event, paths, transitions, time to find, time of the
# critical-transition search. Arguments pass through, e.g.
#   scripts/table2.sh --time 30s transport chord
set -euo pipefail
cd "$(dirname "$0")/.."
echo "# macemc table 2 on $(nproc) cores, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d)"
go run ./scripts/table2 "$@"
