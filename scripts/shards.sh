#!/usr/bin/env bash
# Runs a search as N shards in N local processes and merges them into the
# report one process gives (the same verdict, counts and traces):
#
#   scripts/shards.sh N [--keep DIR] -- SEARCH FLAGS...
#   scripts/shards.sh 4 -- --system randtree --param fixed=true --max-paths 20000
#
# Each shard runs `macemc search FLAGS --shard I/N --workers 1 --out
# DIR/shard-I`; the merge runs `macemc merge DIR/shard-* --out DIR/merged`
# and its exit code is this script's (0 nothing found, 1 violation, 2
# error). The same two commands run under any array-job runner (GNU
# parallel, a Slurm array, a Kubernetes Indexed Job: scripts/k8s); the
# shards only need to write where the merge can read. MACEMC=BINARY runs
# that binary instead of building cmd/macemc: your own (cli.Main), for
# systems of your own module. Without --keep the shards go to a temporary
# directory, removed at the end unless the merge found something or
# failed: then it is kept, and named, for the replay and debug commands
# the merge printed.
set -euo pipefail
if [ $# -lt 2 ]; then
	sed -n '2,18p' "$0" >&2
	exit 2
fi
n=$1
shift
keep=""
if [ "${1:-}" = "--keep" ]; then
	keep=$2
	shift 2
fi
# Paths (--keep, MACEMC, files in the search flags) are the caller's.
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${MACEMC:-}
[ "${1:-}" = "--" ] && shift
dir=${keep:-$(mktemp -d)}
[ -z "$keep" ] && trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir"
if [ -z "$bin" ]; then
	bin=$(realpath "$dir")/macemc
	(cd "$root" && CGO_ENABLED=0 go build -o "$bin" ./cmd/macemc)
fi
start=$(date +%s.%N)
pids=()
for ((i = 0; i < n; i++)); do
	"$bin" search "$@" --shard "$i/$n" --workers 1 --progress none --out "$dir/shard-$i" >"$dir/shard-$i.txt" 2>&1 &
	pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
	if ! wait "${pids[$i]}"; then
		echo "shard $i/$n failed:" >&2
		cat "$dir/shard-$i.txt" >&2
		failed=1
	fi
done
[ $failed = 0 ] || exit 2
shards=$(date +%s.%N)
dirs=()
for ((i = 0; i < n; i++)); do
	head -1 "$dir/shard-$i.txt" >&2
	dirs+=("$dir/shard-$i")
done
code=0
"$bin" merge "${dirs[@]}" --progress none --out "$dir/merged" || code=$?
end=$(date +%s.%N)
where=${keep:-a temporary directory, removed}
if [ -z "$keep" ] && [ $code != 0 ]; then
	trap - EXIT # the merge's replay and debug commands name files there
	where="$dir (kept: the commands above use it)"
fi
echo "# $n shards in $(echo "$shards - $start" | bc | awk '{printf "%.2f", $1}') s, merge in $(echo "$end - $shards" | bc | awk '{printf "%.2f", $1}') s; results in $where" >&2
exit $code
