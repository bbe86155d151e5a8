#!/usr/bin/env bash
# Where Jersey runs on Grizzly, measured: GRIZZLY_HANDLER=worker-thread (Grizzly's default
# WorkerThreadProvider, seed 002's server: every request handed from the selector to a worker)
# against same-thread (Grizzly's SameThreadProvider around Jersey's container: no hand-off).
#
#   bench/jersey-handler.sh [--out DIR] [--workload todo] [-- extra ab flags]
#
# Two copies of subjects/java-jersey-grizzly (folders named by the id, as a subject's must be),
# the second with GRIZZLY_HANDLER = "same-thread". Then:
#   1. `restbench ab A B --workloads W --scenarios single-thread`: B ÷ A of req/s and of CPU µs
#      per request, paired by round, with 95 % intervals;
#   2. `restbench profile` of each (20 s warm-up, 8 s under perf) and `profile --diff`: system
#      calls, context switches and faults per request, the CPU split, the top symbols.
# Run it on a quiet machine (nothing else compiling or measuring).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
out=""
workload=todo
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --workload) workload=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "jersey-handler.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

cargo build --release --quiet --manifest-path "$repo/Cargo.toml" -p restbench
restbench="$repo/target/release/restbench"
work=$(mktemp -d /tmp/jersey-handler.XXXXXX)
out=${out:-$work/results}
mkdir -p "$out"
id=java-jersey-grizzly
for side in worker-thread same-thread; do
  mkdir -p "$work/$side"
  cp -r "$repo/subjects/$id" "$work/$side/$id"
  rm -rf "$work/$side/$id/target"
done
sed -i 's/^GRIZZLY_HANDLER = "worker-thread"$/GRIZZLY_HANDLER = "same-thread"/' \
  "$work/same-thread/$id/subject.toml"
if ! grep -q '^GRIZZLY_HANDLER = "same-thread"$' "$work/same-thread/$id/subject.toml"; then
  echo "jersey-handler.sh: could not set GRIZZLY_HANDLER in the copy's subject.toml" >&2
  exit 1
fi

echo "jersey-handler.sh: ab worker-thread (A) vs same-thread (B), $workload, single-thread" >&2
"$restbench" ab "$work/worker-thread/$id" "$work/same-thread/$id" --workloads "$workload" \
  --scenarios single-thread --out "$out/ab" "${extra[@]}" > "$out/ab.txt" 2> "$out/ab.log"
for side in worker-thread same-thread; do
  echo "jersey-handler.sh: profile $side" >&2
  "$restbench" profile "$id" --subjects-dir "$work/$side" --workload "$workload" \
    --warmup 20s --duration 8s --out "$out/profile-$side" > "$out/profile-$side.txt" \
    2> "$out/profile-$side.log"
done
"$restbench" profile --diff "$out/profile-worker-thread" "$out/profile-same-thread" \
  --out "$out/profile-diff" > "$out/profile-diff.txt" 2>&1

cat "$out/ab.txt"
python3 - "$out" <<'EOF'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
rows = [("req/s under perf", "rps", "{:,.0f}"),
        ("system calls / request", "syscalls_per_request", "{:.2f}"),
        ("voluntary switches / request", "voluntary_switches_per_request", "{:.2f}"),
        ("involuntary switches / request", "involuntary_switches_per_request", "{:.2f}"),
        ("minor faults / request", "minor_faults_per_request", "{:.3f}")]
p = {s: json.loads((out / f"profile-{s}" / "profile.json").read_text())
     for s in ("worker-thread", "same-thread")}
def cell(doc):
    return doc.get("profile", doc)
print("\n| per request | worker-thread | same-thread |")
print("|---|--:|--:|")
for label, key, f in rows:
    vals = [cell(p[s]).get(key) for s in ("worker-thread", "same-thread")]
    print(f"| {label} | " + " | ".join("-" if v is None else f.format(v) for v in vals) + " |")
for s in ("worker-thread", "same-thread"):
    c = cell(p[s])
    split = ", ".join(f"{k} {v*100:.0f} %" for k, v in c.get("split", {}).items() if v >= 0.005)
    top = ", ".join(f"{t['symbol']} {t['share']*100:.1f} %" for t in c.get("top_symbols", [])[:5])
    print(f"\n{s}: CPU split {split}\n  top symbols: {top}")
EOF
echo "jersey-handler.sh: results in $out (profile-diff/ holds the differential flame graph)" >&2
