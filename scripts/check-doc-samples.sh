#!/usr/bin/env bash
# Compiles the Swift code samples of the README and of every DocC article, so that no sample
# a reader copies has stopped compiling.
#
#   bash scripts/check-doc-samples.sh              README.md and Sources/*/*.docc/**/*.md
#   bash scripts/check-doc-samples.sh FILE.md ...  only those files
#
# The convention: all ```swift blocks of one Markdown file, in order, form the main.swift of
# one executable that depends on the products Events, EventsSVG, EventsRedisClient, EventsRedis,
# EventsRedisTLS and EventsTesting (whose samples import Testing as a test would, and may
# declare @Test functions: an executable can link Swift Testing, and its tests are only
# compiled, never run), so a file's samples may build on each other but must not declare a
# top-level name twice, and they import what they use. A block that is deliberately not
# compiled (Apple-only UIKit or SwiftUI code, a fragment such as a signature) has the line
# `<!-- not compiled: reason -->` right before its fence.
#
# Samples that show how to feed the bridge's statistics and log to swift-metrics and swift-log
# import `Metrics` and `Logging`. Those packages cannot be fetched here (SwiftPM builds with the
# toolchain only), so the scratch package has two small stand-in modules under those names:
# signature stand-ins, declaring only the API the samples use, spelled exactly as the real
# packages spell it, with bodies that do nothing. They let the samples be type-checked; they
# are not those libraries, and only this scratch package sees them. A sample that uses more of
# either package needs its signature added here, copied from the real package's API.
#
# Each file becomes one executable target of a scratch package in .build/doc-samples, which
# depends on this repository by path; one `swift build` compiles them all. `#sourceLocation`
# lines point every diagnostic at the Markdown file and line it comes from. The scratch package
# keeps its own build folder between runs, so a second run only compiles what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scratch=.build/doc-samples

if [ "$#" -gt 0 ]; then
    files=("$@")
else
    files=()
    [ -f README.md ] && files+=(README.md)
    while IFS= read -r file; do files+=("$file"); done < <(find Sources -path "*.docc/*" -name "*.md" | sort)
fi

mkdir -p "$scratch/Sources"
# Stand-in modules are written through this, unchanged files kept, so that they compile once.
write_if_changed() {
    mkdir -p "$(dirname "$1")"
    if cmp -s "$1.new" "$1" 2>/dev/null; then rm "$1.new"; else mv "$1.new" "$1"; fi
}
standins=(Metrics Logging)

# Signature stand-in for swift-metrics (github.com/apple/swift-metrics, module Metrics).
mkdir -p "$scratch/Sources/Metrics"
cat > "$scratch/Sources/Metrics/Metrics.swift.new" <<'SWIFT'
// Signature stand-in for swift-metrics, written by scripts/check-doc-samples.sh so that the
// documentation samples type-check without the package. Not the library: bodies do nothing.
public final class Counter: Sendable {
    public init(label: String, dimensions: [(String, String)] = []) {}
    public func increment<DataType: BinaryInteger>(by amount: DataType) {}
    public func increment() {}
}

public class Recorder: @unchecked Sendable {
    public init(label: String, dimensions: [(String, String)] = [], aggregate: Bool = true) {}
    public func record<DataType: BinaryInteger>(_ value: DataType) {}
    public func record<DataType: BinaryFloatingPoint>(_ value: DataType) {}
}

public final class Gauge: Recorder, @unchecked Sendable {
    public convenience init(label: String, dimensions: [(String, String)] = []) {
        self.init(label: label, dimensions: dimensions, aggregate: false)
    }
}
SWIFT
write_if_changed "$scratch/Sources/Metrics/Metrics.swift"

# Signature stand-in for swift-log (github.com/apple/swift-log, module Logging).
mkdir -p "$scratch/Sources/Logging"
cat > "$scratch/Sources/Logging/Logging.swift.new" <<'SWIFT'
// Signature stand-in for swift-log, written by scripts/check-doc-samples.sh so that the
// documentation samples type-check without the package. Not the library: it logs nothing.
public struct Logger: Sendable {
    public let label: String

    public init(label: String) { self.label = label }

    public enum Level: String, Sendable, Hashable, CaseIterable, Codable {
        case trace, debug, info, notice, warning, error, critical
    }

    public typealias Metadata = [String: MetadataValue]

    public enum MetadataValue: Sendable, Equatable {
        case string(String)
        case dictionary(Metadata)
        case array([MetadataValue])
    }

    public struct Message: ExpressibleByStringLiteral, ExpressibleByStringInterpolation, Sendable {
        public init(stringLiteral value: String) {}
    }

    public func log(
        level: Level, _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {}
}
SWIFT
write_if_changed "$scratch/Sources/Logging/Logging.swift"
# targets[i] is the target made of the samples of sources[i] (plain arrays: macOS's bash 3).
targets=()
sources=()

for file in "${files[@]}"; do
    # A target name per file: its path without the extension, letters and digits only.
    name=$(printf '%s' "${file%.md}" | sed -E 's/[^A-Za-z0-9]+/_/g; s/^_+//')
    name="Sample_$name"
    mkdir -p "$scratch/Sources/$name"
    # Writes the compiled blocks in order, each behind a #sourceLocation naming the Markdown
    # line its first line came from. A fence may be indented (inside a list item): the block's
    # lines lose that indentation.
    awk -v path="$root/$file" '
        function trimmed(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
        {
            line = $0
            if (!inside) {
                if (match(line, /^[ \t]*```+[ \t]*swift[ \t]*$/)) {
                    inside = 1
                    match(line, /^[ \t]*/); indent = RLENGTH
                    skip = (previous ~ /^<!--[ \t]*not compiled:.*-->$/)
                    if (!skip) {
                        printf "#sourceLocation(file: \"%s\", line: %d)\n", path, NR + 1
                        blocks++
                    }
                } else if (trimmed(line) != "") {
                    previous = trimmed(line)
                }
                next
            }
            if (match(line, /^[ \t]*```+[ \t]*$/)) {
                inside = 0
                previous = ""
                if (!skip) print "#sourceLocation()"
                next
            }
            if (!skip) {
                # Drop the fence indentation, but never more than the leading blanks there are.
                n = 0
                while (n < indent && substr(line, n + 1, 1) ~ /[ \t]/) n++
                print substr(line, n + 1)
            }
        }
        END { if (inside) { print "unterminated ```swift block in " path > "/dev/stderr"; exit 1 } }
    ' "$file" > "$scratch/main.swift.new"
    if ! grep -q '^#sourceLocation(file' "$scratch/main.swift.new"; then
        rm -rf "${scratch:?}/Sources/$name"
        continue
    fi
    # Unchanged samples keep their file, so that an unchanged target is not compiled again.
    if cmp -s "$scratch/main.swift.new" "$scratch/Sources/$name/main.swift"; then
        rm "$scratch/main.swift.new"
    else
        mv "$scratch/main.swift.new" "$scratch/Sources/$name/main.swift"
    fi
    targets+=("$name")
    sources+=("$file")
done

# Targets of files that are gone, or have no samples any more, go too.
for directory in "$scratch"/Sources/*/; do
    [ -d "$directory" ] || continue
    name=$(basename "$directory")
    case " ${targets[*]-} ${standins[*]} " in
        *" $name "*) ;;
        *) rm -rf "${scratch:?}/Sources/$name" ;;
    esac
done

if [ "${#targets[@]}" -eq 0 ]; then
    echo "no Swift samples to compile"
    exit 0
fi

# The path dependency's identity is the name of the repository's folder.
identity=$(basename "$root" | tr '[:upper:]' '[:lower:]')
{
    echo "// swift-tools-version: 6.2"
    echo "// Generated by scripts/check-doc-samples.sh; every run writes it again."
    echo "import PackageDescription"
    echo "let samples = ["
    for name in "${targets[@]}"; do echo "    \"$name\","; done
    echo "]"
    echo "let package = Package("
    echo "    name: \"doc-samples\","
    echo "    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],"
    echo "    dependencies: [.package(path: \"../..\")],"
    echo "    targets: ["
    echo "        // Signature stand-ins for swift-metrics and swift-log (see the script)."
    echo "        .target(name: \"Metrics\"),"
    echo "        .target(name: \"Logging\"),"
    echo "    ] + samples.map { name in"
    echo "        .executableTarget("
    echo "            name: name,"
    echo "            dependencies: ["
    echo "                .product(name: \"Events\", package: \"$identity\"),"
    echo "                .product(name: \"EventsSVG\", package: \"$identity\"),"
    echo "                .product(name: \"EventsRedisClient\", package: \"$identity\"),"
    echo "                .product(name: \"EventsRedis\", package: \"$identity\"),"
    echo "                .product(name: \"EventsRedisTLS\", package: \"$identity\"),"
    echo "                .product(name: \"EventsTesting\", package: \"$identity\"),"
    echo "                \"Metrics\","
    echo "                \"Logging\","
    echo "            ])"
    echo "    },"
    echo "    swiftLanguageModes: [.v6]"
    echo ")"
} > "$scratch/Package.swift.new"
if cmp -s "$scratch/Package.swift.new" "$scratch/Package.swift"; then
    rm "$scratch/Package.swift.new"
else
    mv "$scratch/Package.swift.new" "$scratch/Package.swift"
fi

echo "compiling the Swift samples of ${#targets[@]} Markdown files"
if (cd "$scratch" && swift build 2>&1) > "$scratch/build.log"; then
    for file in "${sources[@]}"; do echo "  ok  $file"; done
    exit 0
fi

# A failed build stops at the first failing target: build each one alone to name every file
# whose samples fail. The compiler's lines already point into the Markdown.
failed=0
for index in "${!targets[@]}"; do
    name=${targets[$index]}
    if ! (cd "$scratch" && swift build --target "$name" 2>&1) > "$scratch/$name.log"; then
        grep -E "^[^ ].*:[0-9]+:[0-9]+: error:" "$scratch/$name.log" | sort -u >&2 || true
        echo "FAILED  ${sources[$index]}" >&2
        failed=1
    fi
done
if [ "$failed" = 0 ]; then
    # No sample failed alone: the package itself did (show its log).
    cat "$scratch/build.log" >&2
    echo "FAILED  the samples' package did not build (log: $scratch/build.log)" >&2
fi
exit 1
