#!/usr/bin/env bash
# The long run of the model-based tests, not part of `swift test`'s default length: the center
# against the reference model for many operations in every context, and the concurrent model.
# A divergence prints its seed and the shortest history that shows it; replay it with
# EVENTS_MODEL_SEED.
#
#   bash scripts/model.sh                      a million operations per run
#   bash scripts/model.sh 5000000              five million
#   EVENTS_MODEL_SEED=0x1234 bash scripts/model.sh 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
operations="${1:-1000000}"
case "$operations" in
    '' | *[!0-9_]*) echo "usage: scripts/model.sh [operations]" >&2; exit 2 ;;
esac
export EVENTS_MODEL_OPS="$operations"
exec swift test --filter 'CoreModelTests|ConcurrentModelTests'
