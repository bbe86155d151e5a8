#!/usr/bin/env python3
"""restbench's own check (issue 23 item 7): do two runs of the same grid agree?

usage: bench/reproducibility.py FIRST/results.json SECOND/results.json [--compare COMPARE.json]
       bench/reproducibility.py --self-test

Reads two results.json (the same grid run twice, back to back) and prints:
  - contradicting verdicts: within each run, per group (workload, scenario, protocol), each
    pair's verdict from its paired interval of req/s B / A (A faster, B faster, or none); a
    contradiction is A faster in one run and B faster in the other;
  - Kendall's tau-b per group between the two runs' rankings (ties count as ties), over the
    ranks printed (which share a rank where no interval separates two subjects), and over the
    medians;
  - coverage: the share of the first run's pair intervals that contain the second run's
    estimate of the same ratio;
  - the rounds each group needed in each run, and whether it settled;
  - with --compare (`restbench compare --json FIRST SECOND`), compare's verdict counts.

Runs from before rounds have no `groups`: their pairs are then computed here from each cell's
repeats (Welch's t interval on the logs, unpaired), and their rankings from the medians.
Standard library only. docs/verdicts.md explains the arithmetic.
"""

import json
import math
import sys

T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
       2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df):
    """The two-sided 95 % quantile of Student's t (the table restbench's model uses)."""
    if df < 1:
        return math.inf
    if df <= 30:
        return T95[df - 1]
    if df <= 60:
        return 2.000
    if df <= 120:
        return 1.980
    return 1.960


def mean_se(values):
    n = len(values)
    mean = sum(values) / n
    var = sum((x - mean) ** 2 for x in values) / (n - 1)
    return mean, math.sqrt(var / n)


def welch_ratio(a, b):
    """b / a of two independent samples: (estimate, low, high) from Welch's t on the logs."""
    if len(a) < 2 or len(b) < 2 or min(a + b) <= 0:
        return None
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    (ma, sa), (mb, sb) = mean_se(la), mean_se(lb)
    se = math.sqrt(sa * sa + sb * sb)
    if se == 0:
        df = len(la) + len(lb) - 2
    else:
        df = se ** 4 / max(sa ** 4 / (len(la) - 1) + sb ** 4 / (len(lb) - 1), 1e-300)
    t = t95(max(1, int(df)))
    d = mb - ma
    return (math.exp(d), math.exp(d - t * se), math.exp(d + t * se))


def group_key(x):
    return (x["workload"], x["scenario"], x.get("protocol", "h1"))


def counting_rps(cell):
    return [r["rps"] for r in cell.get("repeats", [])
            if r.get("saturation") != "contended" and r.get("rps", 0) > 0]


def pairs_of(run):
    """{group: {(a, b): (estimate, low, high)}} with a < b by name, b / a of req/s."""
    out = {}
    if run.get("groups"):
        for g in run["groups"]:
            pairs = out.setdefault(group_key(g), {})
            for p in g.get("pairs", []):
                i = p["rps"]
                put(pairs, p["a"], p["b"], (i["estimate"], i["low"], i["high"]))
        return out
    cells = [c for c in run.get("cells", []) if c.get("status") == "ok"]
    for i, ca in enumerate(cells):
        for cb in cells[i + 1:]:
            if group_key(ca) != group_key(cb):
                continue
            r = welch_ratio(counting_rps(ca), counting_rps(cb))
            if r:
                put(out.setdefault(group_key(ca), {}), ca["subject"], cb["subject"], r)
    return out


def put(pairs, a, b, interval):
    """Stores b / a under the names in order, inverting the interval when they are swapped."""
    if a <= b:
        pairs[(a, b)] = interval
    else:
        e, lo, hi = interval
        pairs[(b, a)] = (1 / e, 1 / hi, 1 / lo)


def verdict(interval):
    """'B' when b / a lies wholly above 1, 'A' when wholly below, None when it holds 1."""
    _, lo, hi = interval
    if lo > 1:
        return "B"
    if hi < 1:
        return "A"
    return None


def rankings_of(run):
    """{group: ({subject: rank}, {subject: median req/s})}."""
    out = {}
    medians = {}
    for c in run.get("cells", []):
        if c.get("status") == "ok" and "contended" not in c.get("flags", []):
            medians.setdefault(group_key(c), {})[c["subject"]] = c["rps"]["median"]
    for key, m in medians.items():
        out[key] = (None, m)
    for g in run.get("groups", []):
        ranks = {e["subject"]: e["rank"] for e in g.get("ranking", [])}
        out[group_key(g)] = (ranks, medians.get(group_key(g), {}))
    return out


def kendall_tau_b(x, y):
    """Kendall's tau-b of two paired lists; None when either has no pair that is not tied."""
    n = len(x)
    concordant = discordant = ties_x = ties_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    if denominator == 0:
        return None
    return (concordant - discordant) / denominator


def tau_of(first, second):
    """tau-b over the subjects in both: (over ranks or None, over medians or None)."""
    ranks1, med1 = first
    ranks2, med2 = second
    common = sorted(set(med1) & set(med2))
    by_median = kendall_tau_b([med1[s] for s in common], [med2[s] for s in common])
    by_rank = None
    if ranks1 is not None and ranks2 is not None:
        both = sorted(set(ranks1) & set(ranks2))
        # A lower rank is better: negate so that, as for medians, higher is better.
        by_rank = kendall_tau_b([-ranks1[s] for s in both], [-ranks2[s] for s in both])
    return by_rank, by_median


def analyse(first, second, comparison=None):
    """Every figure the report prints, as a dict."""
    p1, p2 = pairs_of(first), pairs_of(second)
    contradictions, agreements, covered, compared = [], 0, 0, 0
    for key in sorted(set(p1) & set(p2)):
        for pair in sorted(set(p1[key]) & set(p2[key])):
            i1, i2 = p1[key][pair], p2[key][pair]
            v1, v2 = verdict(i1), verdict(i2)
            if v1 and v2 and v1 != v2:
                contradictions.append((key, pair, i1, i2))
            elif v1 and v1 == v2:
                agreements += 1
            compared += 1
            if i1[1] <= i2[0] <= i1[2]:
                covered += 1
    r1, r2 = rankings_of(first), rankings_of(second)
    taus = {key: tau_of(r1[key], r2[key]) for key in sorted(set(r1) & set(r2))}
    rounds = {}
    for label, run in (("first", first), ("second", second)):
        for g in run.get("groups", []):
            rounds.setdefault(group_key(g), {})[label] = (len(g.get("rounds", [])),
                                                          g.get("settled", False))
    counts = {}
    if comparison is not None:
        for c in comparison.get("cells", []):
            counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    return {
        "contradictions": contradictions,
        "agreements": agreements,
        "pairs": compared,
        "covered": covered,
        "taus": taus,
        "rounds": rounds,
        "compare": counts,
    }


def fmt_tau(t):
    return "n/a" if t is None else f"{t:.2f}"


def show(a):
    name = lambda key: " · ".join(k for k in key if k != "h1")
    lines = [f"contradicting verdicts: {len(a['contradictions'])} "
             f"(of {a['pairs']} pairs in both runs; {a['agreements']} agree on a winner)"]
    for key, (x, y), i1, i2 in a["contradictions"]:
        lines.append(f"  {name(key)}: {y} / {x} {i1[0]:.2f} [{i1[1]:.2f}, {i1[2]:.2f}] then "
                     f"{i2[0]:.2f} [{i2[1]:.2f}, {i2[2]:.2f}]")
    share = a["covered"] / a["pairs"] if a["pairs"] else None
    lines.append("interval coverage: " + ("n/a (no pair in both runs)" if share is None else
                 f"{share:.0%} ({a['covered']} of {a['pairs']} first-run intervals hold the "
                 f"second run's estimate)"))
    lines.append("Kendall tau-b per group (ranks with ties; medians):")
    for key, (by_rank, by_median) in a["taus"].items():
        lines.append(f"  {name(key)}: {fmt_tau(by_rank)}; {fmt_tau(by_median)}")
    if a["rounds"]:
        lines.append("rounds per group (first run, second run):")
        for key, r in sorted(a["rounds"].items()):
            def one(label):
                if label not in r:
                    return "–"
                n, settled = r[label]
                return f"{n}{'' if settled else ' (not settled)'}"
            lines.append(f"  {name(key)}: {one('first')}, {one('second')}")
    if a["compare"]:
        order = ["faster", "slower", "same", "no interval", "not comparable"]
        known = [f"{a['compare'][v]} {v}" for v in order if v in a["compare"]]
        other = [f"{n} {v}" for v, n in a["compare"].items() if v not in order]
        lines.append("compare: " + ", ".join(known + other))
    return "\n".join(lines)


def self_test():
    """Known answers for the arithmetic; prints 'self-test ok' or raises."""
    close = lambda x, y: abs(x - y) < 1e-9
    # tau-b: identical order 1, reversed -1; with ties, the textbook value.
    assert close(kendall_tau_b([1, 2, 3, 4], [1, 2, 3, 4]), 1.0)
    assert close(kendall_tau_b([1, 2, 3, 4], [4, 3, 2, 1]), -1.0)
    # x has one tie (1,1), y none: C=5, D=0, Tx=1 -> 5 / sqrt(5 * 6).
    assert close(kendall_tau_b([1, 1, 2, 3], [1, 2, 3, 4]), 5 / math.sqrt(30))
    assert kendall_tau_b([1, 1], [2, 2]) is None
    # Welch on logs: identical samples give a point at 1, a doubled one a ratio of 2.
    e, lo, hi = welch_ratio([100, 102, 98], [100, 102, 98])
    assert close(e, 1.0) and lo < 1 < hi
    e, lo, hi = welch_ratio([100, 102, 98], [200, 204, 196])
    assert close(e, 2.0) and lo > 1.9 and hi < 2.1
    assert welch_ratio([100], [200, 201]) is None

    def pair(a, b, e, lo, hi):
        return {"a": a, "b": b, "rps": {"estimate": e, "low": lo, "high": hi, "n": 5},
                "settled": True}

    def run(pairs, ranking, medians, rounds):
        return {
            "groups": [{"workload": "plaintext", "scenario": "single-thread", "protocol": "h1",
                        "rounds": [{"order": []}] * rounds, "settled": rounds < 10,
                        "pairs": pairs,
                        "ranking": [{"subject": s, "rank": r, "tied": False, "value": 0}
                                    for s, r in ranking]}],
            "cells": [{"subject": s, "workload": "plaintext", "scenario": "single-thread",
                       "status": "ok", "flags": [], "rps": {"median": m}}
                      for s, m in medians],
        }

    first = run([pair("x", "y", 1.5, 1.4, 1.6), pair("x", "z", 0.9, 0.85, 0.95),
                 pair("y", "z", 1.0, 0.9, 1.1)],
                [("y", 1), ("x", 2), ("z", 2)], [("x", 100), ("y", 150), ("z", 90)], 6)
    # The second run names one pair the other way round (z / x instead of x / z) and calls
    # it the other way: a contradiction. y / z moves inside the first interval: covered.
    second = run([pair("x", "y", 1.45, 1.3, 1.6), pair("z", "x", 0.9, 0.8, 0.95),
                  pair("y", "z", 1.05, 0.95, 1.15)],
                 [("y", 1), ("z", 2), ("x", 3)], [("x", 95), ("y", 150), ("z", 100)], 10)
    comparison = {"cells": [{"verdict": "same"}, {"verdict": "same"}, {"verdict": "faster"}]}
    a = analyse(first, second, comparison)
    assert len(a["contradictions"]) == 1, a
    assert a["contradictions"][0][1] == ("x", "z")
    assert a["agreements"] == 1 and a["pairs"] == 3
    # x / y 1.45 in [1.4, 1.6]; x / z inverted 1/0.9 = 1.11 not in [0.85, 0.95]; y / z 1.05 in.
    assert a["covered"] == 2, a
    key = ("plaintext", "single-thread", "h1")
    by_rank, by_median = a["taus"][key]
    # Ranks (negated) first: y>x=z; second: y>z>x -> C=2, D=0, Tx=1, Ty=0: 2/sqrt(3*2).
    assert close(by_rank, 2 / math.sqrt(6)), by_rank
    # Medians: y>x>z then y>z>x -> C=2, D=1: 1/3.
    assert close(by_median, 1 / 3), by_median
    assert a["rounds"][key] == {"first": (6, True), "second": (10, False)}
    assert a["compare"] == {"same": 2, "faster": 1}
    text = show(a)
    assert "contradicting verdicts: 1 " in text and "coverage: 67%" in text, text
    assert "compare: 1 faster, 2 same" in text, text
    # Runs from before rounds: pairs from the cells' repeats.
    old = {"cells": [
        {"subject": "x", "workload": "w", "scenario": "s", "status": "ok", "flags": [],
         "rps": {"median": 100}, "repeats": [{"rps": v} for v in (100, 101, 99)]},
        {"subject": "y", "workload": "w", "scenario": "s", "status": "ok", "flags": [],
         "rps": {"median": 200}, "repeats": [{"rps": v} for v in (200, 202, 198)]},
    ]}
    a = analyse(old, old)
    assert a["pairs"] == 1 and a["covered"] == 1 and not a["contradictions"]
    assert a["agreements"] == 1
    print("self-test ok")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    args = argv[1:]
    compare_path = None
    if "--compare" in args:
        i = args.index("--compare")
        if i + 1 >= len(args):
            print("--compare needs a file (restbench compare --json output)", file=sys.stderr)
            return 2
        compare_path = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    docs = []
    for path in args + ([compare_path] if compare_path else []):
        try:
            with open(path, encoding="utf-8") as f:
                docs.append(json.load(f))
        except (OSError, ValueError) as e:
            print(f"cannot read {path}: {e}", file=sys.stderr)
            return 1
    print(show(analyse(docs[0], docs[1], docs[2] if compare_path else None)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
