#!/usr/bin/env bash
# Coverage-guided fuzzing of the decoders of outside input, with libFuzzer and the address
# sanitizer (see Fuzz/README.md).
#
#   scripts/fuzz.sh list                         the targets
#   scripts/fuzz.sh <target|all> <seconds>       build (debug, -Onone) and fuzz each for <seconds>
#   scripts/fuzz.sh <target|all> <seconds> --release     the same, built with -O
#   scripts/fuzz.sh <target|all> 0               build, then replay the corpus and regressions only
#
# Each run first replays Fuzz/Regressions/<target>/ (every input once) and then fuzzes, starting
# from Fuzz/Corpus/<target>/; new inputs go to .build/fuzz/corpus/<target>/, crashes to
# .build/fuzz/artifacts/. The exit status is nonzero when a target crashes, fails a check,
# leaks past the memory limit or times out on an input.
#
# The targets are not part of Package.swift: each is one small module that links the libraries,
# built here with -enable-testing, and reaches their internal entry points with `@testable import`.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(wirejson rfc3339 envelope batch resp named)

usage() {
    echo "usage: scripts/fuzz.sh <list|all|$(IFS='|'; echo "${targets[*]}")> [seconds] [--release]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
what="$1"
shift
seconds=30
if [ $# -ge 1 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
    seconds="$1"
    shift
fi
configuration=debug
while [ $# -gt 0 ]; do
    case "$1" in
        --release) configuration=release ;;
        *) usage ;;
    esac
    shift
done

if [ "$what" = "list" ]; then
    printf '%s\n' "${targets[@]}"
    exit 0
fi
if [ "$what" = "all" ]; then
    selected=("${targets[@]}")
else
    selected=()
    for target in "${targets[@]}"; do
        [ "$target" = "$what" ] && selected=("$target")
    done
    [ ${#selected[@]} -eq 1 ] || usage
fi

# The toolchain's compiler-rt must hold libFuzzer; say so plainly when it does not.
resource_dir="$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib"
if ! find "$resource_dir" -name 'libclang_rt.fuzzer-*.a' 2>/dev/null | grep -q .; then
    echo "this toolchain has no libFuzzer runtime (libclang_rt.fuzzer-*.a under $resource_dir)" >&2
    exit 1
fi

if [ "$configuration" = release ]; then optimization=-O; else optimization=-Onone; fi
out=".build/fuzz/$configuration"
mkdir -p "$out" .build/fuzz/artifacts

common=(-swift-version 6 -enable-upcoming-feature ExistentialAny -parse-as-library -package-name swift_events -g "$optimization"
    -sanitize=fuzzer,address -module-cache-path .build/fuzz/module-cache)

# Build output goes to a log shown only on failure: the linker warns about every sanitizer
# helper symbol it cannot export, harmlessly.
# A source list is rebuilt only when one of its files is newer than the binary.
stale() {
    local binary="$1"
    shift
    [ -e "$binary" ] || return 0
    [ -n "$(find "$@" -newer "$binary" -print -quit)" ]
}

events_sources=$(find Sources/Events -name '*.swift' | sort)
client_sources=$(find Sources/EventsRedisClient -name '*.swift' | sort)
redis_sources=$(find Sources/EventsRedis -name '*.swift' | sort)
support=Fuzz/Support/FuzzSupport.swift

# The three libraries (Events, the Redis client, the bridge) are built once, with -enable-testing, and each target is a small module that
# reaches their internal entry points with `@testable import`: building the libraries' sources
# into every target took most of a run's time.
build_library() {
    local module="$1" sources="$2"
    shift 2
    # shellcheck disable=SC2086
    if stale "$out/lib$module.a" $sources "$@"; then
        echo "== building the $module module ($configuration)"
        # shellcheck disable=SC2086
        swiftc "${common[@]}" -enable-testing -module-name "$module" -I "$out" \
            -emit-module -emit-module-path "$out/$module.swiftmodule" \
            -emit-library -static -o "$out/lib$module.a" $sources >"$out/build-$module.log" 2>&1 \
            || { cat "$out/build-$module.log"; exit 1; }
    fi
}

target_file() {
    case "$1" in
        wirejson) echo Fuzz/Targets/WireJSONTarget.swift ;;
        rfc3339) echo "Fuzz/Targets/RFC3339Target.swift Fuzz/Targets/StrictRFC3339.swift" ;;
        envelope) echo Fuzz/Targets/EnvelopeTarget.swift ;;
        batch) echo Fuzz/Targets/BatchTarget.swift ;;
        resp) echo Fuzz/Targets/RESPTarget.swift ;;
        named) echo Fuzz/Targets/NamedTarget.swift ;;
    esac
}

build_target() {
    local target="$1" binary="$out/fuzz-$1"
    local files
    files=$(target_file "$target")
    build_library Events "$events_sources"
    build_library EventsRedisClient "$client_sources"
    build_library EventsRedis "$redis_sources" "$out/libEvents.a" "$out/libEventsRedisClient.a"
    # shellcheck disable=SC2086
    if stale "$binary" $files $support "$out/libEvents.a" "$out/libEventsRedisClient.a" "$out/libEventsRedis.a"; then
        echo "== building $target ($configuration)"
        # shellcheck disable=SC2086
        swiftc "${common[@]}" -module-name "Fuzz_$target" -I "$out" -L "$out" -lEventsRedis -lEventsRedisClient -lEvents \
            $files $support -o "$binary" >"$out/build-$target.log" 2>&1 \
            || { cat "$out/build-$target.log"; exit 1; }
    fi
}

# libFuzzer reports the failing input; the Swift runtime's backtracer, which runs after it,
# would only add noise (and trips the address sanitizer while it reads the crashed stack).
export SWIFT_BACKTRACE=enable=no
failed=()
for target in "${selected[@]}"; do
    build_target "$target"
    binary="$out/fuzz-$target"
    # Inputs run on the main thread. A document nested a few hundred levels deep makes the
    # targets' recursive `Decodable` types (and Foundation's decoder, their reference) recurse as
    # deep, and -Onone frames with the address sanitizer's red zones are many times larger than
    # release ones: the default stack of 8 MiB is not enough in a debug build. The bridge's own
    # readers are iterative, and DeepNestingTests hold them to a small thread stack.
    ulimit -s 262144 2>/dev/null || ulimit -s unlimited 2>/dev/null || true
    corpus=".build/fuzz/corpus/$target"
    mkdir -p "$corpus" "Fuzz/Corpus/$target" "Fuzz/Regressions/$target"
    dictionary=()
    [ -f "Fuzz/Dictionaries/$target.dict" ] && dictionary=(-dict="Fuzz/Dictionaries/$target.dict")
    options=(-timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1
        -artifact_prefix=".build/fuzz/artifacts/$configuration-$target-")
    regressions=$(find "Fuzz/Regressions/$target" -type f ! -name '*.md' | sort)
    if [ -n "$regressions" ]; then
        echo "== $target: replaying $(echo "$regressions" | wc -l) regression inputs"
        # shellcheck disable=SC2086
        if ! ASAN_OPTIONS=detect_leaks=0 "$binary" "${options[@]}" $regressions >"$out/$target-regressions.log" 2>&1; then
            tail -n 30 "$out/$target-regressions.log"
            failed+=("$target (regressions)")
            continue
        fi
    fi
    echo "== $target: fuzzing for ${seconds}s ($configuration)"
    # Leak detection is off: the Swift runtime keeps metadata caches and the spare coders alive
    # on purpose, which LeakSanitizer would report at exit.
    if [ "$seconds" -gt 0 ]; then
        run=(-max_total_time="$seconds")
    else
        run=(-runs=0)
    fi
    if ASAN_OPTIONS=detect_leaks=0 "$binary" "${options[@]}" "${dictionary[@]}" "${run[@]}" \
        "$corpus" "Fuzz/Corpus/$target" >"$out/$target.log" 2>&1; then
        grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added)|cov:" \
            "$out/$target.log" | tail -n 4
    else
        tail -n 40 "$out/$target.log"
        failed+=("$target")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing failed: ${failed[*]} (inputs in .build/fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzzing passed: ${selected[*]}"
