#!/usr/bin/env bash
# Benchmark (not a test): are the Rust subjects efficient? (issue 15, goal 1)
#
# Runs the Rust subjects and the best subject of each other language on the four workloads in
# ONE `restbench run --scenarios single-thread` (so every cell shares the machine's state), then
# prints the server's CPU microseconds per request for each cell and the ratios of goal 1:
#   best other language ÷ rust-reference   must be ≥ 1.5 (rust-reference uses ≤ ⅔ of the CPU)
#   rust-hyper ÷ rust-reference            must be ≥ 1.3
# CPU per request comes from the server's cgroup, so it does not depend on how fast the
# generator is; run it on a quiet machine all the same (other load steals cache and cores).
#
# usage: bench/rust-efficiency.sh [--subjects IDS] [--duration D] [--repeats N] [--out DIR]
#                                 [--results FILE] [-- MORE RESTBENCH RUN ARGUMENTS]
#   --subjects   comma-separated subject ids (default: the Rust subjects and, per other
#                language, the one with the lowest CPU per request in issue 15's table)
#   --duration   measuring time per repeat (default 10s)
#   --repeats    repeats per cell (default 3)
#   --out        where restbench writes results.json (default: a new folder under results/)
#   --results    do not run: read this results.json and print the table and ratios
set -euo pipefail
cd "$(dirname "$0")/.."

SUBJECTS=rust-reference,rust-hyper,rust-axum,rust-actix,go-fasthttp,java-light4j,haskell-warp,node-http
DURATION=10s REPEATS=3 OUT="" RESULTS=""
EXTRA=()
while [ $# -gt 0 ]; do
  case $1 in
    --subjects) SUBJECTS=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --repeats) REPEATS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --results) RESULTS=$2; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done
command -v jq >/dev/null || { echo "jq is not installed (apt-get install jq)" >&2; exit 1; }

if [ -z "$RESULTS" ]; then
  TARGET=${CARGO_TARGET_DIR:-target}
  cargo build --release --quiet -p restbench
  OUT=${OUT:-results/rust-efficiency-$(date -u +%Y%m%dT%H%M%SZ)}
  "$TARGET/release/restbench" run --scenarios single-thread --subjects "$SUBJECTS" \
    --workloads plaintext,todo,echo,users --duration "$DURATION" --repeats "$REPEATS" \
    --out "$OUT" "${EXTRA[@]}"
  RESULTS=$OUT/results.json
fi
[ -s "$RESULTS" ] || { echo "no results at $RESULTS" >&2; exit 1; }

echo
echo "server CPU µs per request, single-thread ($RESULTS)"
jq -r '
  [.cells[] | select(.scenario == "single-thread")] as $cells
  | ["plaintext", "todo", "echo", "users"] as $workloads
  | ($cells | map(.subject) | unique) as $subjects
  | (["subject"] + $workloads | @tsv),
    ($subjects[] as $s
      | [$s] + [$workloads[] as $w
          | ($cells | map(select(.subject == $s and .workload == $w)) | first) as $c
          | if $c == null then "-"
            elif $c.status != "ok" then $c.status
            else ($c.server.cpu_us_per_req * 100 | round / 100 | tostring)
              + (if ($c.flags | length) > 0 then " (" + ($c.flags | join(",")) + ")" else "" end)
            end]
      | @tsv)
' "$RESULTS" | column -t -s $'\t'

echo
echo "goal 1 ratios (higher is better for rust-reference)"
jq -r '
  [.cells[] | select(.scenario == "single-thread" and .status == "ok" and .server.cpu_us_per_req > 0)] as $ok
  | def cpu($s; $w): ($ok | map(select(.subject == $s and .workload == $w)) | first | .server.cpu_us_per_req);
    def verdict($r; $goal): if $r == null then "n/a" elif $r >= $goal then "pass" else "FAIL" end;
    def fmt($x): if $x == null then "-" else ($x * 100 | round / 100 | tostring) end;
  (["workload", "best other", "µs", "÷ rust-reference", "≥1.5", "rust-hyper ÷ rust-reference", "≥1.3"] | @tsv),
  (["plaintext", "todo", "echo", "users"][] as $w
    | cpu("rust-reference"; $w) as $ref
    | cpu("rust-hyper"; $w) as $hyper
    | ($ok | map(select(.workload == $w and .language != "rust")) | min_by(.server.cpu_us_per_req)) as $best
    | (if $ref and $best then $best.server.cpu_us_per_req / $ref else null end) as $r1
    | (if $ref and $hyper then $hyper / $ref else null end) as $r2
    | [$w, ($best.subject // "-"), fmt($best.server.cpu_us_per_req), fmt($r1), verdict($r1; 1.5),
       fmt($r2), verdict($r2; 1.3)]
    | @tsv)
' "$RESULTS" | column -t -s $'\t'
