#!/usr/bin/env bash
# Builds the DocC catalogs of Events, EventsSVG, EventsRedisClient, EventsRedis and EventsTesting
# with the toolchain's docc,
# for a static file host, and fails on any docc warning or on a public symbol left out of the
# curated topics.
#
#   bash scripts/build-docs.sh                       output in .build/docs
#   DOCS_BASE_PATH=my-repo bash scripts/build-docs.sh
#
# Where the output goes. Each module is its own archive, hosted side by side under one base
# path: .build/docs/<base>/Events, .build/docs/<base>/EventsSVG,
# .build/docs/<base>/EventsRedisClient, .build/docs/<base>/EventsRedis and
# .build/docs/<base>/EventsTesting, to be served as
# https://<host>/<base>/Events/documentation/events/,
# https://<host>/<base>/EventsSVG/documentation/eventssvg/,
# https://<host>/<base>/EventsRedisClient/documentation/eventsredisclient/,
# https://<host>/<base>/EventsRedis/documentation/eventsredis/ and
# https://<host>/<base>/EventsTesting/documentation/eventstesting/. Copy .build/docs/<base> to the
# host so that it answers at /<base>. The base defaults to `swift-events`, the repository's
# name, which is where a project site such as GitHub Pages serves it; set DOCS_BASE_PATH to the
# path your host serves it from (empty for the root of a site of its own). docc writes every
# asset path relative to that base (`--hosting-base-path`) and an index.html for every page
# (`--transform-for-static-hosting`), so no web server rules are needed.
#
# To look at it locally: cd .build/docs && python3 -m http.server 8000, then open
# http://localhost:8000/swift-events/Events/documentation/events/
set -euo pipefail
cd "$(dirname "$0")/.."

base=${DOCS_BASE_PATH-swift-events}
base=${base#/}
base=${base%/}
site=.build/docs

# The symbol graphs of the public API as the modules declare it: members a type only inherits
# (AsyncSequence's map, Equatable's !=) belong to their protocols' documentation.
# The dump also tries the test modules and fails when the tests are not built, so its status
# is not the test: the graphs are, written afresh. Each module's graph holds its own symbols
# only: EventsRedis re-exports EventsRedisClient, but the client's symbols are in the client's
# graph and documented in its archive, which the bridge's pages link to by URL (the archives
# sit side by side under the base path).
graphs="$(swift build --show-bin-path)/../symbolgraph"
rm -rf "$graphs"
swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members \
    --emit-extension-block-symbols > .build/docs-symbol-graph.log 2>&1 || true
for graph in Events EventsSVG EventsSVG@Events EventsRedisClient EventsRedis EventsTesting; do
    if [ ! -f "$graphs/$graph.symbols.json" ]; then
        cat .build/docs-symbol-graph.log >&2
        echo "no symbol graph $graph" >&2
        exit 1
    fi
done

rm -rf "$site"
convert() {
    local module=$1
    local staged=.build/docs-symbol-graphs/$module
    local path=${base:+$base/}$module
    rm -rf "$staged" && mkdir -p "$staged"
    cp "$graphs/$module.symbols.json" "$staged"/
    # What a module adds to the types of the modules named after it (EventsSVG's `svg(title:)`
    # on Events' EventTopology) is in a graph of its own, `<module>@<extended>.symbols.json`.
    local extended
    for extended in "${@:2}"; do
        cp "$graphs/$module@$extended.symbols.json" "$staged"/
    done
    echo "== docc: $module (hosted at /$path)"
    mkdir -p "$(dirname "$site/$path")"
    docc convert "Sources/$module/$module.docc" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.swift-events.$module" \
        --additional-symbol-graph-dir "$staged" --output-path "$site/$path" \
        --transform-for-static-hosting --hosting-base-path "$path" \
        --warnings-as-errors
    # Every asset reference must carry the base path, or the pages only work from a host's root.
    if grep -Eq '(src|href)="/(css|js|favicon|images|img)' "$site/$path/index.html"; then
        echo "$site/$path/index.html still loads assets from the host's root" >&2
        exit 1
    fi
}
convert Events
convert EventsSVG Events
convert EventsRedisClient
convert EventsRedis
convert EventsTesting

# docc puts a symbol that no `## Topics` list names into a generated group ("Instance
# Methods"). Every public symbol must be in a curated group somewhere. (docc also files the
# members of a conformance declared in an extension under a generated "Default
# Implementations" page, even when they are curated: those count as curated.)
python3 - "$site" <<'EOF'
import glob, json, os, sys
curated, generated = set(), {}
for page in glob.glob(os.path.join(sys.argv[1], "**", "data", "documentation", "**", "*.json"), recursive=True):
    with open(page) as file:
        document = json.load(file)
    name = document["identifier"]["url"].split("/documentation/", 1)[-1]
    for section in document.get("topicSections", []):
        for identifier in section.get("identifiers", []):
            symbol = identifier.split("/documentation/", 1)[-1]
            if not section.get("generated"):
                curated.add(symbol)
            elif not symbol.endswith("-Implementations"):
                generated.setdefault(symbol, f"{name}, \"{section.get('title')}\"")
uncurated = sorted(f"{symbol} (in {where})" for symbol, where in generated.items() if symbol not in curated)
if uncurated:
    print("public symbols in no curated topic group (name them in a page's ## Topics):", file=sys.stderr)
    print("\n".join(uncurated), file=sys.stderr)
    sys.exit(1)
EOF
echo "docs: $site/${base:+$base/}{Events,EventsSVG,EventsRedisClient,EventsRedis,EventsTesting}"
