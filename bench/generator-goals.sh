#!/usr/bin/env bash
# Benchmark (not a test): is the generator ahead of wrk? (issue 15, goal 3)
#
# Runs bench/loadgen-vs-wrk.sh once per load shape and prints, per shape, the median ratio
# restbench req/s ÷ wrk req/s, the goal it must meet, and restbench's own CPU µs per request.
# The generators share one core (CPU 0) and the hello server has the other, as in
# loadgen-vs-wrk.sh. Shapes are "CONNECTIONS THREADS PIPELINE GOAL" lines:
#   10 1 1 1.3     wrk's default connections, one thread
#   64 1 1 1.3     restbench run's default connections
#   64 1 16 1.3    the same, 16 requests pipelined per connection
#   512 8 1 1.0    seed 004's shape (wrk -t8 -c512), eight threads on one core
#
# usage: bench/generator-goals.sh [SECONDS] [ROUNDS]   (defaults 5 and 3)
#        SHAPES="10 1 1 1.3" bench/generator-goals.sh 1 1   (other shapes, tiny smoke run)
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-5} ROUNDS=${2:-3}
SHAPES=${SHAPES:-"10 1 1 1.3
64 1 1 1.3
64 1 16 1.3
512 8 1 1.0"}

summary=()
while read -r conns threads pipeline goal; do
  [ -n "$conns" ] || continue
  echo "== -c $conns -t $threads --pipeline $pipeline"
  out=$(bench/loadgen-vs-wrk.sh "$conns" "$threads" "$SECS" "$ROUNDS" "$pipeline")
  # Printed after the shape, not tee'd to /dev/stderr: reopening a redirected stderr would
  # overwrite the same file from its start.
  printf "%s\n" "$out"
  ratio=$(awk -F': ' '/^median ratio/ {print $2}' <<<"$out")
  us=$(awk -F': ' '/^median restbench µs\/req/ {print $2}' <<<"$out")
  verdict=$(awk -v r="$ratio" -v g="$goal" 'BEGIN { print (r >= g ? "pass" : "FAIL") }')
  summary+=("$(printf "%-24s %8s %6s %6s %12.2f" "-c $conns -t $threads -p $pipeline" "$ratio" "≥$goal" "$verdict" "$us")")
done <<<"$SHAPES"

echo
printf "%-24s %8s %6s %6s %12s\n" shape "÷ wrk" goal "" "µs/req"
printf "%s\n" "${summary[@]}"
