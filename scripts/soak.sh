#!/usr/bin/env bash
# The soak run, not part of `swift test`: ten million dispatches on two threads while a third
# thread registers and ends listeners in every context (posting thread, queues, an operation
# queue, the background queue, actors, the main actor; with and without owner, key and once;
# ended by cancel(), remove and owner death). It samples resident memory, and fails when the
# samples after a warm-up spread wider than the bound, when a permanent listener missed or
# doubled a dispatch, or when a churned listener is left over.
#
#   bash scripts/soak.sh                       ten million dispatches, bound 12 MB
#   bash scripts/soak.sh --dispatches 30000000 --samples 30 --bound-mb 12
set -euo pipefail
cd "$(dirname "$0")/.."
exec swift run -c release events-soak "$@"
