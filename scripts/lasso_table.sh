#!/usr/bin/env bash
# Lasso detection against the temperature method, after seed 000's Table II.
#
# For every system with a transient-state liveness bug that is registered
# (philosophers, proposers, storage, failuredetector, scheduler, chord, and
# lasso-slow of walks/lasso/lassotest), it runs
#
#   macemc search --system S --json --max-paths P --walk-depth B --no-critical
#                 --max-violations <all>  plus one of
#     --temperature 50 | --temperature 250 | --lasso | --lasso --partial-hash
#
# lasso-slow is slow but live: every report on it is false.
# It prints, from each report's lasso_stats, the share of executions
# (walks) that reported a violation and the mean lengths:
#   temperature: %alarm = walks whose temperature reached TT, (%rec) = the
#     share of those whose execution then became live after all (the
#     alarm was false for that execution), L = mean alarm step;
#   lasso: %true = walks with a confirmed hot fair lasso that was not
#     refuted (with exact hashing every one is a proof; with partial
#     hashing the walk repeats the cycle up to B steps and a cycle that
#     breaks is refuted: ref), L_T = mean stem+cycle, L_C = mean cycle,
#     D = hot fair cycles whose replay failed.
# A "-" means no finding. Systems that are not registered are skipped with
# a note. Environment: MACEMC (a macemc binary; default: build
# walks/lasso/internal/lassodemo, which is macemc plus the lasso-* systems),
# PATHS (default 2000), STEPS (B, default 500), SEED (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."

PATHS=${PATHS:-2000}
STEPS=${STEPS:-500}
SEED=${SEED:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -z "${MACEMC:-}" ]; then
  go build -o "$tmp/macemc" ./walks/lasso/internal/lassodemo
  MACEMC="$tmp/macemc"
fi
command -v jq >/dev/null || { echo "lasso_table.sh needs jq" >&2; exit 2; }

"$MACEMC" list --json > "$tmp/list.json"
registered() { jq -e --arg n "$1" 'any(.[]; .name == $n)' "$tmp/list.json" >/dev/null; }

# system|params (space separated --param values)|label
rows=(
  "philosophers|n=2|"
  "philosophers|n=3|"
  "philosophers|n=4|"
  "philosophers|n=2 fixed=true|"
  "philosophers|n=3 fixed=true|"
  "proposers||"
  "proposers|fixed=true|"
  "storage||"
  "storage|fixed=true|"
  "failuredetector||"
  "scheduler||"
  "chord||"
  "lasso-slow|k=400|"
)

# run SYSTEM PARAMS METHOD... prints the report's lasso_stats as one line of
# JSON (or {} when the run failed).
run() {
  local sys=$1 params=$2
  shift 2
  local args=(--system "$sys" --json --out "$tmp/out" --seed "$SEED" --max-paths "$PATHS"
    --walk-depth "$STEPS" --no-critical --max-violations 100000000)
  for p in $params; do args+=(--param "$p"); done
  local code=0
  "$MACEMC" search "${args[@]}" "$@" > "$tmp/rep.json" 2> "$tmp/err.txt" || code=$?
  if [ "$code" -gt 1 ]; then
    echo '{"error": true}'
    return
  fi
  jq -c '.lasso_stats + {elapsed: .elapsed_s}' "$tmp/rep.json"
}

pct() { jq -r --argjson a "$1" --argjson b "$2" -n 'if $b == 0 then "-" else ($a * 100 / $b | . * 100 | round / 100 | tostring) end'; }
num() { jq -r --argjson a "$1" -n 'if $a == 0 then "-" else ($a * 10 | round / 10 | tostring) end'; }

temperature_cell() {
  local s=$1
  if jq -e '.error' <<<"$s" >/dev/null; then echo "error"; return; fi
  local w a r l
  w=$(jq '.walks' <<<"$s"); a=$(jq '.alarms' <<<"$s"); r=$(jq '.alarms_recovered' <<<"$s"); l=$(jq '.mean_alarm_steps' <<<"$s")
  if [ "$a" = 0 ]; then printf '%s' "0"; return; fi
  printf '%s (%s) %s' "$(pct "$a" "$w")" "$(pct "$r" "$a")" "$(num "$l")"
}

lasso_cell() {
  local s=$1 partial=$2
  if jq -e '.error' <<<"$s" >/dev/null; then echo "error"; return; fi
  local w c r d lt lc out
  w=$(jq '.walks' <<<"$s"); c=$(jq '.confirmed' <<<"$s"); r=$(jq '.refuted' <<<"$s"); d=$(jq '.discarded' <<<"$s")
  lt=$(jq '.mean_trace' <<<"$s"); lc=$(jq '.mean_cycle' <<<"$s")
  out="$(pct $((c - r)) "$w") $(num "$lt") $(num "$lc") $d"
  [ "$c" = 0 ] && out="0 - - $d"
  if [ "$partial" = 1 ]; then out="$out $r"; fi
  printf '%s' "$out"
}

start=$SECONDS
printf 'walk depth B=%s, %s paths per run, seed %s, RT=10; cells: temperature %%alarm (%%rec) L; lasso %%true L_T L_C D [ref]\n\n' "$STEPS" "$PATHS" "$SEED"
fmt='%-18s %-14s %5s | %-17s | %-17s | %-21s | %-23s | %4s\n'
printf "$fmt" system params walks "temp TT=50" "temp TT=250" "lasso exact" "lasso partial" secs
printf "$fmt" "" "" "" "%alarm (%rec) L" "%alarm (%rec) L" "%true L_T L_C D" "%true L_T L_C D ref" ""
skipped=()
for row in "${rows[@]}"; do
  IFS='|' read -r sys params label <<<"$row"
  if ! registered "$sys"; then
    skipped+=("$sys")
    continue
  fi
  t0=$SECONDS
  t50=$(run "$sys" "$params" --temperature 50)
  t250=$(run "$sys" "$params" --temperature 250)
  ex=$(run "$sys" "$params" --lasso)
  pa=$(run "$sys" "$params" --lasso --partial-hash)
  walks=$(jq '.walks // 0' <<<"$ex")
  shown=${params:--}
  [ -n "$label" ] && shown="$shown ($label)"
  printf "$fmt" "$sys" "$shown" "$walks" "$(temperature_cell "$t50")" "$(temperature_cell "$t250")" \
    "$(lasso_cell "$ex" 0)" "$(lasso_cell "$pa" 1)" "$((SECONDS - t0))"
done
if [ ${#skipped[@]} -gt 0 ]; then
  printf '\nnot registered, skipped: %s\n' "$(printf '%s\n' "${skipped[@]}" | sort -u | tr '\n' ' ')"
fi
printf 'total %ss\n' "$((SECONDS - start))"
