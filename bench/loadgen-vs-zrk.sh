#!/usr/bin/env bash
# Benchmark (not a test): restbench load's open loop against zrk (a wrk2 rewrite) on nginx.
#
# nginx (Debian's nginx-light) is started here on loopback with one worker pinned to CPU 1,
# answering `return 200` to every request; both generators run on CPU 0, with 64 connections and
# one thread, for SECS seconds at each rate, taking turns (zrk, restbench, zrk, ...) ROUNDS times
# so that drift on the machine lands on both alike. Each run is under /usr/bin/time, so each
# generator's CPU is measured the same way. Prints each run's p50, p90 (µs, from intended send
# times: coordinated omission corrected, both), the achieved rate and the generator's CPU (% of
# one core), then per rate the median p50 of each and their difference; restbench's own
# wake-up error (its send against the schedule) is shown beside it.
#
# usage: ZRK=/path/to/zrk bench/loadgen-vs-zrk.sh
#   RATES="20000 50000 80000 110000" ROUNDS=3 SECS=4 CONNS=64  (the defaults)
#   RESTBENCH=path  measure another restbench build (before/after a change) instead of
#                   building this tree's release binary
set -euo pipefail
cd "$(dirname "$0")/.."
RATES=${RATES:-"20000 50000 80000 110000"} ROUNDS=${ROUNDS:-3} SECS=${SECS:-4} CONNS=${CONNS:-64}
[ -n "${ZRK:-}" ] && [ -x "$ZRK" ] || {
  echo "give zrk's binary as ZRK=path (zrk 1.4.2: https://github.com/zoxy-io/zrk)" >&2
  exit 1
}
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
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed (apt-get install time)" >&2; exit 1; }
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
events { worker_connections 4096; }
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
    listen 127.0.0.1:$PORT;
    location / { return 200 "ok"; }
  }
}
CONF
# The master and its one worker on the server's CPU.
taskset -c "$SERVER_CPU" nginx -c "$TMP/nginx.conf" -p "$TMP" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.1
done
URL="http://127.0.0.1:$PORT/"
cpu_pct() { # /usr/bin/time file, seconds
  awk -v s="$1" '{ printf "%.0f", ($1 + $2) * 100 / s }' "$2"
}
echo "nginx $(nginx -v 2>&1 | sed 's/.*\///') on CPU $SERVER_CPU, generators on CPU $LOAD_CPU;" \
  "-c $CONNS -t 1 -d ${SECS}s, $ROUNDS rounds per rate"
echo "restbench: $RESTBENCH; zrk: $($ZRK --version 2>&1 | head -1)"
printf "%-8s %-5s %-10s %8s %8s %10s %6s %14s\n" rate round generator "p50 µs" "p90 µs" achieved "CPU %" "wake p50/p99"
SUMMARY=$TMP/summary
: >"$SUMMARY"
for rate in $RATES; do
  for round in $(seq "$ROUNDS"); do
    taskset -c "$LOAD_CPU" /usr/bin/time -f '%U %S' -o "$TMP/z.time" \
      "$ZRK" -t 1 -c "$CONNS" -d "${SECS}s" -R "$rate" --plain --format json -o "$TMP/z.json" \
      "$URL" >/dev/null 2>&1
    read -r zp50 zp90 zrate < <(jq -r '"\(.latency_us.p50) \(.latency_us.p90) \(.achieved_rate)"' "$TMP/z.json")
    printf "%-8s %-5s %-10s %8s %8s %10.0f %6s %14s\n" "$rate" "$round" zrk "$zp50" "$zp90" \
      "$zrate" "$(cpu_pct "$SECS" "$TMP/z.time")" "–"
    echo "$rate zrk $zp50" >>"$SUMMARY"
    taskset -c "$LOAD_CPU" /usr/bin/time -f '%U %S' -o "$TMP/r.time" \
      "$RESTBENCH" load -q -c "$CONNS" -t 1 -d "${SECS}s" -R "$rate" --json "$TMP/r.json" \
      "$URL" >/dev/null 2>&1 || true
    read -r rp50 rp90 rrate wake50 wake99 < <(jq -r \
      '"\(.latency_us.p50) \(.latency_us.p90) \(.rps) \(.pacing.wake_error_ns.p50 // 0) \(.pacing.wake_error_ns.p99 // 0)"' \
      "$TMP/r.json")
    wake=$(awk -v a="$wake50" -v b="$wake99" 'BEGIN { printf "%.1f/%.1f", a / 1000, b / 1000 }')
    printf "%-8s %-5s %-10s %8s %8s %10.0f %6s %14s\n" "$rate" "$round" restbench "$rp50" "$rp90" \
      "$rrate" "$(cpu_pct "$SECS" "$TMP/r.time")" "$wake"
    echo "$rate restbench $rp50" >>"$SUMMARY"
  done
done
echo
echo "median p50 (µs) per rate: zrk, restbench, restbench − zrk"
for rate in $RATES; do
  z=$(awk -v r="$rate" '$1 == r && $2 == "zrk" { print $3 }' "$SUMMARY" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  b=$(awk -v r="$rate" '$1 == r && $2 == "restbench" { print $3 }' "$SUMMARY" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf "%-8s %8s %10s %+8d\n" "$rate" "$z" "$b" "$((b - z))"
done
