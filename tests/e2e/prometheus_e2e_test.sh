#!/usr/bin/env bash
# A real Prometheus server (Debian package prometheus) scrapes a real satord,
# both on loopback: after N Pings and a scene with known bodies and poses,
# PromQL through `promtool query instant` must see exactly N started and OK
# Ping calls, a finite p99 of grpc_server_handling_seconds inside the bucket
# range, and the sator_* scene, body and pose series; and the Grafana
# dashboard (deploy/grafana) must name only exported series and evaluate.
# Waits for scrapes by a bounded poll. Exits 77 (skipped) without prometheus
# or promtool.
# Usage: prometheus_e2e_test.sh <satord> <satorctl> <out dir>
set -euo pipefail
satord=$1
satorctl=$2
work=$3
for tool in prometheus promtool; do
  command -v "${tool}" >/dev/null ||
    { echo "SKIP: ${tool} not installed (Debian package prometheus)"; exit 77; }
done
rm -rf "${work}"
mkdir -p "${work}"
satord_pid=""
prometheus_pid=""
cleanup() {
  for pid in ${prometheus_pid} ${satord_pid}; do
    kill "${pid}" 2>/dev/null || true
    wait "${pid}" 2>/dev/null || true
  done
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- satord log"; tail -20 "${work}/satord.log" || true
  echo "--- prometheus log"; tail -20 "${work}/prometheus.log" || true
  exit 1
}

# With a data directory, so the recovery series the dashboard shows exist.
mkdir -p "${work}/data"
"${satord}" --grpc_address=127.0.0.1:0 --metrics_address=127.0.0.1:0 \
  --data_dir="${work}/data" \
  --port_file="${work}/ports.json" 2>"${work}/satord.log" &
satord_pid=$!
for _ in $(seq 1 400); do
  [[ -s "${work}/ports.json" ]] && break
  kill -0 "${satord_pid}" 2>/dev/null || fail "satord exited"
  sleep 0.05
done
[[ -s "${work}/ports.json" ]] || fail "satord wrote no port file"
grpc_port=$(sed -E 's/.*"grpc_port":([0-9]+).*/\1/' "${work}/ports.json")
metrics_port=$(sed -E 's/.*"metrics_port":([0-9]+).*/\1/' "${work}/ports.json")
ctl() { "${satorctl}" --target="127.0.0.1:${grpc_port}" --deadline=10s "$@"; }

# The calls whose traces Prometheus must see.
pings=23
for _ in $(seq 1 "${pings}"); do ctl ping >/dev/null || fail "ping"; done
ctl scene create arena --dimension=2 >/dev/null || fail "create scene"
ctl bodies upsert arena --json='{"bodies": [
  {"body_id": 1, "motion_type": "MOTION_TYPE_STATIC",
   "shape": {"box2d": {"half_extents": {"x": 10, "y": 1}}}},
  {"body_id": 2, "motion_type": "MOTION_TYPE_DYNAMIC", "shape": {"circle": {"radius": 1}}},
  {"body_id": 3, "motion_type": "MOTION_TYPE_DYNAMIC", "shape": {"circle": {"radius": 1}}}]}' \
  >/dev/null || fail "upsert"
ctl bodies poses arena --tick=1 \
  --json='{"body_ids":[2,3],"positions":[1,2,3,4],"rotations":[0,0]}' >/dev/null ||
  fail "poses"

# Prometheus on loopback port 0 (its log names the port it bound), scraping
# every second.
cat >"${work}/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: satord
    static_configs:
      - targets: ['127.0.0.1:${metrics_port}']
YAML
prometheus --config.file="${work}/prometheus.yml" \
  --web.listen-address=127.0.0.1:0 --storage.tsdb.path="${work}/tsdb" \
  >"${work}/prometheus.log" 2>&1 &
prometheus_pid=$!
prom_port=""
for _ in $(seq 1 240); do
  prom_port=$(sed -nE 's/.*msg="Listening on" address=127\.0\.0\.1:([0-9]+).*/\1/p' \
    "${work}/prometheus.log" | head -1)
  [[ -n "${prom_port}" ]] &&
    curl -sf "http://127.0.0.1:${prom_port}/-/ready" >/dev/null 2>&1 && break
  kill -0 "${prometheus_pid}" 2>/dev/null || fail "prometheus exited"
  sleep 0.25
done
curl -sf "http://127.0.0.1:${prom_port}/-/ready" >/dev/null 2>&1 ||
  fail "prometheus did not become ready"

# The value of a one-series PromQL result ("{...} => VALUE @[time]"), or
# nothing when the result is empty. A failed request (a loaded machine) is
# retried up to 3 times.
query() {
  local out=""
  for _ in 1 2 3; do
    if out=$(timeout 60 promtool query instant "http://127.0.0.1:${prom_port}" "$1" \
        2>>"${work}/promtool.log"); then
      break
    fi
    sleep 0.5
  done
  sed -nE 's/.* => ([^ ]+) @.*/\1/p' <<<"${out}" | head -1
}

# Poll until Prometheus has scraped the counters (bounded: 60 s).
started=""
for _ in $(seq 1 240); do
  started=$(query 'sum(grpc_server_started_total{job="satord",grpc_method="Ping"})')
  [[ "${started}" == "${pings}" ]] && break
  sleep 0.25
done
[[ "${started}" == "${pings}" ]] || fail "started Pings: '${started}', want ${pings}"

handled=$(query 'sum(grpc_server_handled_total{job="satord",grpc_method="Ping",grpc_code="OK"})')
[[ "${handled}" == "${pings}" ]] || fail "handled OK Pings: '${handled}', want ${pings}"
count=$(query 'sum(grpc_server_handling_seconds_count{job="satord",grpc_method="Ping"})')
[[ "${count}" == "${pings}" ]] || fail "handling_seconds_count: '${count}'"

# p99 from the cumulative buckets: finite, positive and at most the largest
# finite bucket bound (10 s).
p99=$(query 'histogram_quantile(0.99, sum by (le) (grpc_server_handling_seconds_bucket{job="satord",grpc_method="Ping"}))')
/usr/bin/python3 -c 'import math, sys
v = float(sys.argv[1])
sys.exit(0 if math.isfinite(v) and 0 < v <= 10 else 1)' "${p99}" ||
  fail "p99 '${p99}' is not finite within (0, 10]"

[[ "$(query 'sator_scenes{job="satord"}')" == 1 ]] || fail "sator_scenes"
[[ "$(query 'sator_bodies{job="satord",motion="static"}')" == 1 ]] || fail "static bodies"
[[ "$(query 'sator_bodies{job="satord",motion="dynamic"}')" == 2 ]] || fail "dynamic bodies"
[[ "$(query 'sator_pose_updates_total{job="satord"}')" == 2 ]] || fail "pose updates"
[[ "$(query 'up{job="satord"}')" == 1 ]] || fail "up"
# The Grafana dashboard: every series it names is exported, and every
# expression evaluates on this Prometheus; a copy naming a series satord
# does not export must be caught.
here=$(cd "$(dirname "$0")" && pwd)
dashboard="${here}/../../deploy/grafana/satord-dashboard.json"
curl -sf "http://127.0.0.1:${metrics_port}/metrics" >"${work}/metrics.txt" ||
  fail "scrape /metrics"
/usr/bin/python3 "${here}/metrics_dashboard_check.py" "${dashboard}" \
  "${work}/metrics.txt" "http://127.0.0.1:${prom_port}" || fail "dashboard check"
sed 's/sator_rewound_queries_total/sator_rewound_total/' "${dashboard}" \
  >"${work}/broken-dashboard.json"
if /usr/bin/python3 "${here}/metrics_dashboard_check.py" \
    "${work}/broken-dashboard.json" "${work}/metrics.txt" >"${work}/broken.log"; then
  fail "a dashboard naming an unknown series passed the check"
fi
echo "ok: Prometheus saw ${pings} Pings, p99 ${p99} s, 1 scene, 3 bodies, 2 pose updates"
