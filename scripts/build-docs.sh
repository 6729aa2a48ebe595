#!/usr/bin/env bash
# Builds the DocC catalog of the Events module into .build/docs (open index.html from a server,
# or add --transform-for-static-hosting options as needed).
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=.build/symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
swift build --target Events -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
docc convert Sources/Events/Events.docc \
    --fallback-display-name Events --fallback-bundle-identifier org.swift-events.Events \
    --additional-symbol-graph-dir "$graphs" --output-path .build/docs "$@"
