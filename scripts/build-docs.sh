#!/usr/bin/env bash
# Builds the DocC catalogs of the Events and EventsRedis modules into .build/docs and
# .build/docs-redis with the toolchain's docc.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package dump-symbol-graph --minimum-access-level public > /dev/null
graphs=$(find .build -type d -name symbolgraph -path "*$(uname -m)*" | head -n 1)

convert() {
    local module=$1 output=$2
    shift 2
    local staged=.build/$module-symbol-graphs
    rm -rf "$staged" && mkdir -p "$staged"
    cp "$graphs/$module.symbols.json" "$staged"/
    docc convert "Sources/$module/$module.docc" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.swift-events.$module" \
        --additional-symbol-graph-dir "$staged" --output-path "$output" "$@"
}

convert Events .build/docs "$@"
convert EventsRedis .build/docs-redis "$@"
