#!/usr/bin/env bash
# The project's test command (README): every package's tests and examples
# (the fault-injection suite's short version among them, cmd/macemc), the
# core packages again under the race detector, each fuzz target for a few
# seconds from its corpus in testdata/fuzz, and the nested modules' tests
# (the report page in headless Chromium; etcd raft hosted in
# services/raftkv; go fetches their dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."

# The timeouts leave room for a loaded machine: the search package takes
# 1-1.5 min here alone and 9 min under -race on 2 cores shared with other
# work; 12 minutes failed twice under such load.
echo "== go test ./..."
go test -count=1 -timeout 20m ./...

echo "== 32-bit build (the sizes the decoders bound must fit an int there)"
GOARCH=386 go build ./...

echo "== go test -race (core packages)"
go test -count=1 -race -short -timeout 20m ./sim/... ./search/... ./critical/... ./walks/... ./mdb/...

# Each target for a count of inputs, about 3 s of it on the shared 2-core
# machine: a -fuzztime in seconds races the fuzzing coordinator's deadline
# in go1.26 and can fail a target with a bare "context deadline exceeded"
# and no input (golang/go#75804, fixed in go1.27).
echo "== fuzz (about 3s a target)"
for target in sim/trace:FuzzUnmarshal:100000 search:FuzzReportJSON:200 search:FuzzUnmarshalShard:20000 mdb:FuzzExec:6000 \
  mdb/htmlreport:FuzzReadReport:4000 mdb/htmlreport:FuzzScan:40000 sim/engine:FuzzCanonical:2000 \
  sim/engine:FuzzConsoleWriter:40000 sim:FuzzParseFailures:100000 internal/jsonbound:FuzzValues:100000; do
  IFS=: read -r pkg fn count <<<"$target"
  go test -run '^$' -fuzz "^${fn}\$" -fuzztime "${count}x" "./${pkg}"
done

# The report page in headless Chromium: a module of its own (chromedp).
(cd mdb/htmlreport/browsertest && go vet ./... && go test -count=1 -timeout 5m ./...)

# etcd raft, hosted unchanged: a module of its own.
(cd services/raftkv && go test -count=1 -timeout 10m ./...)

# Kubernetes manifests of a sharded search, checked against the API types: a module of its own.
(cd scripts/k8s && go vet ./... && go test -count=1 ./...)
