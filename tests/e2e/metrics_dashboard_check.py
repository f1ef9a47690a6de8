#!/usr/bin/python3
"""Checks deploy/grafana's dashboard against what satord exports.

Usage: metrics_dashboard_check.py DASHBOARD.json EXPOSITION.txt [PROMETHEUS_URL]

The dashboard must parse as JSON and have panels with PromQL targets; every
metric name those expressions use must be a series in EXPOSITION (a scrape of
satord's /metrics) or Prometheus' own `up`. With PROMETHEUS_URL, every
expression (with $job as .* and $__rate_interval as 1m) must also evaluate
without error through `promtool query instant`. Exits 1 naming what is wrong.
"""
import json
import re
import subprocess
import sys

FUNCTIONS_AND_KEYWORDS = {
    "sum", "avg", "min", "max", "count", "by", "without", "on", "ignoring",
    "group_left", "group_right", "and", "or", "unless", "offset", "bool",
    "rate", "irate", "increase", "histogram_quantile", "label_values",
    "topk", "bottomk", "abs", "clamp_min", "clamp_max", "time", "vector",
    "inf", "nan",
}


def metric_names(expr):
    """The metric names an expression selects."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # String literals.
    text = re.sub(r"\{[^}]*\}", "", text)  # Label matchers.
    text = re.sub(r"\[[^\]]*\]", "", text)  # Range durations.
    # Label lists of by/without/on/ignoring.
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)",
                  " ", text)
    names = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        word = match.group(0)
        following = text[match.end():].lstrip()
        if following.startswith("("):
            continue  # A function call.
        if word in FUNCTIONS_AND_KEYWORDS:
            continue
        names.add(word)
    return names


def exported_names(exposition):
    """Names of the samples, and of every family a `# TYPE` line declares
    (a counter such as sator_errors_total has no sample before its first
    increment, but satord exports it)."""
    names = {"up"}
    for line in exposition.splitlines():
        if line.startswith("# TYPE "):
            parts = line.split()
            if len(parts) == 4:
                name, kind = parts[2], parts[3]
                names.add(name)
                if kind == "histogram":
                    names |= {name + "_bucket", name + "_sum", name + "_count"}
            continue
        if not line or line.startswith("#"):
            continue
        names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names


def expressions(dashboard):
    found = []
    for panel in dashboard.get("panels", []):
        for target in panel.get("targets", []):
            if "expr" in target:
                found.append((panel.get("title", "?"), target["expr"]))
    return found


def main():
    with open(sys.argv[1]) as f:
        dashboard = json.load(f)
    with open(sys.argv[2]) as f:
        exported = exported_names(f.read())
    exprs = expressions(dashboard)
    problems = []
    if len(exprs) < 5:
        problems.append(f"only {len(exprs)} PromQL targets")
    used = set()
    for title, expr in exprs:
        names = metric_names(expr)
        if not names:
            problems.append(f"{title}: selects no series: {expr}")
        for name in sorted(names - exported):
            problems.append(f"{title}: {name} is not exported by satord")
        used |= names
    for needed in ("grpc_server_handled_total", "grpc_server_handling_seconds_bucket",
                   "sator_scenes", "sator_bodies", "sator_rewound_queries_total",
                   "sator_session_message_seconds_bucket", "sator_errors_total",
                   "sator_requests_shed_total", "sator_recovery_records"):
        if needed not in used:
            problems.append(f"no panel uses {needed}")
    if len(sys.argv) > 3:
        url = sys.argv[3]
        for title, expr in exprs:
            concrete = expr.replace("$__rate_interval", "1m").replace("$job", ".*")
            # Up to 3 tries: a loaded machine may drop a request.
            for _ in range(3):
                run = subprocess.run(
                    ["promtool", "query", "instant", url, concrete],
                    capture_output=True, text=True, timeout=60)
                if run.returncode == 0:
                    break
            if run.returncode != 0:
                problems.append(f"{title}: Prometheus refused {concrete}: "
                                f"{run.stderr.strip()}")
    for problem in problems:
        print("FAIL:", problem)
    if problems:
        return 1
    print(f"ok: {len(exprs)} expressions, {len(used)} series, all exported")
    return 0


if __name__ == "__main__":
    sys.exit(main())
