#!/usr/bin/env python3
"""The figures of issue 35's done-when, from results.json files (bench/reproducibility.sh
--done-when runs the grids and calls this).

usage:
  done_when.py first-look RESULTS WALL_S            pairs >= 1.25x apart and whether ranked apart
  done_when.py grid RESULTS WALL_S                  paired ratios within +-3 %, wall time
  done_when.py hog FIRST SECOND WINDOWS COMPARE     excluded slices, overlaps, estimates, compare
  done_when.py users RESULTS                        users cells that passed verification
  done_when.py --self-test
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def cells_ok(run):
    return [c for c in run["cells"] if c.get("status") == "ok"]


def floor(cell):
    return "client_bound" in cell.get("flags", [])


def rank_of(group, subject):
    for e in group.get("ranking", []):
        if e["subject"] == subject:
            return e["rank"]
    return None


def first_look(run, wall_s):
    print(f"wall time: {wall_s} s")
    out = []
    for g in run.get("groups", []):
        medians = {}
        for c in cells_ok(run):
            if (c["workload"], c["scenario"], c.get("protocol", "h1")) == (
                g["workload"], g["scenario"], g["protocol"]):
                medians[c["subject"]] = (c["rps"]["median"], floor(c))
        names = sorted(medians)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                (ma, fa), (mb, fb) = medians[a], medians[b]
                hi, lo = (a, b) if ma >= mb else (b, a)
                ratio = max(ma, mb) / max(min(ma, mb), 1e-9)
                if ratio < 1.25:
                    continue
                ra, rb = rank_of(g, hi), rank_of(g, lo)
                apart = ra is not None and rb is not None and ra < rb
                note = " (the higher is a floor)" if medians[hi][1] else ""
                out.append(apart)
                print(f"  {g['workload']}: {hi} / {lo} = {ratio:.2f}x{note}: "
                      f"{'separated' if apart else 'TIED'} (ranks {ra} vs {rb})")
    print(f"pairs >= 1.25x apart separated: {sum(out)} of {len(out)}")
    return sum(out), len(out)


def grid(run, wall_s):
    within, total = 0, 0
    for g in run.get("groups", []):
        for p in g.get("pairs", []):
            i = p["rps"]
            half = max(i["high"] - i["estimate"], i["estimate"] - i["low"]) / i["estimate"]
            total += 1
            ok = half <= 0.03
            within += ok
            print(f"  {g['workload']} {p['b']} / {p['a']}: {i['estimate']:.3f} "
                  f"[{i['low']:.3f}, {i['high']:.3f}] +-{half * 100:.1f} %"
                  f"{'' if ok else '  (beyond +-3 %)'}")
        print(f"  {g['workload']}: {len(g.get('rounds', []))} rounds, reference "
              f"{g.get('reference')}")
    print(f"paired ratios within +-3 %: {within} of {total}; wall time {wall_s} s")
    return within, total


def windows(path):
    """Hog windows, one `ROLE CPU FROM TO` line each (unix seconds)."""
    out = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4:
                out.append((parts[0], parts[1], float(parts[2]), float(parts[3])))
    return out


def overlaps(frm, to, hogs):
    return [h for h in hogs if frm < h[3] and h[2] < to]


def pair_estimates(run):
    return {(g["workload"], p["a"], p["b"]): p["rps"]["estimate"]
            for g in run.get("groups", []) for p in g.get("pairs", [])}


def verdicts(run):
    out = {}
    for g in run.get("groups", []):
        for p in g.get("pairs", []):
            i = p["rps"]
            distinct = p.get("rps_distinct", True)
            v = "same"
            if distinct and i["low"] > 1:
                v = "b"
            elif distinct and i["high"] < 1:
                v = "a"
            out[(g["workload"], p["a"], p["b"])] = v
    return out


def hog(first, second, hogs, comparison):
    for role, cpu, frm, to in hogs:
        print(f"hog on the {role}'s CPU {cpu}: {frm:.0f}-{to:.0f} (unix s, {to - frm:.0f} s)")
    excluded = [x for g in second.get("groups", []) for x in g.get("excluded", [])]
    counted = [x for g in second.get("groups", []) for x in g.get("counted", [])]
    print(f"excluded slices of the second run: {len(excluded)}")
    for x in excluded:
        hit = overlaps(x["from_unix_s"], x["to_unix_s"], hogs)
        beside = f" beside {x['beside']}" if x.get("beside") else ""
        print(f"  {x['subject']}{beside} round {x['round'] + 1} "
              f"{x['from_unix_s']:.0f}-{x['to_unix_s']:.0f}"
              f"{' [hog: ' + hit[0][0] + ']' if hit else ''}: {x['cause']}")
    missed = [x for x in counted if overlaps(x["from_unix_s"], x["to_unix_s"], hogs)]
    print(f"counted slices the hog overlapped: {len(missed)} (goal: 0)")
    for x in missed:
        print(f"  {x['subject']} round {x['round'] + 1} "
              f"{x['from_unix_s']:.0f}-{x['to_unix_s']:.0f}")
    a, b = verdicts(first), verdicts(second)
    contra = [k for k in a if k in b and {a[k], b[k]} == {"a", "b"}]
    print(f"contradicting verdicts: {len(contra)} (goal: 0)")
    ea, eb = pair_estimates(first), pair_estimates(second)
    apart = []
    for k in ea:
        if k in eb:
            r = eb[k] / ea[k]
            if not 0.95 <= r <= 1.05:
                apart.append((k, r))
    print(f"pair estimates beyond +-5 % between the runs: {len(apart)} of "
          f"{len([k for k in ea if k in eb])}")
    for (w, x, y), r in apart:
        print(f"  {w} {y} / {x}: second / first = {r:.3f}")
    if comparison is not None:
        counts = {}
        for c in comparison.get("cells", []):
            counts[c.get("verdict", "?")] = counts.get(c.get("verdict", "?"), 0) + 1
        print("compare: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    return len(contra), len(missed)


def users(run):
    cells = [c for c in run["cells"] if c["workload"] == "users"]
    passed = [c for c in cells if c.get("status") == "ok"]
    print(f"users cells that passed verification: {len(passed)} of {len(cells)}")
    for c in cells:
        if c.get("status") != "ok":
            reason = (c.get("reason") or "").splitlines()[0:1]
            print(f"  {c['subject']}: {c.get('status')}: {reason[0] if reason else ''}")
    return len(passed), len(cells)


def self_test():
    run = {
        "cells": [
            {"subject": "a", "workload": "plaintext", "scenario": "single-thread",
             "protocol": "h1", "status": "ok", "rps": {"median": 200.0}, "flags": []},
            {"subject": "b", "workload": "plaintext", "scenario": "single-thread",
             "protocol": "h1", "status": "ok", "rps": {"median": 100.0}, "flags": []},
            {"subject": "u", "workload": "users", "scenario": "single-thread",
             "protocol": "h1", "status": "failed", "reason": "503 database unavailable"},
        ],
        "groups": [{
            "workload": "plaintext", "scenario": "single-thread", "protocol": "h1",
            "rounds": [{}, {}, {}], "reference": "b",
            "pairs": [{"a": "a", "b": "b", "rps_distinct": True,
                       "rps": {"estimate": 0.5, "low": 0.49, "high": 0.51, "n": 3}}],
            "ranking": [{"subject": "a", "rank": 1}, {"subject": "b", "rank": 2}],
            "excluded": [{"subject": "b", "round": 1, "cause": "hog", "from_unix_s": 100.0,
                          "to_unix_s": 105.0}],
            "counted": [{"subject": "a", "round": 0, "from_unix_s": 50.0, "to_unix_s": 55.0}],
        }],
    }
    assert first_look(run, 1) == (1, 1)
    assert grid(run, 1) == (1, 1)
    assert users(run) == (0, 1)
    assert hog(run, run, [("server", "1", 99.0, 160.0)], None) == (0, 0)
    assert hog(run, run, [("server", "1", 40.0, 160.0)], None) == (0, 1)
    print("self-test passed")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) < 3:
        print(__doc__)
        return 2
    what = argv[1]
    if what == "first-look":
        first_look(load(argv[2]), argv[3])
    elif what == "grid":
        grid(load(argv[2]), argv[3])
    elif what == "hog":
        comparison = load(argv[5]) if len(argv) > 5 else None
        hog(load(argv[2]), load(argv[3]), windows(argv[4]), comparison)
    elif what == "users":
        users(load(argv[2]))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
