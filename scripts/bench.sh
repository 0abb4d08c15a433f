#!/usr/bin/env bash
# Benchmarks the whole pipeline on every example system (services/bench)
# and prints one table. Columns:
#
#   walk tr/s   checked random walks: safety after every step, liveness
#               beyond the depth (transitions per CPU second)
#   sim tr/s    the same walks replayed on the simulator alone: no
#               properties, no walk loop (per CPU second)
#   bare tr/s   the same handlers in the same order, no checker (sim.Bare)
#               (per CPU second)
#   overhead    walk / bare time per transition: the checker's cost
#   walks 2w    wall-clock walk throughput on 2 goroutines / on 1
#   2w eff      the same per CPU second: 1.00 = the walks share nothing
#               (a 2w speedup below 2 with eff near 1 means the cores were
#               busy with something else: see the load average)
#   paths/s     bounded search of the fixed variant (nothing to find, the
#               whole budget of 100,000 paths), workers = 2, walks to 5000
#   paths 2w    paths/s on 2 workers / on 1 (one worker runs on one core;
#               two run the bounded search ahead of the order, see
#               search/explore's doc): the scaling of the bounded search
#   p-eff       the same per CPU second: below 1 is work the two workers
#               did that one does not (paths run ahead and thrown away)
#   ahead       paths the 2 workers ran ahead of the order per path of the
#               search: above 1 is work thrown away
#   shard cpu   that search as 4 shards (one after the other, one worker
#               each) and their merge, CPU time / one process's (one
#               worker): the cost of splitting it over 4 machines
#   merge       the merge's CPU time / one process's: what it ran itself
#   states/s    distinct states hashed per second in that search
#   peak MB     peak heap in use during that search
#   find s      `macemc search` on the buggy variant (the budget of
#               services/all's tests): time to the first violation
#   critical s  the critical-transition search that follows
#   wall s      the whole command, files included
#   crit        the critical step found (condition C1), - when none
#   hash        CPU time of the walks with Sim.Hash after every step / of
#               the same walks without (alternated walk by walk)
#   allocs/tr   heap allocations per transition of the walks with hashing
#
# CPU-second figures are steadier than wall-clock ones on a shared machine;
# walk, sim, bare and hash figures are the median of 3 runs. Arguments are passed
# to every run of the benchmark binary, e.g. -test.cpuprofile=FILE.
# Takes about four minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/bench.test" ./services/bench
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//' || true)
echo "# macemc bench on $(nproc) cores (${cpu:-unknown cpu}), $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%dT%H:%MZ); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run() { "$tmp/bench.test" -test.run '^$' "$@" | grep '^Benchmark' >>"$tmp/out"; }
run -test.bench '^Benchmark(Overhead|WalkWorkers|Hash)$' -test.benchtime 0.4s -test.count 3 "$@"
run -test.bench '^BenchmarkPaths$' -test.benchtime 1x -test.count 3 "$@"
run -test.bench '^BenchmarkShards$' -test.benchtime 1x "$@"
run -test.bench '^BenchmarkFind$' -test.benchtime 1x "$@"
awk '
function median(key,   n, a, i, j, t) {
	n = split(vals[key], a, " ")
	if (n == 0) return ""
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return a[int((n + 1) / 2)]
}
function num(x, d) { return x == "" ? "-" : sprintf("%." d "f", x) }
function big(x) { return x == "" ? "-" : sprintf("%.0f", x) }
function ratio(a, b) { return (a != "" && b != "" && b > 0) ? sprintf("%.2fx", a / b) : "-" }
{
	name = $1; sub(/^Benchmark/, "", name); sub(/-[0-9]+$/, "", name)
	n = split(name, part, "/")
	group = part[1]; sys = part[2]; w = (n > 2) ? part[3] : ""
	if (!(sys in seen)) { seen[sys] = 1; order[++nsys] = sys }
	for (i = 3; i < NF; i += 2) {
		key = group "|" sys "|" w "|" $(i + 1)
		vals[key] = vals[key] " " $i
	}
}
END {
	printf "%-15s %10s %10s %10s %8s %8s %6s %8s %8s %5s %5s %8s %7s %6s %10s %6s %4s %6s %9s %9s %5s\n", "system", "walk tr/s", "sim tr/s", "bare tr/s", "overhead", "walks 2w", "2w eff", "paths/s", "paths 2w", "p-eff", "ahead", "states/s", "peak MB", "find s", "critical s", "wall s", "crit", "hash", "allocs/tr", "shard cpu", "merge"
	for (k = 1; k <= nsys; k++) {
		s = order[k]
		walk = median("Overhead|" s "|walk|cpu-transitions/s"); sim = median("Overhead|" s "|replay|cpu-transitions/s"); bare = median("Overhead|" s "|bare|cpu-transitions/s")
		w1 = median("WalkWorkers|" s "|workers=1|transitions/s"); w2 = median("WalkWorkers|" s "|workers=2|transitions/s")
		c1 = median("WalkWorkers|" s "|workers=1|cpu-transitions/s"); c2 = median("WalkWorkers|" s "|workers=2|cpu-transitions/s")
		p1 = median("Paths|" s "|workers=1|paths/s"); p2 = median("Paths|" s "|workers=2|paths/s")
		q1 = median("Paths|" s "|workers=1|cpu-paths/s"); q2 = median("Paths|" s "|workers=2|cpu-paths/s")
		ahead = median("Paths|" s "|workers=2|ahead/path")
		shard = median("Shards|" s "||shard-cpu"); merge = median("Shards|" s "||merge-cpu")
		states = median("Paths|" s "|workers=2|states/s"); peak = median("Paths|" s "|workers=2|peak-MB")
		find = median("Find|" s "||find-s"); crit = median("Find|" s "||critical-s"); wall = median("Find|" s "||wall-s")
		step = median("Find|" s "||critical-step")
		hash = median("Hash|" s "||hash-ratio"); allocs = median("Hash|" s "||allocs/transition-hashed")
		printf "%-15s %10s %10s %10s %8s %8s %6s %8s %8s %5s %5s %8s %7s %6s %10s %6s %4s %6s %9s %9s %5s\n", s, big(walk), big(sim), big(bare), ratio(bare, walk),
			ratio(w2, w1), (c1 != "" && c2 != "" && c1 > 0) ? sprintf("%.2f", c2 / c1) : "-",
			big(p2), ratio(p2, p1), (q1 != "" && q2 != "" && q1 > 0) ? sprintf("%.2f", q2 / q1) : "-", num(ahead, 2), big(states), num(peak, 1),
			num(find, 2), num(crit, 2), num(wall, 2), (step == "" || step < 0) ? "-" : sprintf("%d", step),
			(hash == "") ? "-" : sprintf("%.2fx", hash), num(allocs, 2),
			(shard == "") ? "-" : sprintf("%.2fx", shard), num(merge, 2)
	}
}' "$tmp/out"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
