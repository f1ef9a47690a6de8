#!/usr/bin/env python3
"""Prints box2d / sator median CPU time per case from a benchmark JSON file.

Usage: ratios.py broadphase.json
The JSON comes from broadphase_benchmark --benchmark_repetitions=5
--benchmark_report_aggregates_only=true --benchmark_out=broadphase.json.
A ratio above 1 means sator is faster.
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
    print(f"{'case':34} {'sator':>12} {'box2d':>12} {'box2d/sator':>12}")
    for case, libs in medians.items():
        if "sator" not in libs or "box2d" not in libs:
            continue
        (sator, unit), (box2d, _) = libs["sator"], libs["box2d"]
        print(f"{case:34} {sator:10.3f}{unit:>2} {box2d:10.3f}{unit:>2} "
              f"{box2d / sator:12.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
