#!/usr/bin/env bash
# The project's test command (README): every package's tests and examples.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -timeout 12m ./...
# The report page in headless Chromium: a module of its own (chromedp).
(cd mdb/htmlreport/browsertest && go vet ./... && go test -count=1 -timeout 5m ./...)
