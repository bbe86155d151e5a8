#!/usr/bin/env bash
# Benchmark (not a test): restbench load --http2 against h2load (nghttp2) on the same h2c server.
#
# The server is nghttpd (Debian's nghttp2-server) serving one small file over h2c, pinned to one
# core; the generators take turns on the other (A B A B ...) with the same connections, threads
# and streams per connection, ROUNDS times, so that drift on a shared machine hits both alike.
# Each generator runs under /usr/bin/time, so its CPU (user + system) per answered request is
# measured the same way for both. Prints each run's req/s and µs/request and the median ratio.
#
# usage: bench/loadgen-vs-h2load.sh [CONNECTIONS] [THREADS] [SECONDS] [ROUNDS] [STREAMS]
set -euo pipefail
cd "$(dirname "$0")/.."
CONNS=${1:-10} THREADS=${2:-1} SECS=${3:-5} ROUNDS=${4:-3} STREAMS=${5:-10}
for tool in h2load nghttpd jq; do
  command -v "$tool" >/dev/null || {
    echo "$tool is not installed (apt-get install nghttp2-client nghttp2-server jq)" >&2
    exit 1
  }
done
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed (apt-get install time)" >&2; exit 1; }
CORES=$(nproc)
if [ "$CORES" -ge 2 ]; then SERVER_CPU=1; LOAD_CPU=0; else SERVER_CPU=0; LOAD_CPU=0; fi
cargo build --release --quiet -p restbench
BIN=${CARGO_TARGET_DIR:-target}/release/restbench
TMP=$(mktemp -d)
mkdir -p "$TMP/www"
printf 'Hello, World!' >"$TMP/www/plaintext"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
taskset -c "$SERVER_CPU" nghttpd --no-tls -a 127.0.0.1 -d "$TMP/www" "$PORT" >/dev/null 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.1
done
URL="http://127.0.0.1:$PORT/plaintext"
cpu_us_per_req() { # time file, answered requests
  awk -v n="$2" '{ printf "%.2f", ($1 + $2) * 1e6 / (n > 0 ? n : 1) }' "$1"
}
echo "nghttpd on CPU $SERVER_CPU, generators on CPU $LOAD_CPU; -c $CONNS -t $THREADS -m $STREAMS -d ${SECS}s, $ROUNDS rounds"
printf "%-6s %12s %10s %12s %10s %8s\n" round "h2load r/s" "µs/req" "restbench" "µs/req" ratio
ratios=()
for round in $(seq "$ROUNDS"); do
  taskset -c "$LOAD_CPU" /usr/bin/time -f '%U %S' -o "$TMP/h.time" \
    h2load -c "$CONNS" -t "$THREADS" -m "$STREAMS" -D "$SECS" "$URL" >"$TMP/h.out" 2>&1
  h=$(awk '/^finished in/ {print $4}' "$TMP/h.out")
  hn=$(awk '/^requests:/ {print $8}' "$TMP/h.out")
  hus=$(cpu_us_per_req "$TMP/h.time" "$hn")
  taskset -c "$LOAD_CPU" /usr/bin/time -f '%U %S' -o "$TMP/r.time" \
    "$BIN" load --http2 -c "$CONNS" -t "$THREADS" --max-streams "$STREAMS" \
    -d "${SECS}s" --json "$TMP/r.json" "$URL" >/dev/null
  r=$(jq .rps "$TMP/r.json")
  rn=$(jq .requests "$TMP/r.json")
  rus=$(cpu_us_per_req "$TMP/r.time" "$rn")
  ratio=$(awk -v a="$r" -v b="$h" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
  ratios+=("$ratio")
  printf "%-6s %12.0f %10s %12.0f %10s %8s\n" "$round" "$h" "$hus" "$r" "$rus" "$ratio"
done
median=$(printf "%s\n" "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
echo "median ratio restbench/h2load (req/s): $median"
