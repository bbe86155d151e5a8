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
#                                 [-- RESTBENCH RUN ARGUMENTS]
#   --out      where the two runs go: DIR/first, DIR/second, DIR/compare.json
#              (default: a new folder under results/)
#   --hog      during the second run, start a CPU-bound process pinned to the server's CPU
#              (the last of results.json's environment.server_cpus, else the last CPU) for
#              this many seconds ...
#   --hog-at   ... this many seconds after the second run starts (default 60)
#   after --:  the `restbench run` flags of both runs (default: the issue's grid,
#              --quick --subjects rust-hyper,rust-axum,rust-actix,go-fasthttp,go-nethttp,
#              java-light4j,haskell-warp,node-http,python-uvicorn-uvloop
#              --workloads plaintext,todo --scenarios single-thread)
set -euo pipefail
cd "$(dirname "$0")/.."

OUT="" HOG="" HOG_AT=60
RUN_ARGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) OUT=$2; shift 2 ;;
    --hog) HOG=$2; shift 2 ;;
    --hog-at) HOG_AT=$2; shift 2 ;;
    --) shift; RUN_ARGS=("$@"); break ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ ${#RUN_ARGS[@]} -eq 0 ]; then
  RUN_ARGS=(--quick
    --subjects rust-hyper,rust-axum,rust-actix,go-fasthttp,go-nethttp,java-light4j,haskell-warp,node-http,python-uvicorn-uvloop
    --workloads plaintext,todo --scenarios single-thread)
fi
command -v python3 >/dev/null || { echo "python3 is not installed" >&2; exit 1; }
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

start=$(date +%s)
echo "== first run: restbench run ${RUN_ARGS[*]} --out $OUT/first"
"$RESTBENCH" run "${RUN_ARGS[@]}" --out "$OUT/first" || echo "(the first run exited $?)"
first_s=$(($(date +%s) - start))

if [ -n "$HOG" ]; then
  CPU=$(server_cpu)
  echo "== a CPU hog on CPU $CPU for ${HOG}s, ${HOG_AT}s into the second run"
  # Its own process group (setsid), so that stop_hog ends it and nothing else.
  setsid bash -c "sleep $HOG_AT; exec taskset -c $CPU timeout $HOG sh -c 'while :; do :; done'" &
  HOG_PID=$!
fi
start=$(date +%s)
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
