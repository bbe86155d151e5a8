#!/usr/bin/env bash
# Benchmark (not a test): restbench load against wrk, side by side, on the same minimal server.
#
# The server (a single-threaded epoll hello server) is pinned to one core and the generator to
# the other; wrk and restbench take turns with the same connections and threads, ROUNDS times,
# so that drift on a shared machine hits both alike. Prints each run's req/s, the median ratio
# restbench/wrk, and restbench's own CPU microseconds per request.
#
# usage: bench/loadgen-vs-wrk.sh [CONNECTIONS] [THREADS] [SECONDS] [ROUNDS] [PIPELINE]
set -euo pipefail
cd "$(dirname "$0")/.."
CONNS=${1:-10} THREADS=${2:-1} SECS=${3:-5} ROUNDS=${4:-3} PIPELINE=${5:-1}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq is not installed (apt-get install jq)" >&2; exit 1; }
CORES=$(nproc)
if [ "$CORES" -ge 2 ]; then SERVER_CPU=1; LOAD_CPU=0; else SERVER_CPU=0; LOAD_CPU=0; fi
# Two builds: `--example` alone would build only the example, not restbench's binary.
cargo build --release --quiet -p restbench
cargo build --release --quiet -p restbench-loadgen --example hello_server
TARGET=${CARGO_TARGET_DIR:-target}
TMP=$(mktemp -d)
taskset -c "$SERVER_CPU" "$TARGET/release/examples/hello_server" 0 >"$TMP/port" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$TMP/port")/"
WRK_SCRIPT=""
if [ "$PIPELINE" -gt 1 ]; then
  cat >"$TMP/pipeline.lua" <<LUA
init = function(args)
  local r = {}
  for i = 1, $PIPELINE do r[i] = wrk.format() end
  req = table.concat(r)
end
request = function() return req end
LUA
  WRK_SCRIPT="-s $TMP/pipeline.lua"
fi
echo "server on CPU $SERVER_CPU, generators on CPU $LOAD_CPU; -c $CONNS -t $THREADS -d ${SECS}s, pipeline $PIPELINE, $ROUNDS rounds"
printf "%-6s %14s %14s %8s %18s\n" round "wrk req/s" "restbench" ratio "restbench µs/req"
ratios=() cpus=()
for round in $(seq "$ROUNDS"); do
  # shellcheck disable=SC2086
  w=$(taskset -c "$LOAD_CPU" wrk -t"$THREADS" -c"$CONNS" -d"${SECS}s" $WRK_SCRIPT "$URL" | awk '/Requests\/sec/ {print $2}')
  taskset -c "$LOAD_CPU" "$TARGET/release/restbench" load -t "$THREADS" -c "$CONNS" -d "${SECS}s" \
    --pipeline "$PIPELINE" --json "$TMP/r.json" "$URL" >/dev/null
  r=$(jq .rps "$TMP/r.json"); us=$(jq .loadgen_cpu.us_per_request "$TMP/r.json")
  ratio=$(awk -v a="$r" -v b="$w" 'BEGIN { printf "%.2f", a / b }')
  ratios+=("$ratio") cpus+=("$us")
  printf "%-6s %14.0f %14.0f %8s %18.2f\n" "$round" "$w" "$r" "$ratio" "$us"
done
median() { printf "%s\n" "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "median ratio restbench/wrk: $(median "${ratios[@]}")"
echo "median restbench µs/req: $(median "${cpus[@]}")"
