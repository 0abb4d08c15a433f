#!/usr/bin/env bash
# Prints the DS2 analogue table (seed 004): for the register variants and
# the replicated map, per strategy, schedules explored, distinct histories,
# non-linearizable histories, the path of the first, and time. Arguments
# pass through, e.g.
#   scripts/ds2_table.sh --max-paths 20000
set -euo pipefail
cd "$(dirname "$0")/.."
echo "# macemc DS2 table on $(nproc) cores, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d)"
go run ./scripts/ds2 "$@"
