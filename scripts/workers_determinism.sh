#!/usr/bin/env bash
# Checks that a search's results depend only on its inputs (issue 14, item
# 5): for each case, runs `macemc search` with --workers 1, 2 and 4, each
# twice, and compares report.json (every field but the times, the paths of
# the files and the commands that name them) and the bytes of every trace
# and log with the first run's. Prints one line per case and exits 1 if
# any run differs.
#
# Usage: scripts/workers_determinism.sh [CASE-ARGS...]   (default: the cases below)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/macemc" ./cmd/macemc
cases=(
  "--system transport --seed 7"
  "--system transport --seed 3"
  "--system transport --param fixed=true --max-paths 20000"
  "--system randtree --seed 1 --max-paths 3000"
  "--system chord --seed 5"
  "--system pastry --seed 2"
  "--system storage --seed 1"
  "--system philosophers --seed 1 --max-paths 2000"
  "--system failuredetector --seed 4"
)
if [ $# -gt 0 ]; then cases=("$*"); fi
# normalize prints report.json without times, paths and commands.
normalize() {
  python3 - "$1" <<'PY'
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if not (k.endswith("_s") or k in ("files", "replay", "debug", "elapsed"))}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
print(json.dumps(strip(json.load(open(sys.argv[1]))), sort_keys=True, indent=1))
PY
}
bad=0
for c in "${cases[@]}"; do
  ref=""
  diffs=""
  for w in 1 2 4; do
    for rep in 1 2; do
      out="$tmp/out-$w-$rep"
      rm -rf "$out"
      # shellcheck disable=SC2086
      "$tmp/macemc" search $c --workers "$w" --progress none --out "$out" >/dev/null 2>&1 || true
      normalize "$out/report.json" >"$out/report.norm"
      if [ -z "$ref" ]; then ref="$out"; continue; fi
      cmp -s "$ref/report.norm" "$out/report.norm" || diffs="$diffs report.json(w$w#$rep)"
      for f in "$ref"/*.trace "$ref"/*.log; do
        [ -e "$f" ] || continue
        cmp -s "$f" "$out/$(basename "$f")" || diffs="$diffs $(basename "$f")(w$w#$rep)"
      done
    done
  done
  files=$(cd "$ref" && { ls *.trace *.log 2>/dev/null || true; } | tr '\n' ' ')
  summary=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("verdict=%s paths=%s states=%s transitions=%s steps=%s critical=%s" % (r.get("verdict"), r.get("paths"), r.get("distinct_states"), r.get("transitions"), r.get("steps", "-"), (r.get("critical") or {}).get("step", "-")))' "$ref/report.json")
  if [ -n "$diffs" ]; then
    bad=1
    echo "DIFFERS  $c: $summary; differing:$diffs"
    diff "$ref/report.norm" "$tmp/out-4-2/report.norm" | head -20 || true
  else
    echo "same     $c: $summary; files: $files"
  fi
done
exit $bad
