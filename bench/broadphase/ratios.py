#!/usr/bin/env python3
"""Prints other / sator median CPU time per case from a benchmark JSON file.

Usage: ratios.py broadphase.json
The JSON comes from broadphase_benchmark --benchmark_repetitions=5
--benchmark_report_aggregates_only=true --benchmark_out=broadphase.json.
The other library is box2d (2D cases) or bullet (3D cases). A ratio above 1
means sator is faster.
"""
import json
import sys


def main(path):
    with open(path) as f:
        runs = json.load(f)["benchmarks"]
    medians = {}
    for run in runs:
        if run.get("aggregate_name") != "median":
            continue
        case, _, library = run["run_name"].rpartition("/")
        medians.setdefault(case, {})[library] = run["cpu_time"], run["time_unit"]
    print(f"{'case':34} {'sator':>14} {'other':>20} {'other/sator':>12}")
    for case, libs in medians.items():
        others = [name for name in libs if name != "sator"]
        if "sator" not in libs or not others:
            continue
        (sator, unit), other = libs["sator"], others[0]
        theirs = libs[other][0]
        print(f"{case:34} {sator:12.3f}{unit:>2} {other:>7} {theirs:10.3f}{unit:>2} "
              f"{theirs / sator:12.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
