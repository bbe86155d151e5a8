#!/usr/bin/env bash
# Does `restbench ab` see a small regression, and only a real one?
#
# rust-hyper against a copy of itself patched to do the same fixed work on every request
# (ab-regression/slower.patch: ~5 % of a plaintext request's server CPU), TRIES times, then an
# A/A of two unchanged copies TRIES times. Each try is one `restbench ab` (its rounds interleave
# A and B); the summary gives, per try, the wall time, the rounds, and the ratio B ÷ A of CPU µs
# per request and of req/s with their 95 % intervals and verdicts, and the gate's exit code.
#
#   bench/ab-regression.sh [--tries N] [--out DIR] [-- extra ab flags]
#
# Defaults: 5 tries each, plaintext, single-thread, restbench's default rounds (5 s slices,
# 3 to 6 rounds, target ±3 %), gate `--fail-if cpu_us_per_req>+2%`. Run it on a quiet machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
tries=5
out=""
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tries) tries=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ab-regression.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

cargo build --release --quiet --manifest-path "$repo/Cargo.toml" -p restbench
restbench="$repo/target/release/restbench"
work=$(mktemp -d /tmp/ab-regression.XXXXXX)
out=${out:-$work/results}
mkdir -p "$out"
# Folders named by the subject's id, as a subject folder must be.
for side in a a2 b; do
  mkdir -p "$work/$side"
  cp -r "$repo/subjects/rust-hyper" "$work/$side/rust-hyper"
done
patch --quiet -d "$work/b/rust-hyper" -p1 < "$here/ab-regression/slower.patch"

try() { # NAME A B
  local name=$1 a=$2 b=$3 start code
  start=$(date +%s)
  set +e
  "$restbench" ab "$a" "$b" --workloads plaintext --scenarios single-thread \
    --fail-if 'cpu_us_per_req>+2%' --out "$out/$name" "${extra[@]}" \
    > "$out/$name.txt" 2> "$out/$name.log"
  code=$?
  set -e
  echo "$name $(( $(date +%s) - start )) $code" >> "$out/tries.txt"
  echo "$name: exit $code in $(( $(date +%s) - start )) s" >&2
}

: > "$out/tries.txt"
for i in $(seq 1 "$tries"); do
  try "ab-$i" "$work/a/rust-hyper" "$work/b/rust-hyper"
done
for i in $(seq 1 "$tries"); do
  try "aa-$i" "$work/a/rust-hyper" "$work/a2/rust-hyper"
done

python3 - "$out" <<'EOF'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
WORDS = {"rps": ("faster", "slower"), "cpu_us_per_req": ("leaner", "costlier")}
def fmt(m):
    if m is None:
        return "-"
    iv = m.get("interval")
    if not iv:
        return f"{m.get('estimate', 0):.3f} no interval"
    better, worse = WORDS[m["measure"]]
    up, down = iv["low"] > 1, iv["high"] < 1
    if m["measure"] == "rps":
        word = better if up else worse if down else "same"
    else:
        word = worse if up else better if down else "same"
    return f"{iv['estimate']:.3f} [{iv['low']:.3f}, {iv['high']:.3f}] {word}"
print("| try | wall s | exit | rounds | CPU µs/req B ÷ A | req/s B ÷ A |")
print("|---|--:|--:|--:|---|---|")
for line in (out / "tries.txt").read_text().split("\n"):
    if not line.strip():
        continue
    name, wall, code = line.split()
    ab = json.loads((out / name / "ab.json").read_text())
    row = next(iter(ab.get("rows", [])), None)
    if row is None:
        print(f"| {name} | {wall} | {code} | - | no row | no row |")
        continue
    measures = {m["measure"]: m for m in row.get("ratios", [])}
    res = json.loads((out / name / "results.json").read_text())
    rounds = len(res["groups"][0]["rounds"]) if res.get("groups") else 0
    print(f"| {name} | {wall} | {code} | {rounds} | {fmt(measures.get('cpu_us_per_req'))} | {fmt(measures.get('rps'))} |")
EOF
echo "ab-regression.sh: results in $out" >&2
