#!/usr/bin/env bash
# Benchmark (not a test): where the generator's work goes, per request, against wrk's, in counts
# that a busy machine does not disturb (issue 15, goal 3).
#
# For each shape, against the hello server (`cargo run --release -p restbench-loadgen --example
# hello_server`):
#   - user-space instructions per request, from `valgrind --tool=callgrind` over the whole run
#     (`restbench load -n N`, `wrk -d WRK_SECS`), divided by the requests each completed;
#   - system calls per request, from `strace -f -c` over the same runs, with the calls that
#     make up most of them (read/recv, write/send, epoll_wait, epoll_ctl).
# Rates and times are not measured; bench/generator-goals.sh does that on a quiet machine.
#
# usage: bench/generator-profile.sh [N] [WRK_SECS]   (defaults 100000 and 10)
#        SHAPES="10 1 1" bench/generator-profile.sh 20000 3   (one shape, quicker)
#        TOOLS=restbench ...                                   (skip wrk: before/after a change)
#        RESTBENCH=path/to/restbench ...                       (another build, e.g. the one before)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000} WRK_SECS=${2:-10}
SHAPES=${SHAPES:-"10 1 1
64 1 1
64 1 16
512 8 1"}
TOOLS=${TOOLS:-"restbench wrk"}
for tool in valgrind strace jq; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed (apt-get install $tool)" >&2; exit 1; }
done
case " $TOOLS " in *" wrk "*) command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; } ;; esac
TARGET=${CARGO_TARGET_DIR:-target}
[ -n "${RESTBENCH:-}" ] || cargo build --release --quiet -p restbench
cargo build --release --quiet -p restbench-loadgen --example hello_server
RESTBENCH=${RESTBENCH:-$TARGET/release/restbench}
TMP=$(mktemp -d)
"$TARGET/release/examples/hello_server" 0 >"$TMP/port" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$TMP/port")/"

# The wrk Lua script that pipelines P requests per connection, as loadgen-vs-wrk.sh does.
wrk_script() {
  [ "$1" -gt 1 ] || return 0
  cat >"$TMP/pipeline.lua" <<LUA
init = function(args)
  local r = {}
  for i = 1, $1 do r[i] = wrk.format() end
  req = table.concat(r)
end
request = function() return req end
LUA
  echo "-s $TMP/pipeline.lua"
}

# Runs one generator under PREFIX; prints the requests it completed.
run() { # tool conns threads pipeline prefix...
  local tool=$1 c=$2 t=$3 p=$4
  shift 4
  if [ "$tool" = restbench ]; then
    "$@" "$RESTBENCH" load -q -t "$t" -c "$c" -n "$N" --pipeline "$p" \
      --json "$TMP/r.json" "$URL" >/dev/null 2>"$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
    jq .requests "$TMP/r.json"
  else
    # shellcheck disable=SC2046
    "$@" wrk -t"$t" -c"$c" -d"${WRK_SECS}s" $(wrk_script "$p") "$URL" 2>"$TMP/err" \
      | awk '/requests in/ {print $1}'
  fi
}

printf "%-22s %-10s %10s %12s %10s %8s %8s %8s %8s\n" shape generator requests "instr/req" \
  "sys/req" "read" "write" "ep_wait" "ep_ctl"
while read -r c t p; do
  [ -n "$c" ] || continue
  for tool in $TOOLS; do
    rm -f "$TMP"/cg.out.*
    reqs=$(run "$tool" "$c" "$t" "$p" valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out.%p" -q)
    instr=$(cat "$TMP"/cg.out.* | awk '/^totals:/ {s += $2} END {print s}')
    sreqs=$(run "$tool" "$c" "$t" "$p" strace -f -c -o "$TMP/strace")
    per() { awk -v s="$sreqs" -v re="$1" '$NF ~ re {n += ($4 ~ /^[0-9]+$/ ? $4 : 0)} END {printf "%.3f", n / s}' "$TMP/strace"; }
    total=$(awk -v s="$sreqs" '$NF == "total" {printf "%.3f", $4 / s}' "$TMP/strace")
    printf "%-22s %-10s %10s %12.0f %10s %8s %8s %8s %8s\n" "-c $c -t $t -p $p" "$tool" "$reqs" \
      "$(awk -v i="$instr" -v r="$reqs" 'BEGIN {print i / r}')" "$total" \
      "$(per '^(read|recvfrom|recvmsg|readv)$')" "$(per '^(write|sendto|sendmsg|writev)$')" \
      "$(per '^epoll_(p)?wait$')" "$(per '^epoll_ctl$')"
  done
done <<<"$SHAPES"
