#!/usr/bin/env bash
# Checks that the public API of every library product still holds what the last release
# offered: `swift package diagnose-api-breaking-changes` against the release recorded in
# .ci/api-baseline (a commit), product by product.
#
#   bash scripts/check-api.sh
#
# A break passes only when CHANGELOG.md announces it: under a version heading whose major
# version is above the baseline's (`## [1.0.0] - ...` after 0.x), in a `### Breaking changes`
# section that names each broken declaration. CONTRIBUTING.md says how to move the baseline
# at a release.
set -euo pipefail
cd "$(dirname "$0")/.."

baseline_file=.ci/api-baseline
[ -f "$baseline_file" ] || { echo "no API baseline: $baseline_file is missing" >&2; exit 1; }
# The file holds `<commit> <version>`, one line; lines starting with # are comments.
read -r baseline version < <(grep -v '^#' "$baseline_file" | grep -v '^[[:space:]]*$' | head -n 1)
[ -n "${baseline:-}" ] && [ -n "${version:-}" ] || { echo "$baseline_file must hold '<commit> <version>'" >&2; exit 1; }

# A shallow clone may not hold the baseline commit: ask the remote for it.
if ! git cat-file -e "$baseline^{commit}" 2>/dev/null; then
    git fetch --quiet --unshallow 2>/dev/null || git fetch --quiet origin "$baseline" 2>/dev/null || true
fi
git cat-file -e "$baseline^{commit}" 2>/dev/null || {
    echo "the API baseline $baseline (version $version) is not in this clone's history" >&2
    exit 1
}

# The library products of the baseline: a product added since has nothing to be compared with.
products=$(git show "$baseline:Package.swift" | grep -oE '\.library\(name: "[A-Za-z0-9_]+"' | sed -E 's/.*"(.*)"/\1/')
echo "API baseline: $version at $baseline; products: $(echo $products)"

# The versions the CHANGELOG announces above the baseline's, and their breaking changes.
baseline_major=${version%%.*}
announced=$(python3 - "$baseline_major" <<'EOF'
import re, sys
major = int(sys.argv[1])
text = open("CHANGELOG.md").read()
sections = re.split(r"(?m)^## ", text)[1:]
out = []
for section in sections:
    heading, _, body = section.partition("\n")
    found = re.match(r"\[?(\d+)\.\d+\.\d+", heading)
    if not found or int(found.group(1)) <= major:
        continue
    breaking = re.search(r"(?ms)^### Breaking changes\n(.*?)(?=^### |\Z)", body)
    if breaking:
        out.append(breaking.group(1))
print("\n".join(out))
EOF
)

status=0
for product in $products; do
    log=$(mktemp)
    echo "== API of $product against $version"
    if swift package diagnose-api-breaking-changes "$baseline" --products "$product" >"$log" 2>&1; then
        grep -E "No breaking changes|API breakage" "$log" || tail -n 3 "$log"
        rm -f "$log"
        continue
    fi
    breaks=$(grep -E "API breakage: " "$log" | sed -E 's/.*API breakage: //' || true)
    if [ -z "$breaks" ]; then
        cat "$log" >&2
        echo "the API check of $product failed without naming a break" >&2
        status=1
        rm -f "$log"
        continue
    fi
    while IFS= read -r line; do
        # The broken declaration's name: `func EventCenter.listen(to:)` -> listen
        name=$(echo "$line" | sed -E 's/^[a-z ]*(func|var|let|struct|class|enum|protocol|case|init|subscript|typealias|associatedtype|accessor|constructor)? *//; s/^([A-Za-z0-9_]+\.)*//; s/[^A-Za-z0-9_].*//')
        if [ -n "$announced" ] && [ -n "$name" ] && grep -q -- "$name" <<<"$announced"; then
            echo "  announced: $line"
        else
            echo "  NOT ANNOUNCED: $line" >&2
            status=1
        fi
    done <<<"$breaks"
    rm -f "$log"
done

if [ "$status" != 0 ]; then
    echo "the public API breaks what $version offered; announce each break under a new major version's" >&2
    echo "'### Breaking changes' in CHANGELOG.md, or keep the old declaration (deprecated)" >&2
fi
exit "$status"
