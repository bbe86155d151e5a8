#!/usr/bin/env bash
# Benchmark (not a test): does a verdict restbench prints survive a rerun? (issue 23, item 7)
#
# Runs the same grid twice, back to back, each run into its own folder, then `restbench
# compare` of the two, and prints (bench/reproducibility.py does the arithmetic):
#   - contradicting verdicts: a pair of a group called "A faster" in one run and "B faster" in
#     the other, each from its own paired 95 % interval (the goal: zero);
#   - Kendall's tau-b of the rankings per group (ranks with ties, and medians);
#   - interval coverage: the share of first-run pair intervals holding the second run's estimate;
#   - the rounds each group needed, and compare's verdict counts.
#
# usage: bench/reproducibility.sh [--out DIR] [--hog SECONDS --hog-at SECONDS]
#                                 [--hog-on server|generator|both] [-- RESTBENCH RUN ARGUMENTS]
#        bench/reproducibility.sh --done-when [--out DIR]
#   --out      where the two runs go: DIR/first, DIR/second, DIR/compare.json
#              (default: a new folder under results/)
#   --hog      during the second run, start a CPU-bound process pinned to the server's CPU
#              (the last of results.json's environment.server_cpus, else the last CPU) for
#              this many seconds ...
#   --hog-at   ... this many seconds after the second run starts (default 60)
#   --hog-on   whose CPU: the server's (default), the generator's (the first of
#              environment.loadgen_cpus), or both: the server's, then the generator's right after,
#              each for --hog seconds; the windows go to DIR/hog-windows.txt and every slice of
#              the second run is checked against them (bench/done_when.py hog)
#   --done-when  issue 35's checks, one after the other, each into DIR/<name>, with its figures:
#              1. the README's first look (wall time; pairs >= 1.25x apart that are ranked apart);
#              2. the 5-subject plaintext grid at the defaults (paired ratios within +-3 %, wall
#                 time);
#              3. that grid twice, the second with a hog on the server's CPU for 60 s from 20 s
#                 in and then on the generator's for 60 s (every excluded slice with its cause,
#                 the hog's windows, counted slices it overlapped, contradictions, estimates
#                 within +-5 %, compare's verdicts);
#              4. the single-thread quick grid of every subject and workload (users cells that
#                 passed verification).
#   after --:  the `restbench run` flags of both runs (default: the issue's grid,
#              --quick --subjects rust-hyper,rust-axum,rust-actix,go-fasthttp,go-nethttp,
#              java-light4j,haskell-warp,node-http,python-uvicorn-uvloop
#              --workloads plaintext,todo --scenarios single-thread)
set -euo pipefail
cd "$(dirname "$0")/.."

OUT="" HOG="" HOG_AT=60 HOG_ON=server DONE_WHEN=""
RUN_ARGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) OUT=$2; shift 2 ;;
    --hog) HOG=$2; shift 2 ;;
    --hog-at) HOG_AT=$2; shift 2 ;;
    --hog-on) HOG_ON=$2; shift 2 ;;
    --done-when) DONE_WHEN=1; shift ;;
    --) shift; RUN_ARGS=("$@"); break ;;
    -h | --help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ ${#RUN_ARGS[@]} -eq 0 ]; then
  RUN_ARGS=(--quick
    --subjects rust-hyper,rust-axum,rust-actix,go-fasthttp,go-nethttp,java-light4j,haskell-warp,node-http,python-uvicorn-uvloop
    --workloads plaintext,todo --scenarios single-thread)
fi
case $HOG_ON in server | generator | both) ;; *)
  echo "--hog-on $HOG_ON: give server, generator or both" >&2; exit 2 ;;
esac
command -v python3 >/dev/null || { echo "python3 is not installed" >&2; exit 1; }
if [ -n "$DONE_WHEN" ]; then
  OUT=${OUT:-results/done-when-$(date -u +%Y%m%dT%H%M%SZ)}
  mkdir -p "$OUT"
  TARGET=${CARGO_TARGET_DIR:-target}
  cargo build --release --quiet -p restbench
  RESTBENCH=$TARGET/release/restbench
  timed() { # NAME ARGS...: restbench run ARGS into OUT/NAME, keeping its wall time
    local name=$1; shift
    local t0; t0=$(date +%s)
    "$RESTBENCH" run "$@" --out "$OUT/$name" || echo "($name exited $?)"
    echo $(($(date +%s) - t0)) >"$OUT/$name.wall_s"
  }
  echo "== 1. the README's first look"
  timed first-look --quick --subjects rust-hyper,go-nethttp,node-http,python-uvicorn-uvloop \
    --workloads plaintext,todo --scenarios single-thread
  echo "== 2. the 5-subject plaintext grid at the defaults"
  GRID=(--subjects rust-hyper,go-nethttp,node-http,java-light4j,python-uvicorn-uvloop
    --workloads plaintext --scenarios single-thread)
  timed grid "${GRID[@]}"
  echo "== 3. that grid twice, a hog on the server's CPU then on the generator's, 60 s each"
  "$0" --out "$OUT/hog" --hog 60 --hog-at 20 --hog-on both -- "${GRID[@]}"
  echo "== 4. the single-thread quick grid of every subject and workload"
  timed users-grid --quick --workloads plaintext,todo,echo,users --scenarios single-thread
  echo
  echo "== done-when figures ($OUT)"
  echo "-- 1. first look"
  python3 bench/done_when.py first-look "$OUT/first-look/results.json" \
    "$(cat "$OUT/first-look.wall_s")"
  echo "-- 2. the plaintext grid"
  python3 bench/done_when.py grid "$OUT/grid/results.json" "$(cat "$OUT/grid.wall_s")"
  echo "-- 3. under the hog"
  python3 bench/done_when.py hog "$OUT/hog/first/results.json" "$OUT/hog/second/results.json" \
    "$OUT/hog/hog-windows.txt" "$OUT/hog/compare.json"
  echo "-- 4. users cells"
  python3 bench/done_when.py users "$OUT/users-grid/results.json"
  exit 0
fi
if [ -n "$HOG" ]; then
  command -v taskset >/dev/null || { echo "--hog needs taskset (util-linux)" >&2; exit 1; }
fi

TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release --quiet -p restbench
RESTBENCH=$TARGET/release/restbench
OUT=${OUT:-results/reproducibility-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"

HOG_PID=""
stop_hog() {
  if [ -n "$HOG_PID" ]; then
    kill -- "-$HOG_PID" 2>/dev/null || kill "$HOG_PID" 2>/dev/null || true
    wait "$HOG_PID" 2>/dev/null || true
    HOG_PID=""
  fi
}
trap stop_hog EXIT

# The CPU the server runs on: the last of the first run's server CPUs, else the machine's last.
server_cpu() {
  python3 - "$OUT/first/results.json" <<'EOF' 2>/dev/null || echo $(($(nproc) - 1))
import json, sys
cpus = json.load(open(sys.argv[1]))["environment"]["server_cpus"]
print(cpus[-1])
EOF
}

# The generator's CPU: the first of the first run's generator CPUs, else CPU 0.
loadgen_cpu() {
  python3 - "$OUT/first/results.json" <<'EOF' 2>/dev/null || echo 0
import json, sys
cpus = json.load(open(sys.argv[1]))["environment"]["loadgen_cpus"]
print(cpus[0])
EOF
}

start=$(date +%s)
echo "== first run: restbench run ${RUN_ARGS[*]} --out $OUT/first"
"$RESTBENCH" run "${RUN_ARGS[@]}" --out "$OUT/first" || echo "(the first run exited $?)"
first_s=$(($(date +%s) - start))

start=$(date +%s)
if [ -n "$HOG" ]; then
  : >"$OUT/hog-windows.txt"
  at=$((start + HOG_AT))
  hogs=()
  case $HOG_ON in
    server) hogs=("server $(server_cpu)") ;;
    generator) hogs=("generator $(loadgen_cpu)") ;;
    both) hogs=("server $(server_cpu)" "generator $(loadgen_cpu)") ;;
  esac
  script=""
  for h in "${hogs[@]}"; do
    read -r role cpu <<<"$h"
    echo "== a CPU hog on the $role's CPU $cpu for ${HOG}s, $((at - start))s into the second run"
    echo "$role $cpu $at $((at + HOG))" >>"$OUT/hog-windows.txt"
    script+="sleep \$(( $at - \$(date +%s) )); taskset -c $cpu timeout $HOG sh -c 'while :; do :; done'; "
    at=$((at + HOG))
  done
  # Its own process group (setsid), so that stop_hog ends it and nothing else.
  setsid bash -c "$script" &
  HOG_PID=$!
fi
echo "== second run: restbench run ${RUN_ARGS[*]} --out $OUT/second"
"$RESTBENCH" run "${RUN_ARGS[@]}" --out "$OUT/second" || echo "(the second run exited $?)"
second_s=$(($(date +%s) - start))
stop_hog

"$RESTBENCH" compare "$OUT/first" "$OUT/second" | tee "$OUT/compare.txt"
"$RESTBENCH" compare --json "$OUT/first" "$OUT/second" >"$OUT/compare.json"

echo
echo "== reproducibility of $OUT (first run ${first_s}s, second ${second_s}s${HOG:+, hog ${HOG}s at ${HOG_AT}s})"
python3 bench/reproducibility.py "$OUT/first/results.json" "$OUT/second/results.json" \
  --compare "$OUT/compare.json" | tee "$OUT/reproducibility.txt"
if [ -n "$HOG" ]; then
  echo
  echo "== the slices of the second run against the hog's windows"
  python3 bench/done_when.py hog "$OUT/first/results.json" "$OUT/second/results.json" \
    "$OUT/hog-windows.txt" "$OUT/compare.json" | tee "$OUT/hog.txt"
fi
