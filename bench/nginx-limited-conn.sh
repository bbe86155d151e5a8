#!/usr/bin/env bash
# Benchmark (not a test): HttpArena's limited-conn profile and an overload ramp against nginx, a
# server nobody here wrote.
#
# nginx (Debian's nginx-light) is started here on loopback with one worker pinned to CPU 1,
# answering a small static body; restbench load runs on CPU 0. Three shapes take turns ROUNDS
# times so that the machine's drift lands on each alike: keep-alive for the whole run,
# `--requests-per-connection 10` (a new connection every ten answers), and `--no-keepalive` (one
# per request). Each run's req/s, p50 and p99 of requests (connects excluded), the connects'
# p50/p99 and count, and nginx's CPU per request (from its cgroup-free /proc counters); then
# per shape the median req/s and its ratio to keep-alive. Last, one open-loop ramp
# `-R RAMP_FROM:RAMP_TO` over RAMP_SECS seconds, read as latency against the offered rate with
# the stretch where its p99 passed KNEE (restbench's "Broke at").
#
# usage: bench/nginx-limited-conn.sh
#   ROUNDS=3 SECS=5 CONNS=64 RAMP_FROM=5000 RAMP_TO=120000 RAMP_SECS=20 KNEE=10ms (the defaults)
#   RESTBENCH=path  measure another restbench build instead of this tree's release binary
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3} SECS=${SECS:-5} CONNS=${CONNS:-64}
RAMP_FROM=${RAMP_FROM:-5000} RAMP_TO=${RAMP_TO:-120000} RAMP_SECS=${RAMP_SECS:-20} KNEE=${KNEE:-10ms}
if ! command -v nginx >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y nginx-light >/dev/null
  else
    echo "nginx is not installed (sudo apt-get install -y nginx-light)" >&2
    exit 1
  fi
fi
for tool in jq taskset python3; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed" >&2; exit 1; }
done
if [ "$(nproc)" -ge 2 ]; then SERVER_CPU=1; else SERVER_CPU=0; fi
LOAD_CPU=0
if [ -z "${RESTBENCH:-}" ]; then
  cargo build --release --quiet -p restbench
  RESTBENCH=${CARGO_TARGET_DIR:-target}/release/restbench
fi
TMP=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$TMP/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $TMP/nginx.pid;
error_log $TMP/error.log warn;
worker_rlimit_nofile 65536;
events { worker_connections 16384; }
http {
  access_log off;
  keepalive_requests 1000000000;
  keepalive_timeout 600s;
  client_body_temp_path $TMP/body;
  proxy_temp_path $TMP/proxy;
  fastcgi_temp_path $TMP/fastcgi;
  uwsgi_temp_path $TMP/uwsgi;
  scgi_temp_path $TMP/scgi;
  server {
    listen 127.0.0.1:$PORT backlog=4096;
    location / { default_type text/plain; return 200 "Hello, World!"; }
  }
}
CONF
taskset -c "$SERVER_CPU" nginx -c "$TMP/nginx.conf" -p "$TMP" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.1
done
URL="http://127.0.0.1:$PORT/"
# nginx's master and worker: their CPU ticks (utime + stime) from /proc, summed.
nginx_ticks() {
  local total=0 pid
  for pid in $(pgrep -f "nginx -c $TMP/nginx.conf") $(pgrep -P "$SERVER" 2>/dev/null); do
    [ -r "/proc/$pid/stat" ] || continue
    total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat")))
  done
  echo "$total"
}
TICK=$(getconf CLK_TCK)
echo "nginx $(nginx -v 2>&1 | sed 's/.*\///') on CPU $SERVER_CPU, restbench load on CPU $LOAD_CPU;" \
  "-c $CONNS -t 1 -d ${SECS}s, $ROUNDS rounds of each shape"
printf "%-6s %-22s %10s %9s %9s %12s %12s %9s\n" round shape "req/s" "p50 µs" "p99 µs" \
  "connect p50" "connects" "nginx µs/req"
declare -A RPS
shapes=("keep-alive" "per-connection-10" "no-keepalive")
flags_of() {
  case "$1" in
    keep-alive) echo "" ;;
    per-connection-10) echo "--requests-per-connection 10" ;;
    no-keepalive) echo "--no-keepalive" ;;
  esac
}
for round in $(seq "$ROUNDS"); do
  for shape in "${shapes[@]}"; do
    before=$(nginx_ticks)
    # shellcheck disable=SC2046
    taskset -c "$LOAD_CPU" "$RESTBENCH" load -q -c "$CONNS" -t 1 -d "${SECS}s" $(flags_of "$shape") \
      --json "$TMP/run.json" "$URL" >/dev/null || true
    after=$(nginx_ticks)
    jq -r --arg round "$round" --arg shape "$shape" --argjson ticks "$((after - before))" \
      --argjson hz "$TICK" '
      [$round, $shape, (.rps | floor), .latency_us.p50, .latency_us.p99,
       ((.connect_us.p50 // "-") | tostring), .connections_opened,
       (if .requests > 0 then ($ticks / $hz * 1e6 / .requests * 100 | floor) / 100 else "-" end)]
      | @tsv' "$TMP/run.json" |
      awk -F'\t' '{ printf "%-6s %-22s %10s %9s %9s %12s %12s %9s\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
    RPS[$shape]+="$(jq -r .rps "$TMP/run.json") "
  done
done
echo
echo "median req/s of each shape, and its ratio to keep-alive in the same rounds:"
python3 - "${RPS[keep-alive]}" "${RPS[per-connection-10]}" "${RPS[no-keepalive]}" <<'PY'
import statistics, sys
names = ["keep-alive", "per-connection-10", "no-keepalive"]
runs = [[float(x) for x in a.split()] for a in sys.argv[1:]]
base = runs[0]
for name, r in zip(names, runs):
    ratios = [x / b for x, b in zip(r, base)]
    print(f"  {name:<20} {statistics.median(r):>10.0f} req/s   ratio {statistics.median(ratios):.3f}"
          f" (rounds {min(ratios):.3f}-{max(ratios):.3f})")
PY
echo
echo "ramp: -R $RAMP_FROM:$RAMP_TO over ${RAMP_SECS}s, p99 limit $KNEE, -c $CONNS:"
taskset -c "$LOAD_CPU" "$RESTBENCH" load -c "$CONNS" -t 1 -d "${RAMP_SECS}s" -R "$RAMP_FROM:$RAMP_TO" \
  --knee-p99 "$KNEE" --plain --json "$TMP/ramp.json" "$URL" 2>/dev/null |
  sed -n '/Ramp /,/Broke at\|Kept up/p' || true
