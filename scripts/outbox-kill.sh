#!/usr/bin/env bash
# The outbox kill campaign: a publishing process with an outbox is killed with SIGKILL at
# random points (Redis up, Redis down, the file compacting; sync every event and every
# interval), started again on the same file, and the stream checked: nothing whose dispatch
# returned is lost, first arrivals keep their order, copies are suppressed by their id.
#
#   scripts/outbox-kill.sh                 # 50 rounds of each kind, a fixed seed
#   scripts/outbox-kill.sh 200 12345       # 200 rounds of each kind, seed 12345
#
# Needs redis-server on the PATH. Prints one line per kind with every round's figures.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v redis-server >/dev/null || { echo "redis-server is not installed" >&2; exit 2; }
swift build --build-tests >/dev/null
OUTBOX_KILL_ROUNDS="${1:-50}" OUTBOX_KILL_SEED="${2:-47905}" \
    swift test --skip-build --filter OutboxCrashTests 2>&1 | grep -E "outbox kill|✘|Test run"
