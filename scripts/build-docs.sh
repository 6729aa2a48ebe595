#!/usr/bin/env bash
# Builds the DocC catalog of the Events module into .build/docs with the toolchain's docc.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package dump-symbol-graph --minimum-access-level public > /dev/null
graphs=$(find .build -type d -name symbolgraph -path "*$(uname -m)*" | head -n 1)
staged=.build/events-symbol-graphs
rm -rf "$staged" && mkdir -p "$staged"
cp "$graphs"/Events*.symbols.json "$staged"/
docc convert Sources/Events/Events.docc \
    --fallback-display-name Events --fallback-bundle-identifier org.swift-events.Events \
    --additional-symbol-graph-dir "$staged" --output-path .build/docs "$@"
