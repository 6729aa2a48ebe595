#!/usr/bin/env bash
# Checks that the public API of every library product still holds what the last release
# offered: `swift package diagnose-api-breaking-changes` against the release recorded in
# .ci/api-baseline (a commit), for each library product the release had.
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

# The comparison builds the baseline from git: a copy of the sources without a repository has
# nothing to compare with, and says so rather than failing the build.
if ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "skipped: not a git repository, so the baseline $baseline ($version) cannot be checked out"
    exit 0
fi

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
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# One run for every product: the baseline is built once.
# shellcheck disable=SC2086
if swift package diagnose-api-breaking-changes "$baseline" --products $products >"$log" 2>&1; then
    grep -E "No breaking changes|breaking change" "$log" || tail -n 3 "$log"
    exit 0
fi
breaks=$(grep -E "API breakage: " "$log" | sed -E 's/.*API breakage: //' || true)
if [ -z "$breaks" ]; then
    cat "$log" >&2
    echo "the API check failed without naming a break" >&2
    exit 1
fi
grep -E "breaking change" "$log" || true
while IFS= read -r line; do
    # The broken declaration's name: `func EventCenter.listen(to:)` -> listen
    name=$(echo "$line" | sed -E 's/^[a-z ]*//; s/^([A-Za-z0-9_]+\.)*//; s/[^A-Za-z0-9_].*//')
    if [ -n "$announced" ] && [ -n "$name" ] && grep -q -- "$name" <<<"$announced"; then
        echo "  announced: $line"
    else
        echo "  NOT ANNOUNCED: $line" >&2
        status=1
    fi
done <<<"$breaks"

if [ "$status" != 0 ]; then
    echo "the public API breaks what $version offered; announce each break under a new major version's" >&2
    echo "'### Breaking changes' in CHANGELOG.md, or keep the old declaration (deprecated)" >&2
fi
exit "$status"
