#!/usr/bin/env bash
# The project's test command (README): every package's tests and examples,
# and the nested modules' (etcd raft hosted in services/raftkv; go fetches
# its dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -timeout 12m ./...
(cd services/raftkv && go test -count=1 -timeout 10m ./...)
