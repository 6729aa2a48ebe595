#!/usr/bin/env bash
# The fault campaign: random fault schedules (Redis killed and restarted, failovers, slot
# migrations, consumers killed and paused, the publisher killed and started again on its
# durable outbox, the network stalled, slowed, black-holed and reset) over real redis-server
# processes in three topologies, each history checked afterwards.
#
#   scripts/fault-campaign.sh                         # 3 schedules per topology, random seed
#   scripts/fault-campaign.sh --schedules 100         # the long run; prints a summary table
#   scripts/fault-campaign.sh --topology cluster --seed 3001   # one schedule again
#   scripts/fault-campaign.sh --length 10             # seconds of faults per schedule (6)
#
# Needs redis-server on the PATH. A schedule that breaks a promise prints its seed, what the
# nemesis did, each violation with the records that show it, and the command that runs it
# again; the script then exits 1. CI runs a few fixed seeds as tests (FaultCampaignTests).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v redis-server >/dev/null || { echo "redis-server is not installed" >&2; exit 2; }
swift build --product events-fault-campaign -c release >/dev/null
exec "$(swift build -c release --show-bin-path)/events-fault-campaign" "$@"
